//! Tells the build script of each crate that depends on toolmetadata which
//! of its features are on: Cargo passes what this prints to them as
//! `DEP_TOOLMETADATA_FEATURES` (the package is `links = "toolmetadata"`), and
//! toolmetadata-build fails a build whose tools need a feature that is off at
//! the line that needs it, naming the feature.

fn main() {
    let mut on: Vec<String> = std::env::vars()
        .filter_map(|(name, _)| {
            name.strip_prefix("CARGO_FEATURE_")
                .map(|feature| feature.to_ascii_lowercase().replace('_', "-"))
        })
        .collect();
    on.sort();
    println!("cargo::metadata=features={}", on.join(","));
    println!("cargo::rerun-if-changed=build.rs");
}
