//! Fuzz target `decode_args`: see `toolmetadata_fuzz::decode_args`.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolmetadata_fuzz::decode_args(data));
