//! libFuzzer target `strict_json`: see `blindfold_integration_tests::fuzz::strict_json_value`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| blindfold_integration_tests::fuzz::strict_json_value(data));
