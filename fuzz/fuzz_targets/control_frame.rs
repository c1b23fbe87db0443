//! libFuzzer target `control_frame`: see `blindfold_integration_tests::fuzz::control_frame`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| blindfold_integration_tests::fuzz::control_frame(data));
