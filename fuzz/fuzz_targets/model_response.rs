//! libFuzzer target `model_response`: see `blindfold_integration_tests::fuzz::model_response`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| blindfold_integration_tests::fuzz::model_response(data));
