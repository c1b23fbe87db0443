//! libFuzzer target `scenario`: see `blindfold_integration_tests::fuzz::scenario`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| blindfold_integration_tests::fuzz::scenario(data));
