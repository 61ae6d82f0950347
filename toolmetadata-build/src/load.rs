//! Files → loaded tools: directories scanned, each file loaded on its own
//! through the runtime's format module, every diagnostic kept.

use std::path::{Path, PathBuf};

use toolmetadata_load::Severity;
use toolmetadata_load::metadata::{self, Loader, ToolMetadata, tool_files};
use toolmetadata_load::{Diagnostic, SourceFile};

/// Where the builder reads tools from, in the order given.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    /// The tool files directly in a directory, sorted by name.
    Dir(PathBuf),
    /// One file.
    File(PathBuf),
}

/// A tool and the file it came from.
#[derive(Debug)]
pub(crate) struct LoadedTool {
    pub(crate) path: PathBuf,
    pub(crate) tool: ToolMetadata,
}

/// The text of `tool`'s file, named as diagnostics show it: for findings
/// about a tool made after its file was read (empty when it cannot be read
/// again, and then located nowhere).
pub(crate) fn source(tool: &LoadedTool) -> std::sync::Arc<SourceFile> {
    let text = std::fs::read_to_string(&tool.path).unwrap_or_default();
    std::sync::Arc::new(SourceFile::new(shown(&tool.path), text))
}

/// What loading found.
#[derive(Debug, Default)]
pub(crate) struct Loaded {
    pub(crate) tools: Vec<LoadedTool>,
    /// Every file read, in order.
    pub(crate) files: Vec<PathBuf>,
    /// Errors and warnings of the files, each on its own.
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// Files of the directories that look like tool files but are not
    /// loaded.
    pub(crate) ignored: Vec<Ignored>,
    /// Every existing file read and directory scanned, for `rerun-if-changed`.
    pub(crate) watched: Vec<PathBuf>,
}

/// A file that looks like a tool file but is not loaded, and why.
#[derive(Debug)]
pub(crate) struct Ignored {
    pub(crate) path: PathBuf,
    /// The scanned directory it is beneath, when it is in a subdirectory.
    pub(crate) beneath: Option<PathBuf>,
}

/// Loads the files of `sources`, in order.
pub(crate) fn load(sources: &[Source], unknown_keys: Severity) -> Result<Loaded, crate::Error> {
    let loader = Loader::new().unknown_keys(unknown_keys);
    let mut loaded = Loaded::default();
    for source in sources {
        match source {
            Source::Dir(dir) => {
                let found = tool_files(dir).map_err(|e| crate::Error::io(dir, e))?;
                loaded.watched.push(dir.clone());
                loaded
                    .ignored
                    .extend(found.ignored.into_iter().map(|path| Ignored {
                        path,
                        beneath: None,
                    }));
                loaded
                    .ignored
                    .extend(found.nested.into_iter().map(|path| Ignored {
                        path,
                        beneath: Some(dir.clone()),
                    }));
                loaded.files.extend(found.files);
            }
            Source::File(file) => {
                if !file.is_file() {
                    return Err(crate::Error::io(
                        file,
                        std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
                    ));
                }
                loaded.files.push(file.clone());
            }
        }
    }
    // A nested file that another source reads is no surprise.
    let read: Vec<PathBuf> = loaded.files.iter().map(|f| canonical(f)).collect();
    let dirs: Vec<PathBuf> = sources
        .iter()
        .filter_map(|s| match s {
            Source::Dir(dir) => Some(canonical(dir)),
            Source::File(_) => None,
        })
        .collect();
    loaded.ignored.retain(|i| {
        if i.beneath.is_none() {
            return true;
        }
        let path = canonical(&i.path);
        !read.contains(&path) && !path.parent().is_some_and(|p| dirs.iter().any(|d| d == p))
    });
    for path in &loaded.files {
        loaded.watched.push(path.clone());
        match loader.load_file(path) {
            Ok(ok) => {
                loaded.diagnostics.extend(ok.warnings);
                loaded.tools.push(LoadedTool {
                    path: path.clone(),
                    tool: ok.tool,
                });
            }
            Err(diagnostics) => loaded.diagnostics.extend(diagnostics),
        }
    }
    Ok(loaded)
}

/// `path` resolved, or as given when it cannot be.
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}

/// The warning for a file of a directory that is not loaded.
pub(crate) fn ignored_warning(ignored: &Ignored) -> String {
    let path = &ignored.path;
    if let Some(dir) = &ignored.beneath {
        return format!(
            "{} is not loaded: a directory's tools are the files directly in it, and this one is in a \
             subdirectory of {}; move it up, or add its directory too (`Builder::dir`, or another \
             directory argument of `toolmetadata`)",
            path.display(),
            dir.display()
        );
    }
    if metadata::is_yaml(path) && metadata::Format::from_path(path).is_none() {
        let lower = path
            .extension()
            .is_some_and(|e| e.to_str().is_some_and(|e| e == "yaml" || e == "yml"));
        if lower {
            return format!(
                "{} is not loaded: YAML is not enabled; {}",
                path.display(),
                metadata::YAML_FEATURE_HELP
            );
        }
    }
    format!(
        "{} is not loaded: tool files end in lower-case {}",
        path.display(),
        if cfg!(feature = "yaml") {
            ".toml, .json, .yaml or .yml"
        } else {
            ".toml or .json"
        }
    )
}

/// A path as diagnostics show it.
pub(crate) fn shown(path: &Path) -> String {
    path.display().to_string()
}
