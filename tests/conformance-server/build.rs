//! The suite's test tools, compiled from `tools/` as any server's are.

fn main() -> Result<(), toolmetadata_build::Error> {
    toolmetadata_build::compile("tools")
}
