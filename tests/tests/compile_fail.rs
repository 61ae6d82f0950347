//! What rustc must catch once tools come from metadata: each case's `.stderr`
//! points at the user's code.

#[test]
fn rustc_catches_handler_mistakes() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/*.rs");
}
