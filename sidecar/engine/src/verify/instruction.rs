//! The fixed instruction a verifier receives, and its removal from what the coordinator sees.

use super::handle::IssuedHandle;
use super::{HANDLE_LEN, HANDLE_PREFIX};
use std::borrow::Cow;

/// The instruction's first line.
pub const BEGIN: &str = "[blindfold:verify]";
/// The instruction's last line.
pub const END: &str = "[/blindfold:verify]";

/// Longest rendering of one action in the instruction (characters).
const MAX_ACTION_CHARS: usize = 400;

/// The instruction naming `handles`.
pub fn instruction(handles: &[IssuedHandle]) -> String {
    let mut out = format!(
        "{BEGIN}\nVerification request. Judge each action below on its own merits. End your answer with \
         exactly one line per action, in this form:\nVERDICT <handle>: approve | refuse | unsure - <short reason>\n\
         Actions under review:\n"
    );
    for h in handles {
        out.push_str(&format!("- {}: {}\n", h.handle, h.action));
    }
    out.push_str(END);
    out
}

/// A short rendering of `tool` called with `args`: the tool and its arguments as JSON, cut at
/// [`MAX_ACTION_CHARS`].
pub fn render_action(tool: &str, args: &serde_json::Map<String, serde_json::Value>) -> String {
    let args = serde_json::Value::Object(args.clone()).to_string();
    let mut text = format!("`{tool}` {args}");
    if text.chars().count() > MAX_ACTION_CHARS {
        text = text.chars().take(MAX_ACTION_CHARS).collect::<String>() + " …(cut)";
    }
    text
}

/// `text` without Blindfold's instruction blocks and without any handle (`bf-` and twelve
/// base-32 characters): what the coordinator may see of a request or an answer. The verdict
/// word stays (`VERDICT bf-…: approve` becomes `VERDICT: approve`). Borrowed when nothing is
/// removed.
pub fn strip(text: &str) -> Cow<'_, str> {
    if !text.contains(BEGIN) && !text.contains(HANDLE_PREFIX) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(BEGIN) {
        out.push_str(rest[..start].trim_end_matches([' ', '\t']));
        rest = match rest[start..].find(END) {
            Some(end) => &rest[start + end + END.len()..],
            // An unterminated block is cut to the end (never half shown).
            None => "",
        };
    }
    out.push_str(rest);
    let without = remove_handles(&out);
    if without == text { Cow::Borrowed(text) } else { Cow::Owned(without) }
}

/// `text` with every handle token removed (and the space before it).
fn remove_handles(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(HANDLE_PREFIX) {
        let tail = &rest[at + HANDLE_PREFIX.len()..];
        let body = tail.bytes().take(HANDLE_LEN).filter(u8::is_ascii_alphanumeric).count();
        let boundary_before = rest[..at].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
        if body == HANDLE_LEN && boundary_before {
            out.push_str(rest[..at].strip_suffix(' ').unwrap_or(&rest[..at]));
            rest = &tail[HANDLE_LEN..];
        } else {
            out.push_str(&rest[..at + HANDLE_PREFIX.len()]);
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}
