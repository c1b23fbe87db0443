//! libFuzzer target `a2a_frame`: see `blindfold_integration_tests::fuzz::a2a_frame`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| blindfold_integration_tests::fuzz::a2a_frame(data));
