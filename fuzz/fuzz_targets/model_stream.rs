//! libFuzzer target `model_stream`: see `blindfold_integration_tests::fuzz::model_stream`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| blindfold_integration_tests::fuzz::model_stream(data));
