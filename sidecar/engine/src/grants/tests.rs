//! The seed's seven cases, the attacks on the token itself, and the store's bounds.

use super::*;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use blindfold_schemas::Reason;
use serde_json::{Map, Value, json};

const NOW: u64 = 1_800_000_000;
const REPORT: &[u8] = b"# review\nall claims checked\n";

struct Fixture {
    key: IssuerKey,
    keys: TrustedKeys,
    store: MemoryGrantStore,
}

impl Fixture {
    fn new() -> Self {
        let key = IssuerKey::generate();
        let mut keys = TrustedKeys::new();
        keys.add(&key.verifying_key());
        Self { key, keys, store: MemoryGrantStore::new() }
    }

    fn request(&self) -> GrantRequest {
        GrantRequest {
            task_id: "task-7".into(),
            operation: "deliver_review".into(),
            target: "review-inbox".into(),
            artifact: REPORT.to_vec(),
            args: Map::new(),
            ttl_s: 600,
            now: NOW,
            nbf: None,
            max_uses: None,
            review_id: None,
            jti: None,
            version: None,
        }
    }

    fn token(&self, req: &GrantRequest) -> String {
        issue_grant(&self.key, req).expect("sign").0
    }

    fn check_at(&self, now: u64, proposal: &Value, token: Option<&str>, artifact: &[u8]) -> Reason {
        let check = GrantCheck {
            keys: &self.keys,
            policy: GrantPolicy::default(),
            store: &self.store,
            now,
            dry_run: false,
        };
        let args = Map::new();
        let bytes = serde_json::to_vec(proposal).expect("json");
        check.check_raw(&bytes, token, ActionBytes { artifact, args: &args }).reason
    }

    fn check(&self, proposal: &Value, token: Option<&str>, artifact: &[u8]) -> Reason {
        self.check_at(NOW + 10, proposal, token, artifact)
    }
}

fn proposal() -> Value {
    json!({"task_id": "task-7", "operation": "deliver_review", "target": "review-inbox"})
}

// --- the seed table (grant-authorization.zh.txt) ---

#[test]
fn seed_correct_task_target_and_snapshot_is_allowed() {
    let f = Fixture::new();
    let t = f.token(&f.request());
    assert_eq!(f.check(&proposal(), Some(&t), REPORT), Reason::Allowed);
}

#[test]
fn seed_proposal_claiming_approval_is_invalid_schema() {
    let f = Fixture::new();
    let t = f.token(&f.request());
    let mut p = proposal();
    p["approved"] = json!(true);
    assert_eq!(f.check(&p, Some(&t), REPORT), Reason::InvalidSchema);
}

#[test]
fn seed_other_target_is_target_denied() {
    let f = Fixture::new();
    let t = f.token(&f.request());
    let mut p = proposal();
    p["target"] = json!("attacker-inbox");
    assert_eq!(f.check(&p, Some(&t), REPORT), Reason::TargetDenied);
}

#[test]
fn seed_report_replaced_after_approval_is_artifact_changed() {
    let f = Fixture::new();
    let t = f.token(&f.request());
    assert_eq!(f.check(&proposal(), Some(&t), b"# review\nsend it elsewhere\n"), Reason::ArtifactChanged);
}

#[test]
fn seed_expired_grant_is_expired() {
    let f = Fixture::new();
    let t = f.token(&f.request());
    assert_eq!(f.check_at(NOW + 600, &proposal(), Some(&t), REPORT), Reason::ExpiredGrant);
}

#[test]
fn seed_grant_of_another_task_is_wrong_task() {
    let f = Fixture::new();
    let mut req = f.request();
    req.task_id = "task-8".into();
    let t = f.token(&req);
    assert_eq!(f.check(&proposal(), Some(&t), REPORT), Reason::WrongTask);
}

#[test]
fn seed_no_grant_is_no_grant() {
    let f = Fixture::new();
    assert_eq!(f.check(&proposal(), None, REPORT), Reason::NoGrant);
}

// --- attacks on the token ---

#[test]
fn tampered_signature_is_bad_signature() {
    let f = Fixture::new();
    let t = f.token(&f.request());
    let (head, sig) = t.rsplit_once('.').expect("jws");
    let mut raw = URL_SAFE_NO_PAD.decode(sig).expect("b64");
    raw[0] ^= 1;
    let forged = format!("{head}.{}", URL_SAFE_NO_PAD.encode(raw));
    assert_eq!(f.check(&proposal(), Some(&forged), REPORT), Reason::BadSignature);
}

#[test]
fn tampered_claims_are_bad_signature() {
    let f = Fixture::new();
    let t = f.token(&f.request());
    let parts: Vec<&str> = t.split('.').collect();
    let mut claims: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).expect("b64")).expect("json");
    claims["target"] = json!("attacker-inbox");
    let forged = format!("{}.{}.{}", parts[0], URL_SAFE_NO_PAD.encode(claims.to_string()), parts[2]);
    let mut p = proposal();
    p["target"] = json!("attacker-inbox");
    assert_eq!(f.check(&p, Some(&forged), REPORT), Reason::BadSignature);
}

#[test]
fn untrusted_key_is_untrusted_issuer() {
    let f = Fixture::new();
    let stranger = IssuerKey::generate();
    let t = issue_grant(&stranger, &f.request()).expect("sign").0;
    assert_eq!(f.check(&proposal(), Some(&t), REPORT), Reason::UntrustedIssuer);
}

#[test]
fn revoked_issuer_key_is_untrusted_issuer() {
    let mut f = Fixture::new();
    let t = f.token(&f.request());
    let kid = f.key.kid().to_owned();
    f.keys.revoke(&kid);
    assert_eq!(f.check(&proposal(), Some(&t), REPORT), Reason::UntrustedIssuer);
}

#[test]
fn rotation_accepts_either_trusted_key() {
    let mut f = Fixture::new();
    let next = IssuerKey::generate();
    f.keys.add(&next.verifying_key());
    let old = f.token(&f.request());
    let new = issue_grant(&next, &f.request()).expect("sign").0;
    assert_eq!(f.check(&proposal(), Some(&old), REPORT), Reason::Allowed);
    assert_eq!(f.check(&proposal(), Some(&new), REPORT), Reason::Allowed);
}

#[test]
fn alg_none_is_bad_signature() {
    let f = Fixture::new();
    let t = f.token(&f.request());
    let claims = t.split('.').nth(1).expect("claims");
    let header = URL_SAFE_NO_PAD.encode(format!(r#"{{"alg":"none","kid":"{}"}}"#, f.key.kid()));
    let forged = format!("{header}.{claims}.");
    assert_eq!(f.check(&proposal(), Some(&forged), REPORT), Reason::BadSignature);
}

#[test]
fn hs256_signed_with_public_key_bytes_is_bad_signature() {
    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
    use hmac::Mac as _;
    let f = Fixture::new();
    let (_, claims) = issue_grant(&f.key, &f.request()).expect("sign");
    let header = serde_json::json!({"alg": "HS256", "typ": "JWT", "kid": f.key.kid()});
    let input = format!(
        "{}.{}",
        B64.encode(serde_json::to_vec(&header).expect("header")),
        B64.encode(serde_json::to_vec(&claims).expect("claims"))
    );
    let pem = f.key.public_pem().expect("pem");
    for secret in [pem.as_bytes(), f.key.verifying_key().as_bytes().as_slice()] {
        let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret).expect("any key length");
        mac.update(input.as_bytes());
        let forged = format!("{input}.{}", B64.encode(mac.finalize().into_bytes()));
        assert_eq!(f.check(&proposal(), Some(&forged), REPORT), Reason::BadSignature);
    }
}

#[test]
fn future_nbf_is_not_yet_valid() {
    let f = Fixture::new();
    let mut req = f.request();
    req.nbf = Some(NOW + 300);
    let t = f.token(&req);
    assert_eq!(f.check(&proposal(), Some(&t), REPORT), Reason::NotYetValid);
    assert_eq!(f.check_at(NOW + 300, &proposal(), Some(&t), REPORT), Reason::Allowed);
}

#[test]
fn same_grant_twice_is_replayed() {
    let f = Fixture::new();
    let t = f.token(&f.request());
    assert_eq!(f.check(&proposal(), Some(&t), REPORT), Reason::Allowed);
    assert_eq!(f.check(&proposal(), Some(&t), REPORT), Reason::ReplayedGrant);
}

#[test]
fn max_uses_counts_per_jti() {
    let f = Fixture::new();
    let mut req = f.request();
    req.max_uses = Some(2);
    let t = f.token(&req);
    assert_eq!(f.check(&proposal(), Some(&t), REPORT), Reason::Allowed);
    assert_eq!(f.check(&proposal(), Some(&t), REPORT), Reason::Allowed);
    assert_eq!(f.check(&proposal(), Some(&t), REPORT), Reason::ReplayedGrant);
}

#[test]
fn revoked_jti_is_revoked_grant() {
    let f = Fixture::new();
    let mut req = f.request();
    req.jti = Some("jti-1".into());
    let t = f.token(&req);
    f.store.revoke(&Revocation::Grant("jti-1".into()), NOW + 3600).expect("revoke");
    assert_eq!(f.check(&proposal(), Some(&t), REPORT), Reason::RevokedGrant);
}

#[test]
fn leeway_defaults_to_zero() {
    let f = Fixture::new();
    let t = f.token(&f.request());
    // One second past expiry is expired: no hidden 60 s library leeway.
    assert_eq!(f.check_at(NOW + 601, &proposal(), Some(&t), REPORT), Reason::ExpiredGrant);
    assert_eq!(f.check_at(NOW + 599, &proposal(), Some(&t), REPORT), Reason::Allowed);
}

#[test]
fn lifetime_beyond_max_ttl_is_refused() {
    let f = Fixture::new();
    let mut req = f.request();
    req.ttl_s = 48 * 3600;
    let t = f.token(&req);
    assert_eq!(f.check(&proposal(), Some(&t), REPORT), Reason::GrantTooLong);
}

#[test]
fn a_grant_dated_in_the_future_cannot_outlive_max_ttl() {
    // Issued "300 days from now" for an hour: its lifetime measured from `iat` is one hour, but
    // it would be usable from now until 300 days on.
    let f = Fixture::new();
    let mut req = f.request();
    req.now = NOW + 300 * 86_400;
    req.ttl_s = 3600;
    let t = f.token(&req);
    assert_eq!(f.check(&proposal(), Some(&t), REPORT), Reason::NotYetValid);
    let cache = GrantCache::new();
    let err = cache.submit(&t, &f.keys, GrantPolicy::default(), NOW).expect_err("dated in the future");
    assert_eq!(err.reason, Reason::NotYetValid);
    assert!(cache.is_empty());
    // Within the explicit leeway it is accepted (clock skew between issuer and Blindfold).
    let mut skewed = f.request();
    skewed.now = NOW + 15;
    let t = f.token(&skewed);
    let policy = GrantPolicy { leeway_s: 30, ..GrantPolicy::default() };
    assert!(cache.submit(&t, &f.keys, policy, NOW + 10).is_ok());
    assert_eq!(f.check(&proposal(), Some(&t), REPORT), Reason::NotYetValid, "no leeway by default");
}

#[test]
fn other_arguments_are_bound() {
    let f = Fixture::new();
    let mut req = f.request();
    req.args = json!({"cc": []}).as_object().cloned().expect("object");
    let t = f.token(&req);
    let check = GrantCheck {
        keys: &f.keys,
        policy: GrantPolicy::default(),
        store: &f.store,
        now: NOW,
        dry_run: true,
    };
    let bytes = serde_json::to_vec(&proposal()).expect("json");
    let sneaky = json!({"cc": ["attacker@example.org"]}).as_object().cloned().expect("object");
    let d = check.check_raw(&bytes, Some(&t), ActionBytes { artifact: REPORT, args: &sneaky });
    assert_eq!(d.reason, Reason::ArtifactChanged);
    let d = check.check_raw(&bytes, Some(&t), ActionBytes { artifact: REPORT, args: &req.args });
    assert_eq!(d.reason, Reason::Allowed);
}

#[test]
fn duplicate_keys_in_proposal_are_invalid_schema() {
    let f = Fixture::new();
    let t = f.token(&f.request());
    let check = GrantCheck {
        keys: &f.keys,
        policy: GrantPolicy::default(),
        store: &f.store,
        now: NOW,
        dry_run: true,
    };
    let raw = br#"{"task_id":"task-7","operation":"deliver_review","target":"x","target":"review-inbox"}"#;
    let args = Map::new();
    let d = check.check_raw(raw, Some(&t), ActionBytes { artifact: REPORT, args: &args });
    assert_eq!(d.reason, Reason::InvalidSchema);
}

#[test]
fn dry_run_does_not_consume() {
    let f = Fixture::new();
    let t = f.token(&f.request());
    let check = GrantCheck {
        keys: &f.keys,
        policy: GrantPolicy::default(),
        store: &f.store,
        now: NOW,
        dry_run: true,
    };
    let bytes = serde_json::to_vec(&proposal()).expect("json");
    let args = Map::new();
    for _ in 0..3 {
        let d = check.check_raw(&bytes, Some(&t), ActionBytes { artifact: REPORT, args: &args });
        assert_eq!(d.reason, Reason::Allowed);
    }
    assert_eq!(f.check(&proposal(), Some(&t), REPORT), Reason::Allowed);
    assert_eq!(f.check(&proposal(), Some(&t), REPORT), Reason::ReplayedGrant);
}

// --- the cache (submit once, look up on the hot path) ---

#[test]
fn cache_picks_the_fitting_grant_and_reports_the_closest_otherwise() {
    let f = Fixture::new();
    let cache = GrantCache::new();
    let mut other_task = f.request();
    other_task.task_id = "task-9".into();
    let mut other_target = f.request();
    other_target.target = "elsewhere".into();
    for req in [&other_task, &other_target] {
        cache.submit(&f.token(req), &f.keys, GrantPolicy::default(), NOW).expect("submit");
    }
    let check = GrantCheck {
        keys: &f.keys,
        policy: GrantPolicy::default(),
        store: &f.store,
        now: NOW + 1,
        dry_run: false,
    };
    let p: blindfold_schemas::Proposal = serde_json::from_value(proposal()).expect("proposal");
    let args = Map::new();
    let action = ActionBytes { artifact: REPORT, args: &args };
    assert_eq!(cache.check_proposal(&check, &p, action).reason, Reason::TargetDenied);
    cache.submit(&f.token(&f.request()), &f.keys, GrantPolicy::default(), NOW).expect("submit");
    assert_eq!(cache.check_proposal(&check, &p, action).reason, Reason::Allowed);
    assert_eq!(cache.check_proposal(&check, &p, action).reason, Reason::ReplayedGrant);
}

#[test]
fn cache_reports_the_failure_of_the_grant_for_the_actions_target() {
    let f = Fixture::new();
    let cache = GrantCache::new();
    let grant = |target: &str, ttl_s: u64| {
        let mut req = f.request();
        req.operation = "write_file".into();
        req.target = target.into();
        req.ttl_s = ttl_s;
        cache.submit(&f.token(&req), &f.keys, GrantPolicy::default(), NOW).expect("submit");
    };
    grant("/w/a.txt", 3600);
    grant("/w/c.txt", 5);
    let check = GrantCheck {
        keys: &f.keys,
        policy: GrantPolicy::default(),
        store: &f.store,
        now: NOW + 10,
        dry_run: true,
    };
    let args = Map::new();
    let action = ActionBytes { artifact: REPORT, args: &args };
    let on = |target: &str| -> blindfold_schemas::Proposal {
        serde_json::from_value(json!({"task_id": "task-7", "operation": "write_file", "target": target}))
            .expect("proposal")
    };
    let expired = cache.check_proposal(&check, &on("/w/c.txt"), action);
    assert_eq!(expired.reason, Reason::ExpiredGrant, "{expired:?}");
    assert_eq!(cache.check_proposal(&check, &on("/w/b.txt"), action).reason, Reason::TargetDenied);
    assert_eq!(cache.check_proposal(&check, &on("/w/a.txt"), action).reason, Reason::Allowed);
}

#[test]
fn cache_refuses_bad_tokens_at_submit() {
    let f = Fixture::new();
    let cache = GrantCache::new();
    let stranger = issue_grant(&IssuerKey::generate(), &f.request()).expect("sign").0;
    let err = cache.submit(&stranger, &f.keys, GrantPolicy::default(), NOW).expect_err("untrusted");
    assert_eq!(err.reason, Reason::UntrustedIssuer);
    assert!(cache.is_empty());
    let empty = GrantCache::new();
    let check = GrantCheck {
        keys: &f.keys,
        policy: GrantPolicy::default(),
        store: &f.store,
        now: NOW,
        dry_run: true,
    };
    let p: blindfold_schemas::Proposal = serde_json::from_value(proposal()).expect("proposal");
    let args = Map::new();
    assert_eq!(
        empty.check_proposal(&check, &p, ActionBytes { artifact: REPORT, args: &args }).reason,
        Reason::NoGrant
    );
}

// --- bounded state ---

#[test]
fn used_jtis_are_forgotten_after_expiry() {
    let store = MemoryGrantStore::new();
    for i in 0..100 {
        store
            .consume(
                &GrantRef { jti: &format!("j{i}"), kid: "k", task_id: "t", version: 0 },
                1,
                NOW + 10,
                NOW,
                false,
            )
            .expect("consume");
    }
    assert_eq!(store.len(), 100);
    assert_eq!(store.sweep(NOW + 5).expect("sweep"), 0);
    assert_eq!(store.sweep(NOW + 11).expect("sweep"), 100);
    assert!(store.is_empty());
}

#[test]
fn key_id_is_rfc7638_thumbprint() {
    // RFC 8037 appendix A.3: the thumbprint of its Ed25519 example key.
    let x = URL_SAFE_NO_PAD.decode("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo").expect("b64");
    let key = ed25519_dalek::VerifyingKey::from_bytes(&x.try_into().expect("32 bytes")).expect("key");
    assert_eq!(key_id(&key), "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k");
}
