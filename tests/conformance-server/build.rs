//! The suite's test tools, compiled from `tools/` as any server's are.

fn main() -> Result<(), toolmetadata_build::Error> {
    toolmetadata_build::Builder::new()
        .dir("tools")
        // Tools that exercise the code, not tools a model chooses among:
        // the quality check's findings would only be noise here.
        .quality(None)
        .compile()
}
