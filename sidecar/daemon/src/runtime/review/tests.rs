//! Review queue: durable across reopen, bounded, expiring, answered only by a grant bound to
//! exactly the held proposal, waking its waiters.

use super::*;
use blindfold_engine::canonical::{args_sha256, sha256_hex};
use blindfold_engine::grants::{ActionBytes, GrantCheck, IssuerKey, MemoryGrantStore, new_jti, sign_claims};
use blindfold_engine::{Registry, Step, Trajectory};
use blindfold_schemas::{CheckId, Decision, GrantClaims, ModeSet, Proposal, Reason, Verdict};
use serde_json::{Map, Value, json};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

struct Fixture {
    key: IssuerKey,
    keys: TrustedKeys,
    grants: Arc<GrantCache>,
}

impl Fixture {
    fn new() -> Self {
        let key = IssuerKey::generate();
        let mut keys = TrustedKeys::new();
        keys.add(&key.verifying_key());
        Self { key, keys, grants: Arc::new(GrantCache::new()) }
    }

    fn open(&self, dir: &Path, config: ReviewConfig) -> Arc<Reviews> {
        let deps = ReviewDeps {
            grants: self.grants.clone(),
            keys: self.keys.clone(),
            policy: GrantPolicy::default(),
            trace: None,
            modes: Arc::new(watch::channel(ModeSet::ALL).0),
            judge: None,
            metrics: None,
        };
        Arc::new(Reviews::open(dir, config, deps).expect("open review store"))
    }

    /// A grant signed for `item`, with `edit` applied to its claims before signing.
    fn grant_for(&self, item: &ReviewItem, edit: impl FnOnce(&mut GrantClaims)) -> String {
        let now = crate::unix_now();
        let mut claims = GrantClaims {
            task_id: item.proposal.task_id.clone(),
            operation: item.proposal.operation.clone(),
            target: item.proposal.target.clone(),
            artifact_sha256: item.artifact_sha256.clone(),
            args_sha256: item.args_sha256.clone(),
            exp: now + 600,
            iat: now,
            jti: new_jti(),
            nbf: None,
            max_uses: None,
            review_id: Some(item.id.clone()),
            version: None,
        };
        edit(&mut claims);
        sign_claims(&self.key, &claims).expect("sign")
    }
}

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().expect("object")
}

/// The step the cascade returns for a contradicted write of `content` to `path`.
fn held_step(path: &str, content: &str) -> Step {
    let a = args(json!({"path": path, "content": content}));
    let action = Registry::defaults().derive("write_file", &a);
    let fingerprint = blindfold_engine::action::fingerprint(&Registry::defaults(), "write_file", &a);
    Step {
        decision: Some(
            Decision::review(Reason::Contradicted, CheckId::Contradiction)
                .with_detail("contradicting evidence stands"),
        ),
        enforced: true,
        action: Some(action),
        fingerprint: Some(fingerprint),
        ..Step::default()
    }
}

fn hold(r: &Arc<Reviews>, t: &mut Trajectory, path: &str, now_ms: u64) -> Decision {
    r.hold(t, "coordinator", "write_file", held_step(path, "hello"), now_ms).decision.expect("decision")
}

fn only_pending(r: &Reviews) -> ReviewItem {
    let pending = r.list(Some(ReviewStatus::Pending)).expect("list");
    assert_eq!(pending.len(), 1, "{pending:?}");
    pending[0].clone()
}

#[test]
fn a_held_action_survives_a_reopen_and_is_found_again() {
    let dir = tempfile::tempdir().expect("tmp");
    let f = Fixture::new();
    let mut t = Trajectory::new("task-r1");
    let now = crate::unix_now_ms();
    let id = {
        let r = f.open(dir.path(), ReviewConfig::default());
        let d = hold(&r, &mut t, "/w/a.txt", now);
        assert_eq!(d.decision, Verdict::Review);
        let item = only_pending(&r);
        assert!(d.detail.as_deref().is_some_and(|x| x.contains(&item.id)), "{d:?}");
        assert_eq!(item.proposal.target, "/w/a.txt");
        assert_eq!(item.artifact_text.as_deref(), Some("hello"));
        assert_eq!(item.artifact_sha256, blindfold_engine::canonical::sha256_hex(b"hello"));
        item.id
    };
    let r = f.open(dir.path(), ReviewConfig::default());
    assert_eq!(only_pending(&r).id, id, "the pending item survived the reopen");
    let fp = held_step("/w/a.txt", "hello").fingerprint.expect("fp");
    assert_eq!(r.find_pending("task-r1", &fp).as_deref(), Some(id.as_str()));
    // The same action again is the same review, not a new one.
    hold(&r, &mut t, "/w/a.txt", now);
    assert_eq!(r.list(None).expect("list").len(), 1);
}

#[test]
fn the_queue_is_bounded_and_a_full_queue_denies() {
    let dir = tempfile::tempdir().expect("tmp");
    let f = Fixture::new();
    let r =
        f.open(dir.path(), ReviewConfig { max_pending: 2, timeout_secs: 3600, ..ReviewConfig::default() });
    let mut t = Trajectory::new("task-r2");
    let now = crate::unix_now_ms();
    assert_eq!(hold(&r, &mut t, "/w/1", now).decision, Verdict::Review);
    assert_eq!(hold(&r, &mut t, "/w/2", now).decision, Verdict::Review);
    let third = hold(&r, &mut t, "/w/3", now);
    assert_eq!((third.decision, third.reason), (Verdict::Deny, Reason::LimitExceeded), "{third:?}");
    assert_eq!(r.list(Some(ReviewStatus::Pending)).expect("list").len(), 2);
    // Rejecting one frees a slot.
    let first = r.list(None).expect("list")[0].id.clone();
    r.reject(&first, None).expect("reject");
    assert_eq!(hold(&r, &mut t, "/w/3", now).decision, Verdict::Review);
}

#[tokio::test]
async fn an_unanswered_review_expires_and_counts_as_rejected() {
    let dir = tempfile::tempdir().expect("tmp");
    let f = Fixture::new();
    let r = f.open(dir.path(), ReviewConfig { max_pending: 10, timeout_secs: 60, ..ReviewConfig::default() });
    let mut t = Trajectory::new("task-r3");
    // Held two minutes ago with a one-minute timeout: due now.
    let past = crate::unix_now_ms() - 120_000;
    hold(&r, &mut t, "/w/old", past);
    let all = r.list(None).expect("list");
    assert_eq!(all[0].status, ReviewStatus::Expired, "{all:?}");
    assert_eq!(r.wait(&all[0].id, Duration::from_secs(5)).await, ReviewOutcome::Expired);
    let refused = r.reject(&all[0].id, None);
    assert!(matches!(refused, Err(ReviewError::NotPending { .. })), "{refused:?}");
    // An expired review does not block a fresh one for the same action.
    assert_eq!(hold(&r, &mut t, "/w/old", crate::unix_now_ms()).decision, Verdict::Review);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_grant_bound_to_exactly_the_item_approves_it_and_waiters_wake() {
    let dir = tempfile::tempdir().expect("tmp");
    let f = Fixture::new();
    let r = f.open(dir.path(), ReviewConfig::default());
    let mut t = Trajectory::new("task-r4");
    hold(&r, &mut t, "/w/a.txt", crate::unix_now_ms());
    let item = only_pending(&r);

    let other_target = f.grant_for(&item, |c| c.target = "/w/b.txt".into());
    assert!(matches!(r.approve(&item.id, &other_target), Err(ReviewError::BadGrant(_))));
    let other_bytes = f.grant_for(&item, |c| c.artifact_sha256 = "00".repeat(32));
    assert!(matches!(r.approve(&item.id, &other_bytes), Err(ReviewError::BadGrant(_))));
    let no_review = f.grant_for(&item, |c| c.review_id = None);
    assert!(matches!(r.approve(&item.id, &no_review), Err(ReviewError::BadGrant(_))));
    let stranger = IssuerKey::generate();
    let mut forged = GrantClaims {
        jti: new_jti(),
        ..serde_json::from_str(&format!(
            r#"{{"task_id":"task-r4","operation":"write_file","target":"/w/a.txt","artifact_sha256":"{}","args_sha256":"{}","exp":{},"iat":{},"jti":"x"}}"#,
            item.artifact_sha256,
            item.args_sha256,
            crate::unix_now() + 600,
            crate::unix_now()
        ))
        .expect("claims")
    };
    forged.review_id = Some(item.id.clone());
    let forged = sign_claims(&stranger, &forged).expect("sign");
    assert!(matches!(r.approve(&item.id, &forged), Err(ReviewError::BadGrant(_))));
    assert_eq!(only_pending(&r).id, item.id, "refused approvals leave it pending");

    let waiter = {
        let r = r.clone();
        let id = item.id.clone();
        tokio::spawn(async move { r.wait(&id, Duration::from_secs(120)).await })
    };
    let good = f.grant_for(&item, |_| {});
    let approved = r.approve(&item.id, &good).expect("approve");
    assert_eq!(approved.status, ReviewStatus::Approved);
    assert!(waiter.await.expect("join").approved(), "the waiter woke with the approval");
    assert!(matches!(r.approve(&item.id, &good), Err(ReviewError::NotPending { .. })));

    // The grant is cached for exactly those bytes.
    let store = MemoryGrantStore::default();
    let check = GrantCheck {
        keys: &f.keys,
        policy: GrantPolicy::default(),
        store: &store,
        now: crate::unix_now(),
        dry_run: true,
    };
    let a = args(json!({"path": "/w/a.txt", "content": "hello"}));
    let action = Registry::defaults().derive("write_file", &a);
    let bytes = ActionBytes { artifact: &action.artifact, args: &action.args };
    let facts = blindfold_engine::grants::ActionFacts::default();
    let call = blindfold_engine::grants::GrantAction {
        proposal: &item.proposal,
        bytes,
        facts: &facts,
        reconciliation: false,
    };
    assert!(f.grants.matching(&check, &call, |c| c.review_id.is_some()).is_some());

    // After a restart the approval's grant is cached again.
    drop(r);
    let fresh = Fixture { key: f.key, keys: f.keys.clone(), grants: Arc::new(GrantCache::new()) };
    let _reopened = fresh.open(dir.path(), ReviewConfig::default());
    assert_eq!(fresh.grants.targets_for("task-r4"), vec![("write_file".to_owned(), "/w/a.txt".to_owned())]);
}

#[tokio::test]
async fn a_rejected_action_stays_denied() {
    let dir = tempfile::tempdir().expect("tmp");
    let f = Fixture::new();
    let r = f.open(dir.path(), ReviewConfig::default());
    let mut t = Trajectory::new("task-r5");
    hold(&r, &mut t, "/w/x", crate::unix_now_ms());
    let item = only_pending(&r);
    r.reject(&item.id, Some("not this file".into())).expect("reject");
    assert_eq!(
        r.wait(&item.id, Duration::from_secs(5)).await,
        ReviewOutcome::Rejected { reason: Some("not this file".into()) }
    );
    let again = hold(&r, &mut t, "/w/x", crate::unix_now_ms());
    assert_eq!((again.decision, again.reason), (Verdict::Deny, Reason::ReviewRejected), "{again:?}");
    assert!(r.list(Some(ReviewStatus::Pending)).expect("list").is_empty());
}

#[tokio::test]
async fn a_withdrawn_review_cannot_be_approved_and_the_same_action_is_reviewed_anew() {
    let dir = tempfile::tempdir().expect("tmp");
    let f = Fixture::new();
    let r = f.open(dir.path(), ReviewConfig::default());
    let mut t = Trajectory::new("task-r7");
    hold(&r, &mut t, "/w/z", crate::unix_now_ms());
    let item = only_pending(&r);
    let withdrawn = r.withdraw(&item.id, "its task was canceled").expect("withdraw");
    assert_eq!(withdrawn.status, ReviewStatus::Withdrawn);
    assert_eq!(r.wait(&item.id, Duration::from_secs(5)).await, ReviewOutcome::Withdrawn);
    let token = f.grant_for(&item, |_| {});
    let refused = r.approve(&item.id, &token).expect_err("a withdrawn review is not approved");
    assert!(matches!(refused, ReviewError::NotPending { status: ReviewStatus::Withdrawn, .. }), "{refused}");
    assert!(f.grants.targets_for("task-r7").is_empty(), "no grant was cached");
    assert!(matches!(r.withdraw(&item.id, "again"), Err(ReviewError::NotPending { .. })));
    // Not a human's rejection: the same action, asked again, waits in a new review.
    let again = hold(&r, &mut t, "/w/z", crate::unix_now_ms());
    assert_eq!(again.decision, Verdict::Review, "{again:?}");
    assert_ne!(only_pending(&r).id, item.id);
}

#[tokio::test]
async fn a_waiter_times_out_while_the_item_stays_pending() {
    let dir = tempfile::tempdir().expect("tmp");
    let f = Fixture::new();
    let r = f.open(dir.path(), ReviewConfig::default());
    let mut t = Trajectory::new("task-r6");
    hold(&r, &mut t, "/w/y", crate::unix_now_ms());
    let item = only_pending(&r);
    assert_eq!(r.wait(&item.id, Duration::from_millis(20)).await, ReviewOutcome::TimedOut);
    assert_eq!(r.wait("rv-nope", Duration::from_millis(20)).await, ReviewOutcome::Unknown);
    assert_eq!(only_pending(&r).status, ReviewStatus::Pending);
}

#[test]
fn allowed_and_read_steps_are_not_held() {
    let dir = tempfile::tempdir().expect("tmp");
    let f = Fixture::new();
    let r = f.open(dir.path(), ReviewConfig::default());
    let mut t = Trajectory::new("task-r7");
    let mut observe = held_step("/w/z", "x");
    observe.enforced = false;
    let out = r.hold(&mut t, "coordinator", "write_file", observe, crate::unix_now_ms());
    assert_eq!(out.decision.expect("d").decision, Verdict::Review, "observe mode holds nothing");
    let mut denied = held_step("/w/z", "x");
    denied.decision = Some(Decision::deny(Reason::NoGrant, CheckId::Grant));
    r.hold(&mut t, "coordinator", "write_file", denied, crate::unix_now_ms());
    assert!(r.list(None).expect("list").is_empty());
}

/// A pending item for a write to `path` in `task-ret`, created at `at_ms`, due at `expires_ms`.
fn raw_item(path: &str, at_ms: u64, expires_ms: u64) -> ReviewItem {
    let step = held_step(path, "x");
    let action = step.action.expect("action");
    ReviewItem {
        id: item::new_id(),
        trajectory: "task-ret".into(),
        actor: "coordinator".into(),
        tool: "write_file".into(),
        effect: action.effect,
        proposal: Proposal {
            task_id: "task-ret".into(),
            operation: "write_file".into(),
            target: path.into(),
        },
        artifact_sha256: sha256_hex(&action.artifact),
        artifact_len: action.artifact.len() as u64,
        artifact_text: None,
        artifact_base64: None,
        args_sha256: args_sha256(&action.args),
        args: action.args,
        fingerprint: step.fingerprint.expect("fp"),
        decision: step.decision.expect("decision"),
        evidence: Vec::new(),
        disputes: Vec::new(),
        created_ms: at_ms,
        expires_ms,
        status: ReviewStatus::Pending,
        resolved_ms: None,
        note: None,
        rejected_reason: None,
        grant_jti: None,
        grant_exp: None,
    }
}

fn submit(store: &ReviewStore, item: &ReviewItem, now_ms: u64) {
    let (out, _) = store.submit(item.clone(), 100, now_ms).expect("submit");
    assert!(matches!(out, Submitted::Created(_)), "{out:?}");
}

fn answer(store: &ReviewStore, id: &str, now_ms: u64, status: ReviewStatus, grant_exp: Option<u64>) {
    store
        .resolve::<Refusal>(id, now_ms, None, |i| {
            i.status = status;
            i.grant_exp = grant_exp;
            Ok(())
        })
        .expect("store")
        .map_err(|_| "refused")
        .expect("resolve");
}

#[test]
fn answered_items_are_purged_after_their_retention_and_pending_ones_never() {
    let dir = tempfile::tempdir().expect("tmp");
    let store = ReviewStore::open(dir.path()).expect("open");
    let far = u64::MAX / 2;
    let pending = raw_item("/w/pending", 1_000, far);
    let rejected = raw_item("/w/rejected", 1_000, far);
    let approved_live = raw_item("/w/approved-live", 1_000, far);
    let approved_done = raw_item("/w/approved-done", 1_000, far);
    let recent = raw_item("/w/recent", 1_000, far);
    let expired = raw_item("/w/expired", 1_000, 1_500);
    for i in [&pending, &rejected, &approved_live, &approved_done, &recent, &expired] {
        submit(&store, i, 1_000);
    }
    answer(&store, &rejected.id, 2_000, ReviewStatus::Rejected, None);
    answer(&store, &approved_live.id, 2_000, ReviewStatus::Approved, Some(far / 1000));
    answer(&store, &approved_done.id, 2_000, ReviewStatus::Approved, Some(3));
    answer(&store, &recent.id, 9_000, ReviewStatus::Rejected, None);
    store.expire(2_000).expect("expire");
    assert_eq!(store.get(&expired.id).expect("get").map(|i| i.status), Some(ReviewStatus::Expired));

    // Keep 5 s, now 10 s: answered at 2 s are due, answered at 9 s are not.
    assert_eq!(store.purge_answered(10_000, 5_000).expect("purge"), 3);
    let left: Vec<String> = store.list().expect("list").into_iter().map(|i| i.id).collect();
    let mut want = vec![pending.id.clone(), approved_live.id.clone(), recent.id.clone()];
    want.sort();
    let mut got = left.clone();
    got.sort();
    assert_eq!(got, want, "pending, a still-valid approval and a recent answer stay");
    // Later, still: a pending item is never purged (it expires first, by its own timeout).
    assert_eq!(store.purge_answered(100_000, 5_000).expect("purge"), 1, "only the recent answer");
    assert!(store.get(&pending.id).expect("get").is_some());
    // A purged rejection no longer blocks the same action: it is a fresh pending item.
    submit(&store, &raw_item("/w/rejected", 20_000, far), 20_000);
}

#[test]
fn opening_the_queue_purges_answers_past_the_configured_retention() {
    let dir = tempfile::tempdir().expect("tmp");
    let now = crate::unix_now_ms();
    let (old, fresh, waiting) = {
        let store = ReviewStore::open(dir.path()).expect("open");
        let old = raw_item("/w/old", now - 7_200_000, now + 3_600_000);
        let fresh = raw_item("/w/fresh", now - 7_200_000, now + 3_600_000);
        let waiting = raw_item("/w/waiting", now - 7_200_000, now + 3_600_000);
        for i in [&old, &fresh, &waiting] {
            submit(&store, i, now - 7_200_000);
        }
        answer(&store, &old.id, now - 7_000_000, ReviewStatus::Rejected, None);
        answer(&store, &fresh.id, now - 60_000, ReviewStatus::Rejected, None);
        (old.id, fresh.id, waiting.id)
    };
    let f = Fixture::new();
    let config = ReviewConfig { keep_answered_secs: 3600, ..ReviewConfig::default() };
    let r = f.open(dir.path(), config);
    let mut ids: Vec<String> = r.list(None).expect("list").into_iter().map(|i| i.id).collect();
    ids.sort();
    let mut want = vec![fresh, waiting];
    want.sort();
    assert_eq!(ids, want, "the answer older than an hour went ({old})");
}
