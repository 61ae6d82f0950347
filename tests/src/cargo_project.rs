//! Small crates made on the fly and built with the real `cargo`, sharing one
//! target directory so the dependencies compile once.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A crate in a temporary directory that depends on this workspace's crates by
/// path and generates its tools in `build.rs`.
pub struct Project {
    dir: tempfile::TempDir,
    name: String,
}

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is in the workspace")
        .to_owned()
}

impl Project {
    /// A crate `name` whose `build.rs` has `main_body` as the body of
    /// `fn main() -> Result<(), toolmetadata_build::Error>`.
    pub fn new(name: &str, main_body: &str) -> Self {
        Self::with_features(name, main_body, &[])
    }

    /// [`Project::new`] with features of `toolmetadata-build` turned on.
    pub fn with_features(name: &str, main_body: &str, features: &[&str]) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = workspace();
        let manifest = format!(
            r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
toolmetadata = {{ path = {runtime:?}, default-features = false }}

[build-dependencies]
toolmetadata-build = {{ path = {build:?}, features = {features:?} }}

[workspace]
"#,
            runtime = root.join("runtime").display().to_string(),
            build = root.join("toolmetadata-build").display().to_string(),
        );
        // `{:?}` of a slice of strings is a TOML array of strings.
        let project = Project {
            dir,
            name: name.to_owned(),
        };
        project.write("Cargo.toml", &manifest);
        // The workspace's lock file pins the same versions, so nothing new is
        // resolved or downloaded.
        std::fs::copy(root.join("Cargo.lock"), project.path().join("Cargo.lock"))
            .expect("copy Cargo.lock");
        project.write(
            "build.rs",
            &format!(
                "fn main() -> Result<(), toolmetadata_build::Error> {{\n    {main_body}\n}}\n"
            ),
        );
        project.write(
            "src/lib.rs",
            "#![deny(warnings)]\n//! Generated tools.\n\n/// The tools.\npub mod tools {\n    toolmetadata::include_tools!();\n}\n",
        );
        project
    }

    /// The crate's directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The crate's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Writes a file, creating its directory.
    pub fn write(&self, relative: &str, contents: &str) {
        let path = self.path().join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create dir");
        }
        std::fs::write(path, contents).expect("write file");
    }

    /// Runs `cargo build` with extra arguments in the shared target directory.
    pub fn build(&self, extra: &[&str]) -> Output {
        self.build_with_env(extra, &[])
    }

    /// Runs `cargo build` with extra arguments and environment variables
    /// (the caller's `TOOLMETADATA_LOCKED` is not passed on: a test says
    /// whether its lock is frozen), offline first ([`offline_first`]).
    pub fn build_with_env(&self, extra: &[&str], env: &[(&str, &str)]) -> Output {
        offline_first(|flags| {
            let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
            let mut command = Command::new(cargo);
            command
                .args(flags)
                .arg("build")
                .args(extra)
                .current_dir(self.path())
                .env(
                    "CARGO_TARGET_DIR",
                    workspace().join("target").join("real-cargo"),
                )
                .env_remove("RUSTFLAGS")
                .env_remove("TOOLMETADATA_LOCKED")
                .envs(env.iter().copied())
                .env("CARGO_TERM_COLOR", "never");
            command
        })
    }
}

/// What the cargo command that `command` makes (given the flags to put
/// first) printed, run with `--offline` first: the workspace's own build has
/// downloaded the crates a test's crate uses, and online, a change of the
/// crate's features made cargo read the registry's index again, which once
/// listed fewer versions than the lock pins (the build failed on `cc`).
/// Online only when offline cargo says it lacks something.
pub fn offline_first(command: impl Fn(&[&str]) -> Command) -> Output {
    let run = |flags: &[&str]| command(flags).output().expect("cargo runs");
    let offline = run(&["--offline"]);
    if offline.status.success() || !String::from_utf8_lossy(&offline.stderr).contains("--offline") {
        return offline;
    }
    run(&[])
}

/// The text cargo printed on stderr, with the two spaces cargo indents a build
/// script's output by removed.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .map(|l| l.strip_prefix("  ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}
