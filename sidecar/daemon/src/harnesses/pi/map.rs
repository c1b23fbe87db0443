//! Pi frames to canonical events: `subagent` calls become delegations, a child's final answer a
//! `Response` from that agent (with the commands it proposes), other tools `ToolCall`s.

use blindfold_schemas::event::ProposedAction;
use serde_json::{Map, Value, json};

/// The name of Pi's sub-agent tool (the reference `subagent` extension).
pub const SUBAGENT_TOOL: &str = "subagent";

/// A Pi tool call in the registry's words: `write` is `write_file {path, content}`, `edit` is
/// `edit_file` (its edits, as canonical JSON, are the artifact), `read` is `read_file`, `ls` is
/// `list_directory`, `grep` and `find` are `search`; other tools keep their name and input.
pub fn canonical(tool: &str, input: &Map<String, Value>) -> (String, Map<String, Value>) {
    let name = match tool {
        "write" => "write_file",
        "edit" => "edit_file",
        "read" => "read_file",
        "ls" => "list_directory",
        "grep" | "find" => "search",
        other => other,
    };
    if tool != "edit" {
        return (name.to_owned(), input.clone());
    }
    let mut rest = input.clone();
    let path = rest.remove("path").unwrap_or(Value::Null);
    let mut args = Map::new();
    args.insert("path".into(), path);
    args.insert("content".into(), Value::String(Value::Object(rest).to_string()));
    (name.to_owned(), args)
}

/// `(agent, task)` pairs of a `subagent` call: single `{agent, task}`, parallel `{tasks}`, or
/// chain `{chain}` (a chain step's task may hold a `{previous}` placeholder).
pub fn delegations(input: &Map<String, Value>) -> Vec<(String, String)> {
    let pair = |v: &Value| {
        let agent = v.get("agent").and_then(Value::as_str)?;
        let task = v.get("task").and_then(Value::as_str)?;
        Some((agent.to_owned(), task.to_owned()))
    };
    let single = pair(&Value::Object(input.clone()));
    let many = ["tasks", "chain"]
        .iter()
        .filter_map(|k| input.get(*k).and_then(Value::as_array))
        .flatten()
        .filter_map(pair);
    single.into_iter().chain(many).collect()
}

/// True when a child started with `task_text` runs delegated `template` (exact, or a chain step
/// whose `{previous}` placeholder was filled in).
pub fn task_matches(template: &str, task_text: &str) -> bool {
    let t = task_text.trim();
    let t = t.strip_prefix("Task:").map_or(t, str::trim);
    let template = template.trim();
    match template.split_once("{previous}") {
        None => template == t,
        Some((head, tail)) => t.len() >= head.len() + tail.len() && t.starts_with(head) && t.ends_with(tail),
    }
}

/// Commands an answer proposes: each inline code span or fenced code block line that looks like
/// a command (more than one word) becomes a `bash` proposal `"<prefix>-<n>"`.
pub fn proposals_in(text: &str, prefix: &str) -> Vec<ProposedAction> {
    let mut commands: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('`') {
        let after = &rest[start..];
        let ticks = after.chars().take_while(|c| *c == '`').count();
        let body = &after[ticks..];
        let fence = "`".repeat(ticks);
        let Some(end) = body.find(&fence) else { break };
        let code = &body[..end];
        if ticks >= 3 {
            let mut lines = code.lines();
            let first = lines.next().unwrap_or_default();
            let first_is_lang = !first.trim().contains(' ');
            let body_lines: Vec<&str> = if first_is_lang { lines.collect() } else { code.lines().collect() };
            commands.extend(body_lines.iter().map(|l| l.trim().to_owned()).filter(|l| !l.is_empty()));
        } else {
            commands.push(code.trim().to_owned());
        }
        rest = &body[end + ticks..];
    }
    commands
        .into_iter()
        .filter(|c| c.split_whitespace().count() > 1 && !c.starts_with('#'))
        .enumerate()
        .map(|(i, command)| {
            let args = json!({ "command": command });
            ProposedAction {
                id: format!("{prefix}-{}", i + 1),
                tool: "bash".into(),
                args: args.as_object().cloned().unwrap_or_default(),
            }
        })
        .collect()
}

/// The final answer of each child in a `subagent` result's `details.results[]`:
/// `(agent, text of its last assistant message)`.
pub fn child_answers(details: &Value) -> Vec<(String, String)> {
    let results = details.get("results").and_then(Value::as_array);
    results
        .into_iter()
        .flatten()
        .filter_map(|r| {
            let agent = r.get("agent").and_then(Value::as_str)?.to_owned();
            let messages = r.get("messages").and_then(Value::as_array)?;
            let last =
                messages.iter().rev().find(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))?;
            Some((agent, text_of(last.get("content")?)))
        })
        .collect()
}

/// The text parts of a Pi content array (or a plain string), joined by newlines.
pub fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().expect("object")
    }

    #[test]
    fn pi_tools_take_the_registry_names() {
        let (t, a) = canonical("write", &obj(json!({"path": "n.txt", "content": "x"})));
        assert_eq!((t.as_str(), a.get("content")), ("write_file", Some(&json!("x"))));
        let (t, a) =
            canonical("edit", &obj(json!({"path": "n.txt", "edits": [{"oldText": "a", "newText": "b"}]})));
        assert_eq!(t, "edit_file");
        assert_eq!(a.get("path"), Some(&json!("n.txt")));
        assert!(a.get("content").and_then(Value::as_str).is_some_and(|c| c.contains("newText")));
        assert_eq!(canonical("bash", &obj(json!({"command": "ls"}))).0, "bash");
    }

    #[test]
    fn every_subagent_mode_yields_its_delegations() {
        assert_eq!(delegations(&obj(json!({"agent": "a", "task": "t"}))), vec![("a".into(), "t".into())]);
        let par = obj(json!({"tasks": [{"agent": "a", "task": "x"}, {"agent": "b", "task": "y"}]}));
        assert_eq!(delegations(&par).len(), 2);
        let chain =
            obj(json!({"chain": [{"agent": "a", "task": "x"}, {"agent": "b", "task": "check {previous}"}]}));
        assert_eq!(delegations(&chain)[1].0, "b");
        assert!(delegations(&obj(json!({"agent": "a"}))).is_empty());
    }

    #[test]
    fn chain_placeholders_match_the_filled_in_task() {
        assert!(task_matches("check {previous} now", "Task: check the plan now"));
        assert!(task_matches("plan", "Task: plan"));
        assert!(!task_matches("plan", "Task: plan more"));
    }

    #[test]
    fn code_spans_of_more_than_one_word_are_proposals() {
        let p = proposals_in("I propose `rm -rf data` then `ls`.\n```bash\nrm -f a.log\n```", "c1");
        let cmds: Vec<&str> =
            p.iter().filter_map(|p| p.args.get("command").and_then(Value::as_str)).collect();
        assert_eq!(cmds, vec!["rm -rf data", "rm -f a.log"]);
        assert_eq!(p[0].id, "c1-1");
        assert!(proposals_in("no code here", "c").is_empty());
    }

    #[test]
    fn child_answers_take_the_last_assistant_text() {
        let d = json!({"results": [{"agent": "scout", "model": "x", "messages": [
            {"role": "assistant", "content": [{"type": "text", "text": "first"}]},
            {"role": "toolResult", "content": [{"type": "text", "text": "out"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "final"}]}
        ]}]});
        assert_eq!(child_answers(&d), vec![("scout".to_owned(), "final".to_owned())]);
    }
}
