//! libFuzzer target `sse_stream`: see `blindfold_integration_tests::fuzz::sse_stream`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| blindfold_integration_tests::fuzz::sse_stream(data));
