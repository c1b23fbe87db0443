//! libFuzzer target `pi_rpc_line`: see `blindfold_integration_tests::fuzz::pi_rpc_line`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| blindfold_integration_tests::fuzz::pi_rpc_line(data));
