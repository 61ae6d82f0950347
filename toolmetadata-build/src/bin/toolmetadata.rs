//! `toolmetadata`: check tool metadata files and print their `tools/list` entries.
//!
//! ```text
//! toolmetadata check tools/                 # diagnostics like rustc; exit 1 on errors
//! toolmetadata list tools/ --format json-lines
//! ```

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use toolmetadata_build::{Builder, Severity, json_lines_record};

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
    /// Check files (or the tool files of directories); exit status 1 if any has an error.
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
    let (paths, format) = match &cli.command {
        Command::Check { paths } => (paths, None),
        Command::List { paths, format } => (paths, Some(*format)),
    };
    // The checks `cargo build` runs, across every file given: a file that
    // checks alone but clashes with another fails here as in the build.
    let mut builder =
        Builder::new()
            .emit_cargo_directives(false)
            .unknown_keys(if cli.allow_unknown_keys {
                Severity::Warning
            } else {
                Severity::Error
            });
    for path in paths {
        builder = if path.is_dir() {
            builder.dir(path)
        } else if path.exists() {
            builder.file(path)
        } else {
            eprintln!("error: {}: no such file or directory", path.display());
            return ExitCode::from(2);
        };
    }
    let checked = match builder.check() {
        Ok(checked) => checked,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    for warning in checked.ignored_warnings() {
        warn(&warning, color);
    }
    let mut stdout = std::io::stdout().lock();
    match format {
        None => {}
        Some(Format::Pretty) => {
            let entries: Vec<_> = checked
                .files()
                .iter()
                .filter(|f| checked.errors_of(f).is_empty())
                .filter_map(|f| checked.tool(f))
                .map(|t| t.to_tools_list_entry())
                .collect();
            let text = serde_json::to_string_pretty(&entries).unwrap_or_default();
            if writeln!(stdout, "{text}").is_err() {
                return ExitCode::from(2);
            }
        }
        Some(Format::JsonLines) => {
            for file in checked.files() {
                let errors = checked.errors_of(file);
                let outcome = match checked.tool(file) {
                    Some(tool) if errors.is_empty() => Ok(tool),
                    _ => Err(errors),
                };
                let record = json_lines_record(&file.display().to_string(), outcome);
                if writeln!(stdout, "{record}").is_err() {
                    return ExitCode::from(2);
                }
            }
        }
    }
    // One report for all files, rendered as a build script's error renders it.
    if format != Some(Format::JsonLines) && !checked.diagnostics().is_empty() {
        eprint!("{}", checked.diagnostics().render(color));
    }
    let files = checked.files().len();
    if format.is_none() && !checked.has_errors() {
        let plural = if files == 1 { "" } else { "s" };
        eprintln!("checked {files} tool file{plural}: no errors");
    }
    if checked.has_errors() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn warn(warning: &str, color: bool) {
    let prefix = if color {
        "\x1b[1;33mwarning\x1b[0m"
    } else {
        "warning"
    };
    eprintln!("{prefix}: {warning}");
}
