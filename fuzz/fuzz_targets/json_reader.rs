//! Fuzz target `json_reader`: see `toolmetadata_fuzz::json_reader`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolmetadata_fuzz::json_reader(data));
