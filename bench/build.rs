//! The decoding benchmark's tool.

fn main() -> Result<(), toolmetadata_build::Error> {
    toolmetadata_build::compile("tools")
}
