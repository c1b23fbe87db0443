//! Sans-IO codecs between wire frames (JSON-RPC, MCP both eras, A2A v1.0 and v0.3) and
//! Blindfold's canonical events, plus the protocol-native refusals transports send back.
#![forbid(unsafe_code)]

pub mod a2a;
pub mod jsonrpc;
pub mod line_diff;
pub mod mcp;
pub mod model_api;
pub mod refusal;
pub mod sse;
