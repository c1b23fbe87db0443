//! The transport tier: the listeners and their limits, and the MCP, A2A, model-API and
//! WebSocket relays that turn wire frames into events for the runtime and answers back.
pub mod a2a;
pub mod hygiene;
pub mod limits;
pub mod mcp;
pub mod model_proxy;
pub mod proxy;
pub mod server;
pub mod slots;
pub mod ws_relay;
