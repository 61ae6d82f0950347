//! Files → checked tools: directories scanned, each file loaded on its own
//! through the runtime's format module, every diagnostic kept.

use std::path::{Path, PathBuf};

use toolmetadata::metadata::{Loader, ToolMetadata, tool_files};
use toolmetadata::{Diagnostic, Diagnostics, Severity};

/// A tool and the file it came from.
#[derive(Debug)]
pub(crate) struct LoadedTool {
    pub(crate) path: PathBuf,
    pub(crate) tool: ToolMetadata,
}

/// What loading found.
#[derive(Debug, Default)]
pub(crate) struct Loaded {
    pub(crate) tools: Vec<LoadedTool>,
    pub(crate) errors: Vec<Diagnostic>,
    pub(crate) warnings: Vec<String>,
    /// Every existing file read and directory scanned, for `rerun-if-changed`.
    pub(crate) watched: Vec<PathBuf>,
}

/// Loads the files of `dirs` (sorted) and then `files`, in that order.
pub(crate) fn load(
    dirs: &[PathBuf],
    files: &[PathBuf],
    unknown_keys: Severity,
) -> Result<Loaded, crate::Error> {
    let loader = Loader::new().unknown_keys(unknown_keys);
    let mut loaded = Loaded::default();
    let mut paths = Vec::new();
    for dir in dirs {
        let found = tool_files(dir).map_err(|e| crate::Error::io(dir, e))?;
        loaded.watched.push(dir.clone());
        for ignored in found.ignored {
            loaded.warnings.push(format!(
                "{} is not loaded: tool files end in lower-case .toml or .json",
                ignored.display()
            ));
        }
        paths.extend(found.files);
    }
    for file in files {
        if !file.is_file() {
            return Err(crate::Error::io(
                file,
                std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
            ));
        }
        paths.push(file.clone());
    }
    for path in paths {
        loaded.watched.push(path.clone());
        match loader.load_file(&path) {
            Ok(ok) => {
                loaded
                    .warnings
                    .extend(ok.warnings.iter().map(|w| w.render(false)));
                loaded.tools.push(LoadedTool {
                    path,
                    tool: ok.tool,
                });
            }
            Err(diagnostics) => split(diagnostics, &mut loaded),
        }
    }
    Ok(loaded)
}

fn split(diagnostics: Diagnostics, loaded: &mut Loaded) {
    for d in diagnostics {
        match d.severity() {
            Severity::Error => loaded.errors.push(d),
            Severity::Warning => loaded.warnings.push(d.render(false)),
        }
    }
}

/// A path as diagnostics show it.
pub(crate) fn shown(path: &Path) -> String {
    path.display().to_string()
}
