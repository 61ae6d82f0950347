//! Helpers shared by the cross-crate tests: the conformance corpus and its
//! expectations, the command-line tool built by cargo, peers and clients,
//! stores and balancers of a test's own.

pub mod cargo_project;
pub mod cli;
pub mod conformance;
pub mod haproxy;
pub mod mcp;
pub mod official_suite;
pub mod otlp;
pub mod python;
pub mod raw;
pub mod sse;
pub mod stores;

/// Whether a test that needs programs the machine may lack can run:
/// `missing` names those it lacks. Under CI (`CI` set, and not `false`),
/// where `.ci/run` installs them all, a missing one fails the test, so that
/// it can never pass there by not running; elsewhere the test is skipped
/// with one line naming them.
pub fn has_all(test: &str, missing: &[String]) -> bool {
    if missing.is_empty() {
        return true;
    }
    let what = missing.join(", ");
    if std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false") {
        panic!("CI must run {test}, but these are missing: {what}");
    }
    // Straight to the process's stderr, past the test harness's capture,
    // so that the run shows what it did not test.
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "skipped {test}: it needs {what}");
    false
}
