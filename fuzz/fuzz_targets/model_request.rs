//! libFuzzer target `model_request`: see `blindfold_integration_tests::fuzz::model_request`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| blindfold_integration_tests::fuzz::model_request(data));
