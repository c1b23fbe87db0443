//! libFuzzer target `agent_card`: see `blindfold_integration_tests::fuzz::agent_card`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| blindfold_integration_tests::fuzz::agent_card(data));
