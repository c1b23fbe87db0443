//! MCP relays (stdio and Streamable HTTP) around one per-connection gate.

mod connection;
mod grant_files;
pub mod http;
pub mod identity;
mod pin_watch;
pub mod pins;
mod remote;
mod roots;
mod session_order;
pub mod stdio;
mod stream_ids;

pub use connection::{FromClient, FromServer, McpConnection, McpPolicy, Observation};
pub use grant_files::GrantFiles;
pub use remote::RemoteControl;
