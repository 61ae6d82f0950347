//! Fuzz target `toml_loader`: see `toolmetadata_fuzz::toml_loader`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolmetadata_fuzz::toml_loader(data));
