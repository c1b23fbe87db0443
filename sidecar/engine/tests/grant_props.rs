//! Property tests of the grant check: any change to a signed token's bytes is denied, and the
//! check never panics on arbitrary input.

use blindfold_engine::grants::{
    ActionBytes, GrantCheck, GrantPolicy, GrantRequest, IssuerKey, MemoryGrantStore, TrustedKeys, issue_grant,
};
use blindfold_schemas::Reason;
use proptest::prelude::*;
use serde_json::Map;
use std::sync::OnceLock;

const NOW: u64 = 1_800_000_000;
const ARTIFACT: &[u8] = b"approved bytes";
const PROPOSAL: &[u8] = br#"{"task_id":"t","operation":"write_file","target":"/w/a"}"#;

struct Fixture {
    keys: TrustedKeys,
    token: String,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let key = IssuerKey::generate();
        let mut keys = TrustedKeys::new();
        keys.add(&key.verifying_key());
        let req = GrantRequest {
            task_id: "t".into(),
            operation: "write_file".into(),
            target: "/w/a".into(),
            artifact: ARTIFACT.to_vec(),
            args: Map::new(),
            ttl_s: 600,
            now: NOW,
            nbf: None,
            max_uses: None,
            review_id: None,
            jti: None,
            version: None,
        };
        let token = issue_grant(&key, &req).expect("sign").0;
        Fixture { keys, token }
    })
}

fn check(token: &[u8], proposal: &[u8], artifact: &[u8]) -> Reason {
    let f = fixture();
    let store = MemoryGrantStore::new();
    let check = GrantCheck {
        keys: &f.keys,
        policy: GrantPolicy::default(),
        store: &store,
        now: NOW + 1,
        dry_run: false,
    };
    let token = String::from_utf8_lossy(token);
    let args = Map::new();
    check.check_raw(proposal, Some(&token), ActionBytes { artifact, args: &args }).reason
}

#[test]
fn the_untouched_token_is_allowed() {
    assert_eq!(check(fixture().token.as_bytes(), PROPOSAL, ARTIFACT), Reason::Allowed);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_changed_byte_is_denied(pos in any::<prop::sample::Index>(), xor in 1u8..=255) {
        let mut bytes = fixture().token.clone().into_bytes();
        let i = pos.index(bytes.len());
        bytes[i] ^= xor;
        prop_assert_ne!(check(&bytes, PROPOSAL, ARTIFACT), Reason::Allowed);
    }

    #[test]
    fn truncated_or_extended_tokens_are_denied(cut in 0usize..400, tail in "[A-Za-z0-9_.-]{1,8}") {
        let token = &fixture().token;
        let cut = cut.min(token.len() - 1);
        prop_assert_ne!(check(&token.as_bytes()[..cut], PROPOSAL, ARTIFACT), Reason::Allowed);
        let longer = format!("{token}{tail}");
        prop_assert_ne!(check(longer.as_bytes(), PROPOSAL, ARTIFACT), Reason::Allowed);
    }

    #[test]
    fn arbitrary_input_never_panics(
        token in prop::collection::vec(any::<u8>(), 0..600),
        proposal in prop::collection::vec(any::<u8>(), 0..200),
        artifact in prop::collection::vec(any::<u8>(), 0..200),
    ) {
        let reason = check(&token, &proposal, &artifact);
        prop_assert_ne!(reason, Reason::Allowed);
    }

    #[test]
    fn any_other_artifact_is_artifact_changed(artifact in prop::collection::vec(any::<u8>(), 0..64)) {
        prop_assume!(artifact != ARTIFACT);
        prop_assert_eq!(check(fixture().token.as_bytes(), PROPOSAL, &artifact), Reason::ArtifactChanged);
    }
}
