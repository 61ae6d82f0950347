//! Fuzz target `check`: see `toolmetadata_fuzz::check`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolmetadata_fuzz::check(data));
