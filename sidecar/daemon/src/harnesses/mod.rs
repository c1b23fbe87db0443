//! The harness tier: what Blindfold knows of OpenCode, Pi and OpenClaw (their frames, sessions,
//! permission flows and set-up), on top of the transports and the runtime.
pub mod openclaw;
pub mod opencode;
pub mod pi;
