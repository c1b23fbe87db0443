//! Pi (`@mariozechner/pi-coding-agent`): the state behind the Pi extension's control methods
//! (one trajectory shared by the coordinator and its child `pi` processes, identity words,
//! aliases and delegations).

pub mod hooks;
pub mod map;
pub mod rpc;
mod session;

pub use session::{AgentDef, Delegation, Pi, PiSession};
