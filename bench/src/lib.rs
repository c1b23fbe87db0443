//! Blindfold's benchmark kit: the peers (a fast MCP stdio server, a fast A2A/model-API
//! upstream), the floors (a byte relay, an HTTP relay), an open-loop HTTP load generator and the
//! runner that measures every workload direct, through the floor and through Blindfold.

#![forbid(unsafe_code)]

pub mod arms;
pub mod control;
pub mod fleet;
pub mod gate;
pub mod http;
pub mod loadgen;
pub mod mcp;
pub mod proc;
pub mod stats;
pub mod wire;
