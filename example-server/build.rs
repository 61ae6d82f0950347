//! The server's tools come from the metadata files in `../tools`.

fn main() -> Result<(), toolmetadata_build::Error> {
    toolmetadata_build::compile("../tools")
}
