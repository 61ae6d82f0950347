//! `toolmetadata`: check tool metadata files and print their `tools/list` entries.
//!
//! ```text
//! toolmetadata check tools/                 # diagnostics like rustc; exit 1 on errors
//! toolmetadata list tools/ --format json-lines
//! ```

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use serde_json::json;
use toolmetadata::metadata::{Loader, tool_files};
use toolmetadata::{Diagnostics, Severity};

#[derive(Parser)]
#[command(
    name = "toolmetadata",
    version,
    about = "Check MCP tool metadata files and show their tools/list entries"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// When to colour diagnostics.
    #[arg(long, global = true, value_enum, default_value_t = Color::Auto)]
    color: Color,
    /// Report unknown keys as warnings instead of errors.
    #[arg(long, global = true)]
    allow_unknown_keys: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Check files (or the .toml/.json files of directories); exit status 1 if any has an error.
    Check {
        /// Files or directories.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Print each file's tools/list entry, or its errors; exit status 1 if any has an error.
    List {
        /// Files or directories.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Pretty)]
        format: Format,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// A JSON array of the entries, indented.
    Pretty,
    /// One JSON object per file: {"file","tool","discoverable","keywords"} or {"file","errors"}.
    JsonLines,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let color = match cli.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    let loader = Loader::new().unknown_keys(if cli.allow_unknown_keys {
        Severity::Warning
    } else {
        Severity::Error
    });
    let (paths, format) = match &cli.command {
        Command::Check { paths } => (paths, None),
        Command::List { paths, format } => (paths, Some(*format)),
    };
    let files = match expand(paths, color) {
        Ok(files) => files,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let mut failed = false;
    let mut entries = Vec::new();
    let mut report = Diagnostics::default();
    let mut stdout = std::io::stdout().lock();
    for (shown, path) in &files {
        let result = loader.load_file(path);
        let (Err(d) | Ok(toolmetadata::metadata::Loaded { warnings: d, .. })) = &result;
        report.extend(d.clone());
        failed |= result.is_err();
        match format {
            None => {}
            Some(Format::Pretty) => {
                if let Ok(loaded) = result {
                    entries.push(loaded.tool.to_tools_list_entry());
                }
            }
            Some(Format::JsonLines) => {
                let record = match result {
                    Ok(loaded) => json!({
                        "file": shown,
                        "tool": loaded.tool.to_tools_list_entry(),
                        "discoverable": loaded.tool.discoverable,
                        "keywords": loaded.tool.keywords,
                    }),
                    Err(diagnostics) => json!({
                        "file": shown,
                        "errors": diagnostics.iter().filter(|d| d.severity() == Severity::Error).map(|d| {
                            let (line, column) = d.line_column().unzip();
                            json!({"code": d.rule().code(), "message": d.message(), "line": line, "column": column})
                        }).collect::<Vec<_>>(),
                    }),
                };
                if writeln!(stdout, "{record}").is_err() {
                    return ExitCode::from(2);
                }
            }
        }
    }
    // One report for all files, rendered as a build script's error renders it.
    if format != Some(Format::JsonLines) && !report.is_empty() {
        eprint!("{}", report.render(color));
    }
    if format == Some(Format::Pretty) {
        let text = serde_json::to_string_pretty(&entries).unwrap_or_default();
        if writeln!(stdout, "{text}").is_err() {
            return ExitCode::from(2);
        }
    }
    if format.is_none() && !failed {
        let plural = if files.len() == 1 { "" } else { "s" };
        eprintln!("checked {} tool file{plural}: no errors", files.len());
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Files as given, and the tool files of directories in sorted order, each with
/// the path to show for it.
fn expand(paths: &[PathBuf], color: bool) -> Result<Vec<(String, PathBuf)>, String> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let found =
                tool_files(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            for ignored in &found.ignored {
                warn(ignored, color);
            }
            files.extend(
                found
                    .files
                    .into_iter()
                    .map(|f| (f.display().to_string(), f)),
            );
        } else if path.exists() {
            files.push((path.display().to_string(), path.clone()));
        } else {
            return Err(format!("{}: no such file or directory", path.display()));
        }
    }
    Ok(files)
}

fn warn(ignored: &Path, color: bool) {
    let prefix = if color {
        "\x1b[1;33mwarning\x1b[0m"
    } else {
        "warning"
    };
    eprintln!(
        "{prefix}: {} is not loaded: tool files end in lower-case .toml or .json",
        ignored.display()
    );
}
