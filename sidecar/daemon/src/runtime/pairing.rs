//! One trajectory per harness session, shared by the harness's plugin and the model-API proxy.
//!
//! A plugin (holding the adapter token) registers the session it runs in over the control API
//! and gets a **session tag**: `bf1.<trajectory>.<actor>.<mac>`, the trajectory and the acting
//! agent (base64url) bound by an HMAC-SHA256 keyed with the adapter token. The plugin puts the
//! tag on every model request of that session (OpenCode: an `X-Blindfold-Session` header; Pi and
//! OpenClaw: a marker in the system prompt that the proxy removes), and the proxy reads the
//! trajectory and actor off it: the same trajectory, the same aliases, no id typed by hand. A tag
//! cannot be made without the adapter token, so a caller without it cannot name a trajectory; it
//! needs no lookup, so it stays valid across a daemon restart. What the daemon saw of each
//! session (registered by whom, last seen by the plugin and by the proxy) is kept in memory for
//! `blindfold doctor`.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use dashmap::DashMap;
use hmac::{Hmac, Mac};
use serde::Serialize;
use sha2::{Digest, Sha256};

/// What opens a tag, and its version.
const PREFIX: &str = "bf1";
/// What opens and closes a tag carried in a system prompt.
pub const MARKER_OPEN: &str = "[[blindfold-session:";
/// See [`MARKER_OPEN`].
pub const MARKER_CLOSE: &str = "]]";
/// Longest tag accepted (a trajectory id is at most 128 bytes, an agent name is short).
const MAX_TAG: usize = 1024;

/// A session a tag names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paired {
    /// The trajectory.
    pub trajectory: String,
    /// Who acts in the session: `coordinator` or the sub-agent's real name.
    pub actor: String,
}

/// What the daemon saw of one registered session.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Sighting {
    /// The harness that registered it (`opencode`, `pi`, `openclaw`).
    pub harness: String,
    /// When its plugin last registered or reported, ms since the epoch.
    pub plugin_ms: u64,
    /// When the model-API proxy last carried a request of it, ms (0: never).
    pub proxy_ms: u64,
}

/// Issues and reads session tags; remembers sightings.
pub struct Pairing {
    key: [u8; 32],
    seen: DashMap<(String, String), Sighting>,
}

impl Pairing {
    /// Tags keyed with `adapter_token` (a new adapter token makes every older tag invalid).
    pub fn new(adapter_token: &[u8]) -> Self {
        let mut h = Sha256::new();
        h.update(b"blindfold session tag v1\0");
        h.update(adapter_token);
        Self { key: h.finalize().into(), seen: DashMap::new() }
    }

    fn mac(&self, trajectory: &str, actor: &str) -> Hmac<Sha256> {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.key).expect("HMAC takes any key length");
        mac.update(trajectory.as_bytes());
        mac.update(b"\0");
        mac.update(actor.as_bytes());
        mac
    }

    /// The tag of `actor` in `trajectory`, registered by `harness` (a sighting for doctor).
    pub fn issue(&self, harness: &str, trajectory: &str, actor: &str) -> String {
        self.sighted(trajectory, actor, |s| {
            s.harness = harness.to_owned();
            s.plugin_ms = crate::unix_now_ms();
        });
        let mac = hex::encode(self.mac(trajectory, actor).finalize().into_bytes());
        format!("{PREFIX}.{}.{}.{mac}", URL_SAFE_NO_PAD.encode(trajectory), URL_SAFE_NO_PAD.encode(actor))
    }

    /// The session `tag` names, when the tag is this daemon's (the MAC is checked in constant
    /// time); `None` for anything else. A tag read by the proxy is a sighting.
    pub fn open(&self, tag: &str) -> Option<Paired> {
        let tag = tag.trim();
        if tag.len() > MAX_TAG {
            return None;
        }
        let mut parts = tag.split('.');
        let (prefix, t, a, mac) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        if prefix != PREFIX || parts.next().is_some() {
            return None;
        }
        let text = |b64: &str| String::from_utf8(URL_SAFE_NO_PAD.decode(b64).ok()?).ok();
        let (trajectory, actor) = (text(t)?, text(a)?);
        let mac = hex::decode(mac).ok()?;
        self.mac(&trajectory, &actor).verify_slice(&mac).ok()?;
        if !crate::config::valid_task_id(&trajectory) || actor.is_empty() {
            return None;
        }
        self.sighted(&trajectory, &actor, |s| s.proxy_ms = crate::unix_now_ms());
        Some(Paired { trajectory, actor })
    }

    /// The tag inside a system-prompt marker (`[[blindfold-session:<tag>]]`) anywhere in `bytes`.
    pub fn tag_in(bytes: &[u8]) -> Option<&str> {
        let open = MARKER_OPEN.as_bytes();
        let start = bytes.windows(open.len()).position(|w| w == open)? + open.len();
        let rest = &bytes[start..];
        let end = rest.windows(MARKER_CLOSE.len()).position(|w| w == MARKER_CLOSE.as_bytes())?;
        std::str::from_utf8(&rest[..end.min(MAX_TAG)]).ok()
    }

    /// Every session seen: `(trajectory, actor, sighting)`, newest plugin sighting first.
    pub fn sightings(&self) -> Vec<(String, String, Sighting)> {
        let mut out: Vec<(String, String, Sighting)> =
            self.seen.iter().map(|e| (e.key().0.clone(), e.key().1.clone(), e.value().clone())).collect();
        out.sort_by_key(|s| std::cmp::Reverse(s.2.plugin_ms));
        out
    }

    fn sighted(&self, trajectory: &str, actor: &str, f: impl FnOnce(&mut Sighting)) {
        // Bounded: a session is a few entries, and doctor needs only the recent ones.
        if self.seen.len() > 4096 {
            let mut oldest: Vec<((String, String), u64)> = self
                .seen
                .iter()
                .map(|e| (e.key().clone(), e.value().plugin_ms.max(e.value().proxy_ms)))
                .collect();
            oldest.sort_by_key(|(_, ms)| *ms);
            for (k, _) in oldest.into_iter().take(1024) {
                self.seen.remove(&k);
            }
        }
        f(&mut self.seen.entry((trajectory.to_owned(), actor.to_owned())).or_default());
    }
}

/// `text` without any session marker (the model never reads one).
pub fn strip_markers(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(MARKER_OPEN) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(MARKER_OPEN) {
        out.push_str(&rest[..at]);
        let after = &rest[at + MARKER_OPEN.len()..];
        match after.find(MARKER_CLOSE) {
            Some(end) => rest = &after[end + MARKER_CLOSE.len()..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_names_its_session_and_nothing_else_does() {
        let p = Pairing::new(b"adapter-token-0123456789abcdef0123");
        let tag = p.issue("opencode", "opencode-ses_1", "coordinator");
        let paired = p.open(&tag).expect("own tag");
        assert_eq!((paired.trajectory.as_str(), paired.actor.as_str()), ("opencode-ses_1", "coordinator"));
        // Another daemon's (another adapter token's) tag, a changed trajectory or actor, junk.
        let other = Pairing::new(b"another-token-0123456789abcdef0123");
        assert_eq!(other.open(&tag), None);
        let forged =
            tag.replacen(&URL_SAFE_NO_PAD.encode("opencode-ses_1"), &URL_SAFE_NO_PAD.encode("t-2"), 1);
        assert_eq!(p.open(&forged), None);
        for junk in ["", "bf1", "bf1.a.b.c", "bf2.x.y.00", &format!("{tag}.x")] {
            assert_eq!(p.open(junk), None, "{junk}");
        }
        let seen = p.sightings();
        assert_eq!(seen.len(), 1);
        assert!(seen[0].2.plugin_ms > 0 && seen[0].2.proxy_ms > 0, "{seen:?}");
    }

    #[test]
    fn markers_are_found_and_removed() {
        let text = "You are a helpful agent.\n[[blindfold-session:bf1.a.b.c]]\nBe brief.";
        assert_eq!(Pairing::tag_in(text.as_bytes()), Some("bf1.a.b.c"));
        assert_eq!(strip_markers(text), "You are a helpful agent.\n\nBe brief.");
        assert_eq!(strip_markers("plain"), "plain");
        assert_eq!(strip_markers("cut [[blindfold-session:bf1"), "cut ");
    }
}
