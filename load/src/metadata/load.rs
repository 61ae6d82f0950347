//! Loading a metadata file: bytes → syntax tree → raw entries → checked
//! [`ToolMetadata`], every problem a [`Diagnostic`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::ToolMetadata;
use super::check::Checker;
use super::read::Reader;
use super::report::Report;
use super::tree::{self, Syntax, Value};
#[cfg(feature = "yaml")]
use super::yaml;
use super::{json, toml};
use crate::diagnostic::{Diagnostic, Diagnostics, Rule, Severity, SourceFile, Span};

/// The syntax of a metadata file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// TOML 1.1 (`.toml`).
    Toml,
    /// JSON (`.json`).
    Json,
    /// YAML 1.2 (`.yaml`, `.yml`), with the `yaml` feature.
    #[cfg(feature = "yaml")]
    Yaml,
}

impl Format {
    /// The format of a file by its extension, which must be lower case (`.toml`,
    /// `.json`, and with the `yaml` feature `.yaml` and `.yml`); `None` for
    /// anything else.
    pub fn from_path(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()? {
            "toml" => Some(Format::Toml),
            "json" => Some(Format::Json),
            #[cfg(feature = "yaml")]
            "yaml" | "yml" => Some(Format::Yaml),
            _ => None,
        }
    }
}

/// A tool that loaded, with the warnings it gave (unknown keys, when they are
/// warnings).
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// The checked tool.
    pub tool: ToolMetadata,
    /// Diagnostics of severity [`Severity::Warning`].
    pub warnings: Diagnostics,
}

/// Loads metadata files with options. [`ToolMetadata::from_file`] and friends use
/// the defaults.
#[derive(Debug, Clone, Copy, Default)]
pub struct Loader {
    unknown_keys: Severity,
}

impl Loader {
    /// A loader with the default options: unknown keys are errors.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether an unknown key is an error (the default) or a warning.
    pub fn unknown_keys(mut self, severity: Severity) -> Self {
        self.unknown_keys = severity;
        self
    }

    /// Reads and loads one file; the tool name is its stem, the format its
    /// extension (`.json` is JSON, `.yaml` and `.yml` YAML, anything else
    /// TOML). Without the `yaml` feature a YAML file is an error naming it.
    pub fn load_file(&self, path: &Path) -> Result<Loaded, Diagnostics> {
        let shown = path.display().to_string();
        #[cfg(not(feature = "yaml"))]
        if is_yaml(path) {
            return Err(Diagnostics::new(vec![
                Diagnostic::error(
                    Rule::Decode,
                    Arc::new(SourceFile::new(shown, "")),
                    "a YAML tool file, and YAML is not enabled",
                )
                .with_help(YAML_FEATURE_HELP),
            ]));
        }
        let format = Format::from_path(path).unwrap_or(Format::Toml);
        let name = tool_name(path);
        match std::fs::read(path) {
            Ok(bytes) => self.load_bytes(&shown, &name, format, &bytes),
            Err(e) => Err(Diagnostics::new(vec![Diagnostic::error(
                Rule::Decode,
                Arc::new(SourceFile::new(shown, "")),
                format!("cannot read the file: {e}"),
            )])),
        }
    }

    /// Loads one tool from the bytes of a file shown as `path` in diagnostics.
    pub fn load_bytes(
        &self,
        path: &str,
        tool_name: &str,
        format: Format,
        bytes: &[u8],
    ) -> Result<Loaded, Diagnostics> {
        let file = Arc::new(SourceFile::new(path, String::from_utf8_lossy(bytes)));
        let syntax = match format {
            Format::Toml => Syntax::Toml,
            Format::Json => Syntax::Json,
            #[cfg(feature = "yaml")]
            Format::Yaml => Syntax::Yaml,
        };
        let mut report = Report::new(file, syntax);
        Checker {
            report: &mut report,
        }
        .check_tool_name(tool_name);
        let tool = parse_document(&mut report, bytes).map(|entries| {
            let raw = Reader {
                report: &mut report,
                unknown_keys: self.unknown_keys,
            }
            .tool(&entries);
            Checker {
                report: &mut report,
            }
            .check(tool_name, raw)
        });
        let (errors, warnings): (Vec<_>, Vec<_>) = report
            .into_diagnostics()
            .into_iter()
            .partition(|d| d.severity() == Severity::Error);
        match tool {
            Some(tool) if errors.is_empty() => Ok(Loaded {
                tool,
                warnings: Diagnostics::new(warnings),
            }),
            _ => Err(Diagnostics::new(
                errors.into_iter().chain(warnings).collect(),
            )),
        }
    }
}

/// How to read YAML files: what a diagnostic or warning about one says when
/// the feature is off.
pub const YAML_FEATURE_HELP: &str = "enable the `yaml` feature of toolmetadata-build (or of toolmetadata, for the loader): features = [\"yaml\"]";

/// Whether a path ends in `.yaml` or `.yml`, in any case.
pub fn is_yaml(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"))
}

/// The tool name a path gives: its file name without the last extension.
pub fn tool_name(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// UTF-8, byte-order mark, syntax, top-level table: the entries of the top level,
/// or `None` after reporting why not.
fn parse_document(report: &mut Report, bytes: &[u8]) -> Option<Vec<tree::Entry>> {
    let language = match report.syntax {
        Syntax::Toml => "TOML",
        Syntax::Json => "JSON",
        #[cfg(feature = "yaml")]
        Syntax::Yaml => "YAML",
    };
    let decode_error = |report: &mut Report, message: String, span: Span, label: &str| {
        report.push(
            report
                .error(Rule::Decode, format!("invalid {language}: {message}"))
                .with_primary(span, label),
        );
    };
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let at = e.valid_up_to();
            let byte = bytes.get(at).copied().unwrap_or(0);
            decode_error(
                report,
                format!("invalid UTF-8 byte 0x{byte:02x}"),
                Span::new(at, at + 1),
                "not UTF-8",
            );
            return None;
        }
    };
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let parsed = match report.syntax {
        Syntax::Toml => toml::parse(&text[start..]).map(|mut node| {
            shift(&mut node, start);
            node
        }),
        Syntax::Json => json::parse(text, start),
        #[cfg(feature = "yaml")]
        Syntax::Yaml => yaml::parse(&text[start..]).map(|mut node| {
            shift(&mut node, start);
            node
        }),
    };
    let node = match parsed {
        Ok(node) => node,
        Err(e) => {
            // JSON's spans are into the whole text; the others' into the
            // text after the byte-order mark.
            let span = if report.syntax == Syntax::Json {
                e.span
            } else {
                e.span.shifted(start)
            };
            decode_error(report, e.message, span, "here");
            return None;
        }
    };
    match node.value {
        Value::Table(entries) => Some(entries),
        other => {
            let found = other.describe(report.syntax);
            let what = match report.syntax {
                Syntax::Toml => "a table",
                Syntax::Json => "an object",
                #[cfg(feature = "yaml")]
                Syntax::Yaml => "a mapping",
            };
            decode_error(
                report,
                format!("the top level must be {what}, found {found}"),
                node.span,
                "not an object",
            );
            None
        }
    }
}

/// Moves every span of a tree parsed from `text[by..]` to offsets into `text`.
fn shift(node: &mut tree::Node, by: usize) {
    if by == 0 {
        return;
    }
    node.span = node.span.shifted(by);
    match &mut node.value {
        Value::Array(items) => items.iter_mut().for_each(|n| shift(n, by)),
        Value::Table(entries) => {
            for e in entries {
                e.key_span = e.key_span.shifted(by);
                shift(&mut e.node, by);
            }
        }
        _ => {}
    }
}

/// Loading one tool with the default options, as methods of
/// [`ToolMetadata`]: `ToolMetadata::from_toml_str(…)` once this trait is in
/// scope. (They were inherent methods while the loader was a feature of
/// toolmetadata-core; a trait lets the loader be a crate of its own.)
pub trait Load: Sized {
    /// Loads a tool from a `.toml` or `.json` file with the default options.
    fn from_file(path: impl AsRef<Path>) -> Result<Self, Diagnostics>;

    /// Loads the tool `name` from TOML text (diagnostics show it as `name.toml`).
    ///
    /// ```
    /// use toolmetadata_load::metadata::{Load, ToolMetadata};
    ///
    /// let tool = ToolMetadata::from_toml_str("get_user", r#"
    /// description = "Look up a user"
    /// readOnly = true
    ///
    /// [[parameters]]
    /// name = "id"
    /// type = "string"
    /// required = true
    /// "#)?;
    /// assert_eq!(
    ///     tool.to_tools_list_json(),
    ///     r#"{"name":"get_user","description":"Look up a user","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false},"annotations":{"readOnlyHint":true}}"#
    /// );
    ///
    /// let err = ToolMetadata::from_toml_str("get_user", "[[parameters]]\nname = \"id\"\ntype = \"strin\"\n")
    ///     .unwrap_err();
    /// assert!(err.to_string().contains("did you mean `string`?"));
    /// # Ok::<(), toolmetadata_load::Diagnostics>(())
    /// ```
    fn from_toml_str(name: &str, text: &str) -> Result<Self, Diagnostics>;

    /// Loads the tool `name` from JSON text (diagnostics show it as `name.json`).
    fn from_json_str(name: &str, text: &str) -> Result<Self, Diagnostics>;

    /// Loads the tool `name` from YAML text (diagnostics show it as `name.yaml`).
    #[cfg(feature = "yaml")]
    fn from_yaml_str(name: &str, text: &str) -> Result<Self, Diagnostics>;
}

impl Load for ToolMetadata {
    fn from_file(path: impl AsRef<Path>) -> Result<Self, Diagnostics> {
        Loader::new().load_file(path.as_ref()).map(|l| l.tool)
    }

    fn from_toml_str(name: &str, text: &str) -> Result<Self, Diagnostics> {
        Loader::new()
            .load_bytes(&format!("{name}.toml"), name, Format::Toml, text.as_bytes())
            .map(|l| l.tool)
    }

    fn from_json_str(name: &str, text: &str) -> Result<Self, Diagnostics> {
        Loader::new()
            .load_bytes(&format!("{name}.json"), name, Format::Json, text.as_bytes())
            .map(|l| l.tool)
    }

    #[cfg(feature = "yaml")]
    fn from_yaml_str(name: &str, text: &str) -> Result<Self, Diagnostics> {
        Loader::new()
            .load_bytes(&format!("{name}.yaml"), name, Format::Yaml, text.as_bytes())
            .map(|l| l.tool)
    }
}

/// The metadata files of a directory.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolFiles {
    /// `.toml` and `.json` files (and `.yaml`, `.yml` with the `yaml`
    /// feature), sorted by path.
    pub files: Vec<PathBuf>,
    /// Files whose extension is a case variant (`.TOML`, `.Json`), or YAML
    /// files without the `yaml` feature, which are not loaded: worth a
    /// warning, since they look like tool files.
    pub ignored: Vec<PathBuf>,
    /// Files in subdirectories that look like tool files (by their
    /// extension, in any case), sorted by path: they are not loaded, since a
    /// directory's tools are the files directly in it, which is worth a
    /// warning too. Hidden directories and symbolic links are not entered,
    /// and the search stops after [`NESTED_SEARCH_ENTRIES`] entries.
    pub nested: Vec<PathBuf>,
}

/// How many entries of its subdirectories [`tool_files`] looks at, at most,
/// for [`ToolFiles::nested`]: a directory of tools that also holds a large
/// tree costs a bounded look.
pub const NESTED_SEARCH_ENTRIES: usize = 4096;

/// The tool files directly in `dir` (not in subdirectories), sorted by path,
/// and the files that look like tool files but are not loaded.
pub fn tool_files(dir: &Path) -> std::io::Result<ToolFiles> {
    let mut found = ToolFiles::default();
    let mut subdirectories = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if !path.is_file() {
            // `file_type` does not follow a link: a linked directory is not
            // searched, so a link cannot lead the search out of the tree.
            if entry.file_type().is_ok_and(|t| t.is_dir()) && !is_hidden(&path) {
                subdirectories.push(path);
            }
            continue;
        }
        if Format::from_path(&path).is_some() {
            found.files.push(path);
        } else if looks_like_tool_file(&path) {
            found.ignored.push(path);
        }
    }
    found.nested = nested_tool_files(subdirectories);
    found.files.sort();
    found.ignored.sort();
    found.nested.sort();
    Ok(found)
}

/// Whether `path` ends in a tool file's extension, in any case.
fn looks_like_tool_file(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["toml", "json", "yaml", "yml"]
            .iter()
            .any(|known| e.eq_ignore_ascii_case(known))
    })
}

fn is_hidden(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with('.'))
}

/// The files that look like tool files beneath `subdirectories`, searched
/// breadth first within [`NESTED_SEARCH_ENTRIES`]. A directory that cannot be
/// read is passed over: these files only earn a warning.
fn nested_tool_files(mut pending: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut nested = Vec::new();
    let mut budget = NESTED_SEARCH_ENTRIES;
    pending.sort();
    let mut queue = std::collections::VecDeque::from(pending);
    while let Some(dir) = queue.pop_front() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        // In name order, so that the budget ends at the same place on every
        // machine (what reading a directory costs is bounded by the budget
        // of the whole search, not by this sort).
        let mut entries: Vec<_> = entries.flatten().take(budget.saturating_add(1)).collect();
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for entry in entries {
            if budget == 0 {
                return nested;
            }
            budget -= 1;
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() && !is_hidden(&path) {
                queue.push_back(path);
            } else if kind.is_file() && looks_like_tool_file(&path) {
                nested.push(path);
            }
        }
    }
    nested
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory of its own under the system's temporary one.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tm-tool-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        dir
    }

    #[test]
    fn files_in_subdirectories_are_found_but_not_loaded() {
        let dir = scratch("nested");
        for file in [
            "a.toml",
            "B.TOML",
            "sub/c.toml",
            "sub/deeper/d.JSON",
            "sub/notes.txt",
            ".git/e.json",
        ] {
            let path = dir.join(file);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, "").expect("write");
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.join("sub"), dir.join("linked")).expect("link");
        let found = tool_files(&dir).expect("scanned");
        assert_eq!(found.files, [dir.join("a.toml")]);
        assert_eq!(found.ignored, [dir.join("B.TOML")]);
        // Not the hidden directory's, not through the link.
        assert_eq!(
            found.nested,
            [dir.join("sub/c.toml"), dir.join("sub/deeper/d.JSON")]
        );
        std::fs::remove_dir_all(&dir).expect("cleaned up");
    }

    #[test]
    fn the_search_of_subdirectories_is_bounded() {
        let dir = scratch("bounded");
        let sub = dir.join("many");
        std::fs::create_dir_all(&sub).expect("mkdir");
        for i in 0..NESTED_SEARCH_ENTRIES + 10 {
            std::fs::write(sub.join(format!("{i}.json")), "").expect("write");
        }
        let found = tool_files(&dir).expect("scanned");
        assert_eq!(found.nested.len(), NESTED_SEARCH_ENTRIES);
        std::fs::remove_dir_all(&dir).expect("cleaned up");
    }
}
