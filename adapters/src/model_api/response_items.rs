//! What each output item of an OpenAI response is to the gate: an item that makes the harness
//! execute nothing passes; every call the harness would execute (`function_call`, and the
//! built-in tools' `custom_tool_call`, `local_shell_call`, `shell_call`, `apply_patch_call`,
//! `computer_call`, and `mcp_approval_request`, which asks the harness to let one run) is read as
//! the registry's tool and arguments; any other item is unreadable, and so a denial.

use super::calls::{ProposedCall, UnreadableItem};
use serde_json::{Map, Value, json};

/// Output items that make the harness execute nothing: the model's text and reasoning, tools the
/// provider ran itself, the outputs of calls already run, tool lists and searches.
const PASSING_ITEMS: &[&str] = &[
    "message",
    "reasoning",
    "compaction",
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "mcp_call",
    "mcp_list_tools",
    "mcp_approval_response",
    "tool_search_call",
    "tool_search_output",
    "additional_tools",
    "program",
    "program_output",
    "function_call_output",
    "custom_tool_call_output",
    "computer_call_output",
    "local_shell_call_output",
    "shell_call_output",
    "apply_patch_call_output",
];

/// The item type that carries function-tool calls, the one kind whose arguments a forwarded call
/// may have rewritten (agent aliases mapped back).
pub(crate) const FUNCTION_CALL: &str = "function_call";

/// What an output item (or a content block) is to the gate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ItemRole {
    /// It makes the harness execute nothing: it passes undecided.
    Passes,
    /// A call the harness would execute, as the registry's tool and arguments.
    Call(ProposedCall),
    /// It may make the harness act but cannot be read as a call.
    Unreadable(UnreadableItem),
}

/// The type of an output item (empty when it has none).
pub(crate) fn item_kind(item: &Value) -> &str {
    item.get("type").and_then(Value::as_str).unwrap_or_default()
}

/// True when items of type `kind` make the harness execute nothing.
pub(crate) fn passes(kind: &str) -> bool {
    PASSING_ITEMS.contains(&kind)
}

/// What `item` is to the gate.
pub(crate) fn item_role(item: &Value) -> ItemRole {
    let kind = item_kind(item);
    if passes(kind) {
        return ItemRole::Passes;
    }
    let arguments = match kind {
        FUNCTION_CALL => return ItemRole::Call(function_call(item)),
        "custom_tool_call" => custom_tool_call(item),
        "local_shell_call" => local_shell_call(item),
        "shell_call" => shell_call(item),
        "apply_patch_call" => apply_patch_call(item),
        "computer_call" => computer_call(item),
        "mcp_approval_request" => mcp_approval_request(item),
        _ => Err("Blindfold does not know this output item type".to_owned()),
    };
    match arguments {
        Ok((name, arguments)) => ItemRole::Call(ProposedCall { id: call_id(item), name, arguments }),
        Err(detail) => ItemRole::Unreadable(UnreadableItem { kind: kind.to_owned(), detail }),
    }
}

/// The key under which a stream remembers an item's outcome: its call id, else its item id.
pub(crate) fn item_key(item: &Value) -> String {
    let text = |k: &str| item.get(k).and_then(Value::as_str).filter(|t| !t.is_empty());
    text("call_id").or_else(|| text("id")).unwrap_or_default().to_owned()
}

/// The proposed call of a `function_call` item.
pub(crate) fn function_call(item: &Value) -> ProposedCall {
    let text = |k: &str| item.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
    ProposedCall { id: text("call_id"), name: text("name"), arguments: text("arguments") }
}

fn call_id(item: &Value) -> String {
    item.get("call_id").and_then(Value::as_str).unwrap_or_default().to_owned()
}

/// A tool name and its arguments as JSON text, or why the item cannot be read.
type Read = Result<(String, String), String>;

fn text_at<'a>(item: &'a Value, pointer: &str) -> Result<&'a str, String> {
    item.pointer(pointer).and_then(Value::as_str).ok_or_else(|| format!("`{pointer}` is not a string"))
}

/// A custom tool's call: the tool with its free-form text as `{input}` (the shape of Codex's
/// `apply_patch {input}`, which the registry reads as file operations).
fn custom_tool_call(item: &Value) -> Read {
    let name = text_at(item, "/name")?;
    let input = text_at(item, "/input")?;
    Ok((name.to_owned(), json!({"input": input}).to_string()))
}

/// `local_shell_call {action: {type: "exec", command: [argv], env, working_directory, user}}`:
/// `bash` with the argv as one shell-quoted command; `env`, `working_directory` and `user` kept
/// when set (they change what runs), the timeout dropped.
fn local_shell_call(item: &Value) -> Read {
    if item.pointer("/action/type") != Some(&json!("exec")) {
        return Err("`action.type` is not `exec`".into());
    }
    let argv =
        string_list(item.pointer("/action/command")).ok_or("`action.command` is not a list of strings")?;
    if argv.is_empty() {
        return Err("`action.command` is empty".into());
    }
    let mut args = Map::new();
    args.insert("command".into(), Value::String(shell_join(&argv)));
    for key in ["env", "working_directory", "user"] {
        match item.pointer(&format!("/action/{key}")) {
            None | Some(Value::Null) => {}
            Some(Value::Object(env)) if env.is_empty() => {}
            Some(v) => {
                args.insert(key.into(), v.clone());
            }
        }
    }
    Ok(("bash".into(), Value::Object(args).to_string()))
}

/// `shell_call {action: {commands: [..]}}`: `bash` with the commands one per line.
fn shell_call(item: &Value) -> Read {
    let commands =
        string_list(item.pointer("/action/commands")).ok_or("`action.commands` is not a list of strings")?;
    if commands.is_empty() {
        return Err("`action.commands` is empty".into());
    }
    Ok(("bash".into(), json!({"command": commands.join("\n")}).to_string()))
}

/// `apply_patch_call {operation: {type, path, diff}}`: `write_file`, `edit_file` (`content` is the
/// diff) or `delete_file`.
fn apply_patch_call(item: &Value) -> Read {
    let path = text_at(item, "/operation/path")?;
    let (tool, args) = match text_at(item, "/operation/type")? {
        "create_file" => ("write_file", json!({"path": path, "content": text_at(item, "/operation/diff")?})),
        "update_file" => ("edit_file", json!({"path": path, "content": text_at(item, "/operation/diff")?})),
        "delete_file" => ("delete_file", json!({"path": path})),
        other => return Err(format!("unknown patch operation `{other}`")),
    };
    Ok((tool.into(), args.to_string()))
}

/// `computer_call {action | actions}`: the `computer` tool with them.
fn computer_call(item: &Value) -> Read {
    let mut args = Map::new();
    for key in ["action", "actions"] {
        if let Some(v) = item.get(key).filter(|v| !v.is_null()) {
            args.insert(key.into(), v.clone());
        }
    }
    if args.is_empty() {
        return Err("neither `action` nor `actions` is set".into());
    }
    Ok(("computer".into(), Value::Object(args).to_string()))
}

/// `mcp_approval_request {name, arguments}`: the tool the provider would run once the harness
/// approves it.
fn mcp_approval_request(item: &Value) -> Read {
    Ok((text_at(item, "/name")?.to_owned(), text_at(item, "/arguments")?.to_owned()))
}

fn string_list(value: Option<&Value>) -> Option<Vec<&str>> {
    value?.as_array()?.iter().map(Value::as_str).collect()
}

/// The argv as one shell command: words made only of characters a shell leaves alone stay as
/// they are, any other is single-quoted.
fn shell_join(argv: &[&str]) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "@%+=:,./_-".contains(c);
    let quote = |w: &str| {
        if !w.is_empty() && w.chars().all(plain) {
            w.to_owned()
        } else {
            format!("'{}'", w.replace('\'', "'\\''"))
        }
    };
    argv.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")
}
