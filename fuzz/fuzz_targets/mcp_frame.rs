//! libFuzzer target `mcp_frame`: see `blindfold_integration_tests::fuzz::mcp_frame`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| blindfold_integration_tests::fuzz::mcp_frame(data));
