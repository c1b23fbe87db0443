//! The sans-IO decision core of Blindfold: grants, identity, evidence and the check cascade.
//!
//! Nothing here opens a socket, reads a clock or touches a file: time is passed in, stores are
//! traits, and every function returns a decision the caller acts on.
#![forbid(unsafe_code)]

pub mod action;
pub mod authority;
mod call;
pub mod canonical;
pub mod cascade;
pub mod config;
pub mod eddsa;
pub mod engine;
pub mod evidence;
pub mod fold;
pub mod grants;
pub mod identity;
pub mod lineage;
mod observe;
pub mod protect;
pub mod registry;
pub mod shell;
pub mod state;
/// Test support (an engine with an ephemeral issuer, grants in one call, event constructors):
/// the crate's own tests, and its integration tests and benchmarks through the `testkit` feature;
/// never in a build of the daemon.
#[cfg(any(test, feature = "testkit"))]
pub mod testkit;
pub mod text;
pub mod verify;

pub use config::{ArgRule, EngineConfig, RuleAction};
pub use engine::{DisputeInfo, Engine, Input, Step, StepContext, Trajectory, enforced};
pub use registry::{DerivedAction, Registry};
pub use text::{Patterns, Target};
