//! The roots an MCP client declares (`roots/list`, asked by the server): the first `file://` root
//! becomes the trajectory's workspace root when `[workspace] root` is not configured, so scoped
//! grants' path globs are rooted where the client says its files are.

use blindfold_adapters::jsonrpc::{Frame, Kind};
use serde_json::Value;
use std::collections::HashSet;

/// The server's `roots/list` requests still awaiting the client's answer.
#[derive(Debug, Default)]
pub struct RootsWatch {
    asked: HashSet<String>,
}

impl RootsWatch {
    /// Notes a server→client message: a `roots/list` request is remembered by id.
    pub fn seen_from_server(&mut self, frame: &Frame) {
        if frame.kind == Kind::Request && frame.method() == Some("roots/list") {
            self.asked.insert(frame.id().to_string());
        }
    }

    /// The root a client→server answer to a remembered `roots/list` declares, if any.
    pub fn answered_by_client(&mut self, frame: &Frame) -> Option<String> {
        if frame.kind != Kind::Response || !self.asked.remove(&frame.id().to_string()) {
            return None;
        }
        first_file_root(frame.value.get("result")?)
    }
}

/// The path of the first `file://` root of a `roots/list` result (`{"roots": [{"uri": …}]}`),
/// percent-decoded; `None` when there is none, or its path is not absolute UTF-8 without `..`.
pub fn first_file_root(result: &Value) -> Option<String> {
    result.get("roots")?.as_array()?.iter().find_map(|r| {
        let uri = r.get("uri")?.as_str()?;
        let rest = uri.strip_prefix("file://")?;
        // `file:///path` (empty authority) or `file://localhost/path`.
        let path = rest.strip_prefix("localhost").unwrap_or(rest);
        let decoded = percent_encoding::percent_decode_str(path).decode_utf8().ok()?.into_owned();
        (decoded.starts_with('/') && !decoded.split('/').any(|c| c == "..") && !decoded.contains('\0'))
            .then_some(decoded)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_first_file_root_is_taken_decoded() {
        let r = json!({"roots": [{"uri": "https://x.example/"}, {"uri": "file:///home/u/my%20project", "name": "p"}]});
        assert_eq!(first_file_root(&r).as_deref(), Some("/home/u/my project"));
        assert_eq!(
            first_file_root(&json!({"roots": [{"uri": "file://localhost/srv/w"}]})).as_deref(),
            Some("/srv/w")
        );
        for bad in [
            json!({"roots": []}),
            json!({"roots": [{"uri": "file:///a/../etc"}]}),
            json!({"roots": [{"uri": "file://host/x"}]}),
        ] {
            assert_eq!(first_file_root(&bad), None, "{bad}");
        }
    }

    #[test]
    fn only_an_answer_to_a_roots_request_declares() {
        let parse = |v: serde_json::Value| {
            blindfold_adapters::jsonrpc::parse(
                v.to_string().as_bytes(),
                1 << 20,
                blindfold_adapters::mcp::is_notification,
            )
            .expect("frame")
        };
        let mut w = RootsWatch::default();
        let answer = json!({"jsonrpc": "2.0", "id": 7, "result": {"roots": [{"uri": "file:///w"}]}});
        assert_eq!(w.answered_by_client(&parse(answer.clone())), None, "nobody asked");
        w.seen_from_server(&parse(json!({"jsonrpc": "2.0", "id": 7, "method": "roots/list"})));
        assert_eq!(w.answered_by_client(&parse(answer.clone())).as_deref(), Some("/w"));
        assert_eq!(w.answered_by_client(&parse(answer)), None, "answered once");
    }
}
