//! The tool calls of an OpenAI chat completion, read for the gate whole or assembled from stream
//! deltas: a `function` call (its name and JSON arguments), a `custom` call (its name and its
//! free-form `input` text, read as `{input}` like the Responses API's `custom_tool_call`, so a
//! Codex `apply_patch` is decided as the file operations it performs) and the deprecated
//! `function_call`. A call of any other type, naming no tool, or with a field of the wrong kind
//! cannot be read, and so is a denial.

use super::calls::{CallGate, CallOutcome, ProposedCall, UnreadableItem};
use serde_json::{Value, json};

/// The `type` of a call carrying JSON arguments under `function`.
const FUNCTION: &str = "function";
/// The `type` of a call carrying free-form text under `custom`.
const CUSTOM: &str = "custom";

/// The two call types a chat completion documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChatCallKind {
    /// `{"type":"function","function":{"name","arguments"}}`.
    Function,
    /// `{"type":"custom","custom":{"name","input"}}`.
    Custom,
}

/// One tool call as read so far: from one whole call, or from the deltas of a stream in order.
#[derive(Debug, Default)]
pub(crate) struct ChatCall {
    /// The `type` the upstream named (the first delta names it).
    kind: Option<String>,
    id: String,
    name: String,
    /// `function.arguments`, appended delta by delta.
    arguments: String,
    /// `custom.input`, appended delta by delta.
    input: String,
    /// Whether a delta carried a `function` part.
    function_part: bool,
    /// Whether a delta carried a `custom` part.
    custom_part: bool,
    /// Why the call cannot be read, once a delta showed it.
    unreadable: Option<String>,
    /// The entries as they came, kept only for a call that may have to be relayed unread.
    received: Vec<Value>,
}

/// What becomes of a chat tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ChatCallOutcome {
    /// Forward it: a function call with these arguments (agent aliases mapped back); `None` for
    /// a call that goes as it came (a custom call, or an unreadable one where it is not refused).
    Forward(Option<String>),
    /// Do not forward it: the harness receives this text instead.
    Refuse(String),
}

impl ChatCall {
    /// A call read from one entry of `message.tool_calls`.
    pub(crate) fn whole(call: &Value) -> Self {
        let mut read = Self::default();
        read.push(call);
        read
    }

    /// A call read from the deprecated `message.function_call {name, arguments}`.
    pub(crate) fn whole_legacy(call: &Value) -> Self {
        let mut read = Self::default();
        read.push_legacy(call);
        read
    }

    /// Adds one entry of `tool_calls` (a whole call or a stream delta of it): the type and id from
    /// the first entry naming them; the name, `function.arguments` and `custom.input` appended, as
    /// the official SDKs assemble them.
    pub(crate) fn push(&mut self, delta: &Value) {
        self.received.push(delta.clone());
        if !delta.is_object() {
            return self.fail("the call is not an object".into());
        }
        self.note_text(delta, "/type", |c, t| match &c.kind {
            Some(kind) if kind != t => Some(format!("its type changed from `{kind}` to `{t}`")),
            Some(_) => None,
            None => {
                c.kind = Some(t.to_owned());
                None
            }
        });
        self.note_text(delta, "/id", |c, t| first(&mut c.id, t));
        for (part, name, text) in
            [(FUNCTION, "/function/name", "/function/arguments"), (CUSTOM, "/custom/name", "/custom/input")]
        {
            match delta.get(part) {
                None | Some(Value::Null) => continue,
                Some(Value::Object(_)) => {}
                Some(_) => return self.fail(format!("`{part}` is not an object")),
            }
            if part == FUNCTION {
                self.function_part = true;
            } else {
                self.custom_part = true;
            }
            self.note_text(delta, name, |c, t| append(&mut c.name, t));
            self.note_text(delta, text, |c, t| match part {
                FUNCTION => append(&mut c.arguments, t),
                _ => append(&mut c.input, t),
            });
        }
    }

    /// Adds one `function_call` delta (or the whole deprecated call): a `function` call.
    pub(crate) fn push_legacy(&mut self, delta: &Value) {
        if !delta.is_object() {
            return self.fail("`function_call` is not an object".into());
        }
        self.kind = Some(FUNCTION.into());
        self.function_part = true;
        self.note_text(delta, "/name", |c, t| append(&mut c.name, t));
        self.note_text(delta, "/arguments", |c, t| append(&mut c.arguments, t));
    }

    /// Decides the call: a readable one by the gate, any other as unreadable.
    pub(crate) fn decide(&self, gate: &mut dyn CallGate) -> ChatCallOutcome {
        let (kind, proposed) = match self.read() {
            Ok(read) => read,
            Err(unreadable) => {
                return match gate.unreadable(&unreadable) {
                    CallOutcome::Forward { .. } => ChatCallOutcome::Forward(None),
                    CallOutcome::Refuse { text } => ChatCallOutcome::Refuse(text),
                };
            }
        };
        match gate.gate(&proposed) {
            CallOutcome::Forward { arguments } if kind == ChatCallKind::Function => {
                ChatCallOutcome::Forward(Some(arguments))
            }
            CallOutcome::Forward { .. } => ChatCallOutcome::Forward(None),
            CallOutcome::Refuse { text } => ChatCallOutcome::Refuse(text),
        }
    }

    /// The call as the gate reads it, with its kind; or why it cannot be read.
    fn read(&self) -> Result<(ChatCallKind, ProposedCall), UnreadableItem> {
        let kind = self.kind().map_err(|detail| self.unreadable_item(detail))?;
        if let Some(detail) = &self.unreadable {
            return Err(self.unreadable_item(detail.clone()));
        }
        if self.name.is_empty() {
            return Err(self.unreadable_item("the call names no tool".into()));
        }
        let arguments = match kind {
            ChatCallKind::Function => self.arguments.clone(),
            ChatCallKind::Custom => json!({"input": self.input}).to_string(),
        };
        Ok((kind, ProposedCall { id: self.id.clone(), name: self.name.clone(), arguments }))
    }

    /// The `tool_calls` entries that send a forwarded call at `index`: a readable call whole in
    /// one entry (a function call with `arguments`, a custom call with its input), an unreadable
    /// one as its entries came.
    pub(crate) fn forwarded_entries(&self, index: u64, arguments: Option<&str>) -> Vec<Value> {
        match (self.read(), arguments) {
            (Ok((ChatCallKind::Function, _)), Some(arguments)) => vec![json!({"index": index, "id": self.id,
                "type": FUNCTION, "function": {"name": self.name, "arguments": arguments}})],
            (Ok((ChatCallKind::Custom, _)), _) => vec![json!({"index": index, "id": self.id, "type": CUSTOM,
                "custom": {"name": self.name, "input": self.input}})],
            _ => self.received.iter().map(|entry| with_index(entry, index)).collect(),
        }
    }

    /// A forwarded deprecated call whole as one `function_call` delta with `arguments`.
    pub(crate) fn legacy_delta(&self, arguments: Option<&str>) -> Value {
        json!({"name": self.name, "arguments": arguments.unwrap_or(&self.arguments)})
    }

    /// The kind the call's `type` names, or the one its parts show when no delta named one.
    fn kind(&self) -> Result<ChatCallKind, String> {
        let kind = match self.kind.as_deref() {
            Some(FUNCTION) => ChatCallKind::Function,
            Some(CUSTOM) => ChatCallKind::Custom,
            Some(other) => return Err(format!("Blindfold does not know the tool call type `{other}`")),
            None if self.custom_part => ChatCallKind::Custom,
            None => ChatCallKind::Function,
        };
        let foreign = match kind {
            ChatCallKind::Function => self.custom_part,
            ChatCallKind::Custom => self.function_part,
        };
        if foreign {
            return Err("the call carries both a `function` and a `custom` part".into());
        }
        Ok(kind)
    }

    fn unreadable_item(&self, detail: String) -> UnreadableItem {
        let kind = self.kind.clone().filter(|k| !k.is_empty()).unwrap_or_else(|| "tool_call".into());
        UnreadableItem { kind, detail }
    }

    /// Hands the string at `pointer` to `note` (which may say why the call is unreadable); a value
    /// there that is neither a string nor null makes the call unreadable.
    fn note_text(
        &mut self,
        delta: &Value,
        pointer: &str,
        note: impl FnOnce(&mut Self, &str) -> Option<String>,
    ) {
        let problem = match delta.pointer(pointer) {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) => note(self, text),
            Some(_) => Some(format!("`{}` is not a string", &pointer[1..].replace('/', "."))),
        };
        if let Some(problem) = problem {
            self.fail(problem);
        }
    }

    fn fail(&mut self, detail: String) {
        self.unreadable.get_or_insert(detail);
    }
}

/// Sets `slot` to `text` when it is still empty.
fn first(slot: &mut String, text: &str) -> Option<String> {
    if slot.is_empty() {
        text.clone_into(slot);
    }
    None
}

/// `entry` with its `index` set (an entry that is not an object stays as it is).
fn with_index(entry: &Value, index: u64) -> Value {
    let mut entry = entry.clone();
    if let Value::Object(map) = &mut entry {
        map.insert("index".into(), json!(index));
    }
    entry
}

/// Appends `text` to `slot`.
fn append(slot: &mut String, text: &str) -> Option<String> {
    slot.push_str(text);
    None
}
