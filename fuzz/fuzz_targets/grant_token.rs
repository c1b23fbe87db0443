//! libFuzzer target `grant_token`: see `blindfold_integration_tests::fuzz::grant_token`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| blindfold_integration_tests::fuzz::grant_token(data));
