//! Fuzz target `yaml_loader`: see `toolmetadata_fuzz::yaml_loader`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolmetadata_fuzz::yaml_loader(data));
