//! Identity rewriting of MCP messages toward the client (`serverInfo`, `instructions`,
//! `_meta` keys), delegated to the engine's anonymizer.

use crate::app::App;
use serde_json::Value;

/// Rewrites identity surfaces of a server response to `method`; true when anything changed.
pub fn rewrite_server_response(_app: &App, _method: &str, _frame: &mut Value) -> bool {
    false
}
