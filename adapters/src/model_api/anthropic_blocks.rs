//! What each content block of an Anthropic message is to the gate: `tool_use` is the one block a
//! client executes (Anthropic's client tools, `bash`, `str_replace_based_edit_tool`, `computer`,
//! `memory`, come as `tool_use` too) and is read as its tool and input; the blocks of the model's
//! text and thinking and of the tools Anthropic runs itself pass; any other block is unreadable,
//! and so a denial.

use super::calls::{ProposedCall, UnreadableItem};
use super::response_items::ItemRole;
use serde_json::Value;

/// The block a client executes.
pub(crate) const TOOL_USE: &str = "tool_use";

/// Blocks that make the client execute nothing: text and thinking, the calls and results of the
/// tools Anthropic runs on its side (server tools, the MCP connector, code execution), a file the
/// container made, and the markers of compaction and model fallback.
const PASSING_BLOCKS: &[&str] = &[
    "text",
    "thinking",
    "redacted_thinking",
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "bash_code_execution_tool_result",
    "text_editor_code_execution_tool_result",
    "tool_search_tool_result",
    "advisor_tool_result",
    "mcp_tool_use",
    "mcp_tool_result",
    "mcp_tool_listing",
    "container_upload",
    "compaction",
    "fallback",
];

/// The type of a block (empty when it has none).
pub(crate) fn block_kind(block: &Value) -> &str {
    block.get("type").and_then(Value::as_str).unwrap_or_default()
}

/// What a whole block is to the gate: a `tool_use` block is the call of its tool with its `input`
/// (absent is `{}`).
pub(crate) fn block_role(block: &Value) -> ItemRole {
    let kind = block_kind(block);
    if passes(kind) {
        return ItemRole::Passes;
    }
    if kind != TOOL_USE {
        return ItemRole::Unreadable(unknown_block(kind));
    }
    match tool_use_head(block) {
        Ok((id, name)) => {
            let arguments = block.get("input").map_or_else(|| "{}".to_owned(), Value::to_string);
            ItemRole::Call(ProposedCall { id, name, arguments })
        }
        Err(unreadable) => ItemRole::Unreadable(unreadable),
    }
}

/// The id and tool name of a `tool_use` block; it is unreadable when it names no tool.
pub(crate) fn tool_use_head(block: &Value) -> Result<(String, String), UnreadableItem> {
    let text = |k: &str| block.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
    let name = text("name");
    if name.is_empty() {
        return Err(UnreadableItem { kind: TOOL_USE.into(), detail: "the block names no tool".into() });
    }
    Ok((text("id"), name))
}

/// The denial of a block of a type Blindfold does not know (`content_block` when it names none).
pub(crate) fn unknown_block(kind: &str) -> UnreadableItem {
    let kind = if kind.is_empty() { "content_block" } else { kind };
    UnreadableItem { kind: kind.to_owned(), detail: "Blindfold does not know this content block type".into() }
}

/// True when blocks of type `kind` make the client execute nothing.
pub(crate) fn passes(kind: &str) -> bool {
    PASSING_BLOCKS.contains(&kind)
}
