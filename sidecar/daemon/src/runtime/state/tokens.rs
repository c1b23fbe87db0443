//! Capability tokens for the control API: one for adapters, one for the operator (SPEC §9).

use super::{check_private_file, create_private_once};
use std::path::Path;

/// What a token may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Check proposals and report events.
    Adapter,
    /// Everything an adapter may, plus submit grants, toggle modes, approve and revoke.
    Operator,
}

/// The two tokens, read from (or created in) the state directory.
#[derive(Clone)]
pub struct Tokens {
    adapter: String,
    operator: String,
}

/// File names of the tokens inside the state directory.
pub const ADAPTER_TOKEN_FILE: &str = "adapter.token";
/// File name of the operator token.
pub const OPERATOR_TOKEN_FILE: &str = "operator.token";

impl Tokens {
    /// Reads both tokens from `state_dir`, generating any that is missing (0600).
    pub fn load_or_create(state_dir: &Path) -> Result<Self, String> {
        Ok(Self {
            adapter: load_or_create(&state_dir.join(ADAPTER_TOKEN_FILE))?,
            operator: load_or_create(&state_dir.join(OPERATOR_TOKEN_FILE))?,
        })
    }

    /// The adapter token itself: what session tags are keyed with ([`crate::runtime::pairing`]).
    pub(crate) fn adapter_secret(&self) -> &[u8] {
        self.adapter.as_bytes()
    }

    /// The scope `presented` grants, if any. Comparison does not stop at the first difference.
    pub fn scope_of(&self, presented: &str) -> Option<Scope> {
        if constant_time_eq(presented.as_bytes(), self.operator.as_bytes()) {
            Some(Scope::Operator)
        } else if constant_time_eq(presented.as_bytes(), self.adapter.as_bytes()) {
            Some(Scope::Adapter)
        } else {
            None
        }
    }
}

fn load_or_create(path: &Path) -> Result<String, String> {
    if path.exists() {
        return read_token(path);
    }
    let bytes: [u8; 32] = rand::random();
    let token = hex::encode(bytes);
    let placed =
        create_private_once(path, token.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))?;
    // Another process starting at the same moment created it first: theirs holds.
    if placed { Ok(token) } else { read_token(path) }
}

fn read_token(path: &Path) -> Result<String, String> {
    check_private_file(path)?;
    let token = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let token = token.trim().to_owned();
    if token.len() < 32 {
        return Err(format!("{}: token too short; delete it to regenerate", path.display()));
    }
    Ok(token)
}

/// True when `a` and `b` are equal, compared without stopping at the first difference.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processes_starting_together_on_a_fresh_state_directory_agree_on_the_tokens() {
        let dir = tempfile::tempdir().expect("tmp");
        let all = crate::runtime::state::started_together(8, || {
            Tokens::load_or_create(dir.path()).expect("tokens")
        });
        let on_disk = |f: &str| std::fs::read_to_string(dir.path().join(f)).expect("token file");
        for t in &all {
            assert_eq!(
                (&t.adapter, &t.operator),
                (&on_disk(ADAPTER_TOKEN_FILE), &on_disk(OPERATOR_TOKEN_FILE))
            );
        }
        assert_ne!(all[0].adapter, all[0].operator);
        let left: Vec<_> =
            std::fs::read_dir(dir.path()).expect("dir").map(|e| e.expect("entry").file_name()).collect();
        assert_eq!(left.len(), 2, "no temporary file left: {left:?}");
        let mode = std::fs::metadata(dir.path().join(OPERATOR_TOKEN_FILE)).expect("meta").permissions();
        assert_eq!(std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777, 0o600);
    }
}
