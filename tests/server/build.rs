//! The test server's tools.

fn main() -> Result<(), toolmetadata_build::Error> {
    toolmetadata_build::compile("tools")
}
