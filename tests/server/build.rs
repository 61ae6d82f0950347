//! The test server's tools.

fn main() -> Result<(), toolmetadata_build::Error> {
    toolmetadata_build::Builder::new()
        .dir("tools")
        // Tools that exercise the code, not tools a model chooses among:
        // the quality check's findings would only be noise here.
        .quality(None)
        .compile()
}
