//! The server's tools come from the metadata files in `../tools`, and every
//! change to them is deliberate: `../tools/tools.lock` records the catalog as
//! last accepted (CI builds with `TOOLMETADATA_LOCKED=1`, so a stale lock
//! fails there). Its manifests (registry entry, bundle, server card) come
//! from `Cargo.toml`'s `[package.metadata.mcp]` and the same tools.

fn main() -> Result<(), toolmetadata_build::Error> {
    toolmetadata_build::Builder::new()
        .dir("../tools")
        .lock("../tools/tools.lock")
        .manifests("Cargo.toml")
        .compile()
}
