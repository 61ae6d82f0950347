//! `toolmetadata`: check tool metadata files and print their `tools/list`
//! entries, and keep their catalog lock.
//!
//! ```text
//! toolmetadata check tools/                 # diagnostics like rustc (the quality check's as warnings); exit 1 on errors
//! toolmetadata check --quality tools/       # and the token counts against their limits
//! toolmetadata list tools/ --format json-lines
//! toolmetadata lock tools/                  # check tools/tools.lock as the build does
//! toolmetadata lock --update tools/         # accept every change as it is
//! toolmetadata diff old/tools new/tools     # each change, classified
//! toolmetadata manifest tools/ --out dist/  # server.json, manifest.json, server-card.json
//! ```

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod catalog;
mod quality;

use catalog::FailOn;
use clap::{Parser, Subcommand, ValueEnum};
use toolmetadata_build::{Builder, Profile, Severity, json_lines_record};

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
        /// Also check against a provider profile (repeatable): openai-strict,
        /// openai, anthropic, anthropic-strict, gemini, gemini-json, mcp-hosts.
        /// Its findings are errors.
        #[arg(long = "profile", value_name = "NAME", value_parser = parse_profile)]
        profiles: Vec<Profile>,
        /// The server's name, for the hosts' prefixed tool names (mcp-hosts).
        #[arg(long, value_name = "NAME")]
        server_name: Option<String>,
        /// Also count what each tool's tools/list entry and the whole list
        /// cost in tokens, against limits. (The quality check's findings,
        /// as warnings, come with or without it, as in cargo build.)
        #[arg(long)]
        quality: bool,
        /// With --quality: at most this many tokens (o200k_base) for one
        /// tool's tools/list entry; past it the exit status is 1.
        #[arg(long, value_name = "N", default_value_t = toolmetadata_build::tokens::Budget::default().per_tool)]
        max_tool_tokens: usize,
        /// With --quality: at most this many tokens for the whole tools/list
        /// result; past it the exit status is 1.
        #[arg(long, value_name = "N", default_value_t = toolmetadata_build::tokens::Budget::default().catalog)]
        max_catalog_tokens: usize,
        /// `json`: one JSON report on stdout (each finding with its rule,
        /// file, line and column; with --quality the token counts), for CI.
        #[arg(long, value_enum)]
        format: Option<CheckFormat>,
    },
    /// Print the tools' definitions as a provider's request takes them (its
    /// `tools`), exported for the profile; mapped names are said on stderr.
    Export {
        /// The directory of tool files.
        dir: PathBuf,
        /// The provider profile.
        #[arg(long, value_name = "NAME", value_parser = parse_profile)]
        profile: Profile,
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
    /// Check a directory's tools against its catalog lock, as the build does
    /// (writing the lock when every change was bumped enough); exit status 1
    /// on a change without its bump.
    Lock {
        /// The directory of tool files.
        dir: PathBuf,
        /// The lock file (default: DIR/tools.lock).
        #[arg(long, value_name = "FILE")]
        lock: Option<PathBuf>,
        /// Write the lock from the tools as they are, accepting every change.
        #[arg(long, conflicts_with = "locked")]
        update: bool,
        /// Never write the lock: any difference fails (for CI).
        #[arg(long)]
        locked: bool,
    },
    /// Print what changed from one catalog to another (directories of tool
    /// files, lock files, or `REV:DIR` for a directory at a git revision),
    /// each change classified as breaking, compatible or wording; exit
    /// status 1 when a change is at least `--fail-on`.
    Diff {
        /// The catalog before.
        old: PathBuf,
        /// The catalog after.
        new: PathBuf,
        /// The class of change that makes the exit status 1.
        #[arg(long, value_enum)]
        fail_on: Option<FailOn>,
    },
    /// Write the server's manifests from the package's `[package.metadata.mcp]`
    /// and the tools, as the build's `Builder::manifests` does: `server.json`
    /// (the MCP registry), `manifest.json` (an MCP bundle) and
    /// `server-card.json`, into `--out`.
    Manifest {
        /// The directory of tool files.
        dir: PathBuf,
        /// The package's manifest.
        #[arg(long, value_name = "FILE", default_value = "Cargo.toml")]
        cargo_toml: PathBuf,
        /// Where to write the three files.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// The OS the bundled binary is built for, as Rust names it (linux,
        /// macos, windows); default this machine's.
        #[arg(long, value_name = "OS")]
        target_os: Option<String>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CheckFormat {
    /// {"findings": [{"rule","severity","file","line","column","message","help"}], "tokens": {…}}.
    Json,
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
        Command::Check { paths, .. } => (paths, None),
        Command::Export { dir, profile } => return export_command(dir, *profile, &cli, color),
        Command::List { paths, format } => (paths, Some(*format)),
        Command::Lock {
            dir,
            lock,
            update,
            locked,
        } => {
            let lock = lock.clone().unwrap_or_else(|| dir.join("tools.lock"));
            return catalog::lock_command(dir, &lock, *update, *locked, &builder(&cli), color);
        }
        Command::Diff { old, new, fail_on } => {
            return catalog::diff_command(old, new, *fail_on, &builder(&cli));
        }
        Command::Manifest {
            dir,
            cargo_toml,
            out,
            target_os,
        } => return manifest_command(dir, cargo_toml, out, target_os.as_deref(), &cli, color),
    };
    // The checks `cargo build` runs, across every file given: a file that
    // checks alone but clashes with another fails here as in the build.
    let mut builder = builder(&cli);
    if let Command::Check {
        profiles,
        server_name,
        ..
    } = &cli.command
    {
        builder = builder
            .profiles(profiles.iter().copied())
            .profile_severity(Severity::Error);
        if let Some(name) = server_name {
            builder = builder.server_name(name);
        }
    }
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
    if let Command::Check {
        format: Some(CheckFormat::Json),
        quality,
        max_tool_tokens,
        max_catalog_tokens,
        ..
    } = &cli.command
    {
        let budget = toolmetadata_build::tokens::Budget {
            per_tool: *max_tool_tokens,
            catalog: *max_catalog_tokens,
        };
        let (report, over) = quality::json_report(&checked, quality.then_some(budget));
        if writeln!(stdout, "{report}").is_err() {
            return ExitCode::from(2);
        }
        return if checked.has_errors() || over {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        };
    }
    // One report for all files, rendered as a build script's error renders it.
    if format != Some(Format::JsonLines) && !checked.diagnostics().is_empty() {
        eprint!("{}", checked.diagnostics().render(color));
    }
    let over_budget = match &cli.command {
        Command::Check {
            quality: true,
            max_tool_tokens,
            max_catalog_tokens,
            ..
        } => quality::token_report(
            &checked,
            toolmetadata_build::tokens::Budget {
                per_tool: *max_tool_tokens,
                catalog: *max_catalog_tokens,
            },
        ),
        _ => false,
    };
    let files = checked.files().len();
    if over_budget {
        return ExitCode::FAILURE;
    }
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

/// A builder with the CLI's options, outside a build script.
fn builder(cli: &Cli) -> Builder {
    Builder::new()
        .emit_cargo_directives(false)
        .unknown_keys(if cli.allow_unknown_keys {
            Severity::Warning
        } else {
            Severity::Error
        })
}

/// The builder of the tool files of `dir`, with the CLI's options.
fn builder_of(dir: &Path, cli: &Cli) -> Builder {
    builder(cli).dir(dir)
}

fn warn(warning: &str, color: bool) {
    let prefix = if color {
        "\x1b[1;33mwarning\x1b[0m"
    } else {
        "warning"
    };
    eprintln!("{prefix}: {warning}");
}

/// `toolmetadata manifest`: the three manifests into `out`.
fn manifest_command(
    dir: &Path,
    cargo_toml: &Path,
    out: &Path,
    target_os: Option<&str>,
    cli: &Cli,
    color: bool,
) -> ExitCode {
    use toolmetadata_build::manifest::{Manifests, Package};
    let checked = match checked_tools(dir, cli, color) {
        Ok(checked) => checked,
        Err(code) => return code,
    };
    let mut package = match Package::from_cargo_metadata(cargo_toml) {
        Ok(package) => package,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(os) = target_os {
        package.target_os = os.to_owned();
    }
    let text = match std::fs::read_to_string(cargo_toml) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", cargo_toml.display());
            return ExitCode::from(2);
        }
    };
    let files: Vec<&Path> = checked.files().iter().map(PathBuf::as_path).collect();
    let tools = files.iter().filter_map(|f| checked.tool(f));
    let manifests = match Manifests::new(&package, cargo_toml, &text, tools) {
        Ok(manifests) => manifests,
        Err(problems) => {
            eprintln!("{}", problems.render(color));
            return ExitCode::from(1);
        }
    };
    let written = std::fs::create_dir_all(out).and_then(|()| {
        for (name, value) in [
            ("server.json", &manifests.server_json),
            ("manifest.json", &manifests.bundle),
            ("server-card.json", &manifests.server_card),
        ] {
            let text = serde_json::to_string_pretty(value).unwrap_or_default();
            std::fs::write(out.join(name), text + "\n")?;
        }
        Ok(())
    });
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write into {}: {e}", out.display());
            ExitCode::from(2)
        }
    }
}

/// A profile by its name, for clap.
fn parse_profile(name: &str) -> Result<Profile, String> {
    Profile::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Profile::ALL.iter().map(|p| p.name()).collect();
        format!("no profile `{name}`; the profiles are {}", names.join(", "))
    })
}

/// `toolmetadata export`: the definitions, as `profile`'s request takes them.
fn export_command(dir: &Path, profile: Profile, cli: &Cli, color: bool) -> ExitCode {
    let checked = match checked_tools(dir, cli, color) {
        Ok(checked) => checked,
        Err(code) => return code,
    };
    let entries: Vec<serde_json::Value> = checked
        .files()
        .iter()
        .filter_map(|f| checked.tool(f))
        .map(|t| t.to_tools_list_entry())
        .collect();
    let exports = profile.export_set(&entries);
    for export in exports.iter().filter(|e| e.name != e.mcp_name) {
        eprintln!(
            "note: `{}` is `{}` for {profile}: map a call of it back to `{}`",
            export.mcp_name, export.name, export.mcp_name
        );
    }
    let text = serde_json::to_string_pretty(&profile.tools(&exports)).unwrap_or_default();
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{text}") {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(2),
    }
}

/// The checked tools of `dir`, their warnings printed; the exit status when
/// they cannot be read or have errors (printed too).
fn checked_tools(
    dir: &Path,
    cli: &Cli,
    color: bool,
) -> Result<toolmetadata_build::Checked, ExitCode> {
    let checked = builder_of(dir, cli).check().map_err(|e| {
        eprintln!("{e}");
        ExitCode::from(2)
    })?;
    for warning in checked.ignored_warnings() {
        warn(&warning, color);
    }
    if checked.has_errors() {
        eprintln!("{}", checked.diagnostics().render(color));
        return Err(ExitCode::from(1));
    }
    Ok(checked)
}
