//! Refusals a person can act on: every blocked tool call gets an id (`rf-…`), its action as the
//! registry names it (operation, target, exact bytes, digests) and the decision, kept (the last
//! [`KEEP`]) for `blindfold why <id>` — in memory and in the state directory's journal, so a
//! restarted daemon still answers for them ([`journal`]) — and logged with the grant command that
//! would allow it. Grants submitted through the control API are remembered too (task, operation,
//! target, digest, expiry), so a later refusal can say which grant did not fit and how.

use blindfold_adapters::refusal::{HumanView, Refusal};
use blindfold_engine::DerivedAction;
use blindfold_engine::canonical::{args_sha256, sha256_hex};
use blindfold_schemas::{Decision, GrantClaims};
use dashmap::DashMap;
use std::collections::VecDeque;
use std::sync::Mutex;

mod journal;
#[cfg(test)]
mod journal_tests;

/// Refusals kept for `why`.
pub const KEEP: usize = 1024;
/// Largest artifact kept with a refusal (bigger ones keep their digest only).
const MAX_BYTES: usize = 1 << 20;

/// One refused call.
#[derive(Debug, Clone)]
pub struct Refused {
    /// `rf-<16 hex>`.
    pub id: String,
    /// When, ms since the epoch.
    pub ts: u64,
    /// The trajectory (a grant's task).
    pub trajectory: String,
    /// Who asked.
    pub actor: String,
    /// The tool as the harness named it.
    pub tool: String,
    /// The action as the registry derived it (artifact cut to [`MAX_BYTES`]).
    pub action: DerivedAction,
    /// The artifact's full length and digest.
    pub artifact_len: usize,
    /// See [`Refused::artifact_len`].
    pub artifact_sha256: String,
    /// The decision that blocked it.
    pub decision: Decision,
    /// The review it waits in.
    pub review_id: Option<String>,
}

/// The refusals and submitted grants this daemon saw.
#[derive(Default)]
pub struct Refusals {
    /// The daemon's configuration file, named in the commands a person is given.
    config_file: Option<String>,
    /// The kept refusals, oldest first, each with its call's fingerprint.
    recent: Mutex<VecDeque<journal::Entry>>,
    /// Where they are kept across a restart (none for a book in memory only).
    journal: Option<journal::Journal>,
    /// (trajectory, fingerprint) → the latest refusal's id.
    latest: DashMap<(String, String), String>,
    /// Grants submitted on the trusted path (the last [`KEEP`]).
    grants: Mutex<VecDeque<GrantClaims>>,
}

impl Refusals {
    /// An empty book whose printed commands name `config_file` (`--config`).
    pub fn for_config(config_file: Option<&std::path::Path>) -> Self {
        Self { config_file: config_file.map(|p| p.display().to_string()), ..Self::default() }
    }

    /// The book kept in `state_dir` (its journal read back: the refusals noted before a restart
    /// are found again), naming `config_file` in its commands. Never fails: a journal that
    /// cannot be read is a warning and an empty book.
    pub fn open(state_dir: &std::path::Path, config_file: Option<&std::path::Path>) -> Self {
        let (journal, kept) = journal::Journal::open(state_dir);
        let book = Self { journal: Some(journal), ..Self::for_config(config_file) };
        for (r, fp) in &kept {
            if let Some(fp) = fp {
                book.latest.insert((r.trajectory.clone(), fp.clone()), r.id.clone());
            }
        }
        *book.recent.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = kept.into();
        book
    }

    /// Records a refused call and returns its id.
    pub fn note(&self, mut r: Refused, fingerprint: Option<&str>) -> String {
        r.id = format!("rf-{:016x}", rand::random::<u64>());
        r.artifact_len = r.action.artifact.len();
        r.artifact_sha256 = sha256_hex(&r.action.artifact);
        r.action.artifact.truncate(MAX_BYTES);
        if let Some(fp) = fingerprint {
            self.latest.insert((r.trajectory.clone(), fp.to_owned()), r.id.clone());
        }
        let id = r.id.clone();
        let mut recent = self.recent.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if recent.len() >= KEEP
            && let Some((old, _)) = recent.pop_front()
        {
            self.latest.retain(|_, v| *v != old.id);
        }
        // Journaled under the lock: the file's order is the book's.
        if let Some(journal) = &self.journal
            && journal.append(&r, fingerprint)
        {
            let mut kept: Vec<(&Refused, Option<&str>)> =
                recent.iter().map(|(r, fp)| (r, fp.as_deref())).collect();
            kept.push((&r, fingerprint));
            journal.compact(kept);
        }
        recent.push_back((r, fingerprint.map(str::to_owned)));
        id
    }

    /// The latest refusal of the call with `fingerprint` in `trajectory`.
    pub fn latest(&self, trajectory: &str, fingerprint: &str) -> Option<String> {
        self.latest.get(&(trajectory.to_owned(), fingerprint.to_owned())).map(|v| v.clone())
    }

    /// The refusal `id`, if still kept.
    pub fn get(&self, id: &str) -> Option<Refused> {
        let recent = self.recent.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        recent.iter().rev().find(|(r, _)| r.id == id).map(|(r, _)| r.clone())
    }

    /// Remembers a grant submitted on the trusted path.
    pub fn granted(&self, claims: &GrantClaims) {
        let mut grants = self.grants.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if grants.len() >= KEEP {
            grants.pop_front();
        }
        grants.push_back(claims.clone());
    }

    /// The person's view of `r` (signing key hint `key_hint`).
    pub fn view(&self, r: &Refused, key_hint: &str) -> HumanView {
        let text =
            std::str::from_utf8(&r.action.artifact).ok().filter(|t| t.len() <= 64 << 10).map(str::to_owned);
        let grants = self.grants.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // The grant on record for the same task and operation, the same target first.
        let near = grants
            .iter()
            .rev()
            .filter(|g| g.task_id == r.trajectory && g.operation == r.action.operation)
            .max_by_key(|g| g.target == r.action.target)
            .map(|g| {
                let approved = self.bytes_of(&g.artifact_sha256);
                (g.jti.clone(), g.target.clone(), g.exp, approved)
            });
        HumanView {
            id: r.id.clone(),
            task: r.trajectory.clone(),
            actor: r.actor.clone(),
            tool: r.tool.clone(),
            operation: r.action.operation.clone(),
            target: r.action.target.clone(),
            artifact_sha256: r.artifact_sha256.clone(),
            args_sha256: args_sha256(&r.action.args),
            args: serde_json::Value::Object(r.action.args.clone()).to_string(),
            artifact_text: text,
            artifact_len: r.artifact_len,
            review_id: r.review_id.clone(),
            key_hint: key_hint.to_owned(),
            config_file: self.config_file.clone(),
            near_grant: near,
        }
    }

    /// The text of bytes with digest `sha256` some refusal carried (the bytes a grant approved).
    fn bytes_of(&self, sha256: &str) -> Option<String> {
        let recent = self.recent.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let (r, _) = recent
            .iter()
            .rev()
            .find(|(r, _)| r.artifact_sha256 == sha256 && r.action.artifact.len() == r.artifact_len)?;
        String::from_utf8(r.action.artifact.clone()).ok()
    }

    /// The person's text of refusal `r`.
    pub fn human_text(&self, r: &Refused, key_hint: &str) -> String {
        Refusal::new(r.decision.clone(), &r.trajectory, Some(&r.action)).human_text(&self.view(r, key_hint))
    }
}

/// The signing key to name in grant commands: the private half of the one trusted key when its
/// file is `NAME.pub.pem` (as `blindfold keygen` writes it), else `KEY.pem`.
pub fn key_hint(trusted: &[String]) -> String {
    match trusted {
        [one] if one.ends_with(".pub.pem") => format!("{}.key.pem", one.trim_end_matches(".pub.pem")),
        _ => "KEY.pem".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blindfold_schemas::{Effect, Reason};

    fn refused(target: &str, bytes: &[u8]) -> Refused {
        Refused {
            id: String::new(),
            ts: 0,
            trajectory: "t".into(),
            actor: "coordinator".into(),
            tool: "write".into(),
            action: DerivedAction {
                effect: Effect::Mutate,
                operation: "write_file".into(),
                target: target.into(),
                artifact: bytes.to_vec(),
                args: serde_json::Map::new(),
                unknown: false,
            },
            artifact_len: 0,
            artifact_sha256: String::new(),
            decision: Decision::deny(Reason::ArtifactChanged, blindfold_schemas::CheckId::Grant),
            review_id: None,
        }
    }

    #[test]
    fn a_refusal_is_found_by_id_and_a_changed_artifact_shows_its_diff() {
        let book = Refusals::default();
        let first = book.note(refused("notes.txt", b"hello\n"), Some("fp1"));
        assert_eq!(book.latest("t", "fp1").as_deref(), Some(first.as_str()));
        let claims = GrantClaims {
            task_id: "t".into(),
            operation: "write_file".into(),
            target: "notes.txt".into(),
            artifact_sha256: sha256_hex(b"hello\n"),
            args_sha256: String::new(),
            exp: 9,
            iat: 1,
            jti: "j1".into(),
            nbf: None,
            max_uses: None,
            review_id: None,
            version: None,
        };
        book.granted(&claims);
        let second = book.note(refused("notes.txt", b"hello, changed\n"), Some("fp2"));
        let text = book.human_text(&book.get(&second).expect("kept"), &key_hint(&["k/ops.pub.pem".into()]));
        assert!(text.contains("- hello") && text.contains("+ hello, changed"), "{text}");
        assert!(
            text.contains("--key k/ops.key.pem") && text.contains(&format!("--artifact {second}.artifact")),
            "{text}"
        );
        assert!(book.get("rf-nope").is_none());
    }
}
