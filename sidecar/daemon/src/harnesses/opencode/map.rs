//! OpenCode tool calls → canonical events: the harness's tool names and argument names mapped to
//! the trusted registry's (`bash`, `write_file`, `edit_file`, `read_file`, `web_fetch`, …).

use blindfold_schemas::Event;
use serde_json::{Map, Value};

/// Tools that only touch the harness's own session state (todo lists, questions to the user,
/// skill files it ships): nothing in the workspace or outside changes.
pub const HARNESS_INTERNAL: [&str; 4] = ["todowrite", "todoread", "question", "skill"];

/// What an OpenCode tool call amounts to.
#[derive(Debug, Clone, PartialEq)]
pub enum Mapped {
    /// A delegation to a sub-agent through `task` (`to` is the name the coordinator used).
    Delegate {
        /// The sub-agent as addressed (`subagent_type`).
        to: String,
        /// The prompt handed over.
        text: String,
    },
    /// A harness-internal tool (see [`HARNESS_INTERNAL`]).
    Internal,
    /// A tool call for the engine, in the registry's vocabulary.
    Tool {
        /// Registry tool name.
        tool: String,
        /// Registry argument names.
        args: Map<String, Value>,
    },
}

fn take(args: &Map<String, Value>, from: &str, to: &str, out: &mut Map<String, Value>) {
    if let Some(v) = args.get(from) {
        out.insert(to.to_owned(), v.clone());
    }
}

/// Maps an OpenCode tool and its arguments. Arguments that change what a call does are kept
/// (they are hashed into the grant's `args_sha256`); purely cosmetic ones (`description`) are
/// dropped. Unknown tools keep their name and arguments (the registry makes them `mutate`).
pub fn map_tool(tool: &str, args: &Map<String, Value>) -> Mapped {
    let mut out = Map::new();
    let name = match tool {
        "task" => {
            let s = |k: &str| args.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
            return Mapped::Delegate { to: s("subagent_type"), text: s("prompt") };
        }
        t if HARNESS_INTERNAL.contains(&t) => return Mapped::Internal,
        "bash" => {
            take(args, "command", "command", &mut out);
            take(args, "workdir", "workdir", &mut out);
            "bash"
        }
        "write" => {
            take(args, "filePath", "path", &mut out);
            take(args, "content", "content", &mut out);
            "write_file"
        }
        "edit" => {
            take(args, "filePath", "path", &mut out);
            take(args, "newString", "content", &mut out);
            take(args, "oldString", "old_string", &mut out);
            take(args, "replaceAll", "replace_all", &mut out);
            "edit_file"
        }
        "read" => {
            take(args, "filePath", "path", &mut out);
            "read_file"
        }
        "list" | "glob" | "grep" => {
            out = args.clone();
            if tool == "list" { "list_directory" } else { "search" }
        }
        "webfetch" => {
            take(args, "url", "url", &mut out);
            "web_fetch"
        }
        other => {
            out = args.clone();
            other
        }
    };
    Mapped::Tool { tool: name.to_owned(), args: out }
}

/// The canonical event of a mapped call by `actor` (`coordinator` or the sub-agent's name). A
/// `task` delegation's intent is read from its prompt as on every path (a review request is a
/// verify request), and its channel is its tool call id: the sub-agent's answer comes back as
/// that call's result (so a verdict in it can count); without an id it has no channel.
pub fn event_of(mapped: &Mapped, actor: &str, call_id: &str) -> Option<Event> {
    let call_id = (!call_id.is_empty()).then(|| call_id.to_owned());
    match mapped {
        Mapped::Delegate { to, text } => Some(Event::Delegate {
            to: to.clone(),
            intent: crate::runtime::intent::intent_of(text),
            text: text.clone(),
            proposal: None,
            call_id,
        }),
        Mapped::Internal => None,
        Mapped::Tool { tool, args } => Some(Event::ToolCall {
            actor: actor.to_owned(),
            tool: tool.clone(),
            args: args.clone(),
            proposal: None,
            call_id,
        }),
    }
}

/// The sub-agent's answer inside a `task` result (`<task_result>…</task_result>`), or the whole
/// output when the frame is absent.
pub fn task_result_text(output: &str) -> &str {
    let start = output.find("<task_result>").map(|i| i + "<task_result>".len());
    let end = output.rfind("</task_result>");
    match (start, end) {
        (Some(s), Some(e)) if s <= e => output[s..e].trim(),
        _ => output,
    }
}

impl Mapped {
    /// The registry tool name (`task` for delegations, `internal` for harness-internal tools).
    pub fn registry_name(&self) -> &str {
        match self {
            Mapped::Delegate { .. } => "task",
            Mapped::Internal => "internal",
            Mapped::Tool { tool, .. } => tool,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().expect("object")
    }

    #[test]
    fn bash_keeps_the_command_and_workdir_and_drops_the_description() {
        let m = map_tool(
            "bash",
            &obj(json!({"command": "rm -rf data", "description": "clean", "workdir": "/w"})),
        );
        assert_eq!(
            m,
            Mapped::Tool {
                tool: "bash".into(),
                args: obj(json!({"command": "rm -rf data", "workdir": "/w"}))
            }
        );
    }

    #[test]
    fn write_and_edit_use_registry_names() {
        let m = map_tool("write", &obj(json!({"filePath": "/p/notes.txt", "content": "hi"})));
        assert_eq!(
            m,
            Mapped::Tool {
                tool: "write_file".into(),
                args: obj(json!({"path": "/p/notes.txt", "content": "hi"}))
            }
        );
        let m = map_tool("edit", &obj(json!({"filePath": "a", "oldString": "x", "newString": "y"})));
        assert_eq!(
            m,
            Mapped::Tool {
                tool: "edit_file".into(),
                args: obj(json!({"path": "a", "content": "y", "old_string": "x"}))
            }
        );
    }

    #[test]
    fn task_is_a_delegation_and_unknown_tools_stay_unknown() {
        let m = map_tool(
            "task",
            &obj(json!({"subagent_type": "agent-b", "prompt": "review", "description": "d"})),
        );
        assert_eq!(m, Mapped::Delegate { to: "agent-b".into(), text: "review".into() });
        assert_eq!(map_tool("todowrite", &Map::new()), Mapped::Internal);
        let m = map_tool("mcp_deploy", &obj(json!({"env": "prod"})));
        assert_eq!(m, Mapped::Tool { tool: "mcp_deploy".into(), args: obj(json!({"env": "prod"})) });
    }

    #[test]
    fn a_task_delegation_is_relayed_on_its_call_id_with_the_intent_its_prompt_states() {
        let task = |text: &str| Mapped::Delegate { to: "auditor".into(), text: text.into() };
        let read = |e: Option<Event>| match e {
            Some(Event::Delegate { call_id, intent, .. }) => (call_id, intent),
            other => panic!("not a delegation: {other:?}"),
        };
        let review = read(event_of(&task("Review this command"), "coordinator", "call_7"));
        assert_eq!(review, (Some("call_7".to_owned()), blindfold_schemas::Intent::Verify));
        let work = read(event_of(&task("Propose a cleanup"), "coordinator", ""));
        assert_eq!(work, (None, blindfold_schemas::Intent::Scope), "no id, no channel");
    }

    #[test]
    fn task_result_text_is_cut_out_of_the_frame() {
        let out =
            "<task id=\"ses_1\" state=\"completed\">\n<task_result>\nDo not run it.\n</task_result>\n</task>";
        assert_eq!(task_result_text(out), "Do not run it.");
        assert_eq!(task_result_text("plain"), "plain");
    }
}
