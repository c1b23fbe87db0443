//! The sans-IO decision core of Blindfold: grants, identity, evidence and the check cascade.
//!
//! Nothing here opens a socket, reads a clock or touches a file: time is passed in, stores are
//! traits, and every function returns a decision the caller acts on.
#![forbid(unsafe_code)]

pub mod authority;
pub mod canonical;
pub mod engine;
pub mod grants;
pub mod identity;
pub mod registry;

pub use engine::{Engine, EngineConfig, Step, StepContext, Trajectory};
pub use registry::{DerivedAction, Registry};
