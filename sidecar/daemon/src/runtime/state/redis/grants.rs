//! Grant uses and revocations on Redis, behind the same [`GrantStore`] trait as the embedded
//! stores: one `EVALSHA` per use (the use, every revocation check and the expiry in one atomic
//! script), pipelined with `WAIT` when replicas must acknowledge it — one round trip per
//! effectful decision.

use super::RedisState;
use super::client::{BackendError, Trip};
use super::scripts::{CONSUME, REVOKE, SWEEP};
use super::settings::{int, text};
use blindfold_engine::grants::{ConsumeOutcome, GrantRef, GrantStore, Revocation, StoreError};
use redis::Value;
use std::sync::Arc;

/// Most entries the revocation stream keeps (older ones are in the hash; a Blindfold that fell
/// further behind sees a gap and reads the hash again).
const STREAM_KEEP: &str = "10000";

/// The revocation hash's field for `what` and the version argument of the revocation script.
fn field_of(what: &Revocation) -> (String, String) {
    match what {
        Revocation::Grant(jti) => (format!("jti:{jti}"), String::new()),
        Revocation::Issuer(kid) => (format!("kid:{kid}"), String::new()),
        Revocation::TaskBefore { task_id, version } => (format!("task:{task_id}"), version.to_string()),
    }
}

/// The revocation a hash field and its value (`KEEP`, or `VERSION KEEP` for a task) stand for,
/// with how long it is kept; `None` for a field that is no revocation.
pub(super) fn revocation_of(field: &str, value: &str) -> Option<(Revocation, u64)> {
    let mut parts = value.split(' ');
    let (first, second) = (parts.next()?, parts.next());
    if let Some(task_id) = field.strip_prefix("task:") {
        let version = first.parse().ok()?;
        let keep = second?.parse().ok()?;
        return Some((Revocation::TaskBefore { task_id: task_id.to_owned(), version }, keep));
    }
    let keep = first.parse().ok()?;
    if let Some(jti) = field.strip_prefix("jti:") {
        Some((Revocation::Grant(jti.to_owned()), keep))
    } else {
        field.strip_prefix("kid:").map(|kid| (Revocation::Issuer(kid.to_owned()), keep))
    }
}

/// Grant uses and revocations shared by every Blindfold on one Redis.
#[derive(Clone)]
pub struct RedisGrantStore {
    state: Arc<RedisState>,
}

impl RedisGrantStore {
    /// The store over `state`.
    pub fn new(state: Arc<RedisState>) -> Self {
        Self { state }
    }

    /// The one atomic use of `grant`, acknowledged once Redis (and `WAIT`ed replicas) have it.
    ///
    /// A dry run (the cascade's early grant check, `check_grant`, a permission request) asks no
    /// one: it answers from the revocations the feed delivered, and the use itself, one round
    /// trip, is the word that counts — so an effectful decision costs one round trip.
    pub fn take_use(
        &self,
        grant: &GrantRef<'_>,
        max_uses: u32,
        keep_until: u64,
        now: u64,
        dry_run: bool,
    ) -> Result<ConsumeOutcome, BackendError> {
        let s = &self.state;
        s.ready()?;
        if dry_run {
            let revoked = s.health.knows_revoked(grant.jti, grant.kid, grant.task_id, grant.version, now);
            return Ok(if revoked { ConsumeOutcome::Revoked } else { ConsumeOutcome::Consumed });
        }
        let keys = [s.keys.uses(grant.jti), s.keys.revoked(), s.keys.revocation_seq()];
        let args = [
            grant.jti.to_owned(),
            grant.kid.to_owned(),
            grant.task_id.to_owned(),
            grant.version.to_string(),
            max_uses.max(1).to_string(),
            keep_until.to_string(),
            now.to_string(),
            "0".to_owned(),
        ];
        let wait = (s.config.replicas > 0).then(|| {
            let mut cmd = redis::cmd("WAIT");
            cmd.arg(s.config.replicas).arg(s.config.timeout.as_millis() as u64);
            cmd
        });
        let answers =
            CONSUME.run_blocking(&s.client, &refs(&keys), &refs(&args), wait.as_slice(), Trip::Decision)?;
        let outcome =
            parse_outcome(answers.first()).ok_or_else(|| s.client.bad("the use script's answer"))?;
        if let Some(acked) = answers.get(1).and_then(int)
            && acked < i64::from(s.config.replicas)
            && outcome == ConsumeOutcome::Consumed
        {
            return Err(s.client.not_ready(format!(
                "{acked} of {} replicas acknowledged the use in time",
                s.config.replicas
            )));
        }
        Ok(outcome)
    }

    /// Records a revocation and announces it to the fleet; returns its sequence number.
    pub fn revoke_what(&self, what: &Revocation, keep_until: u64) -> Result<u64, BackendError> {
        let s = &self.state;
        let (field, version) = field_of(what);
        let keys = [s.keys.revoked(), s.keys.revocation_seq(), s.keys.revocation_stream()];
        let known =
            if version.is_empty() { keep_until.to_string() } else { format!("{version} {keep_until}") };
        let args = [field.clone(), version, keep_until.to_string(), STREAM_KEEP.to_owned()];
        let answers = REVOKE.run_blocking(&s.client, &refs(&keys), &refs(&args), &[], Trip::Background)?;
        let seq =
            answers.first().and_then(int).ok_or_else(|| s.client.bad("the revocation script's answer"))?;
        // In force here at once; the feed brings the stored value (and to every other Blindfold).
        s.health.remember(&field, &known);
        if let Revocation::Grant(jti) = what {
            s.revoked_grant(jti);
        }
        u64::try_from(seq).map_err(|_| s.client.bad("a negative sequence number"))
    }
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn parse_outcome(v: Option<&Value>) -> Option<ConsumeOutcome> {
    let Some(Value::Array(items)) = v else { return None };
    match text(items.first()?)?.as_str() {
        "consumed" => Some(ConsumeOutcome::Consumed),
        "replayed" => Some(ConsumeOutcome::Replayed),
        "revoked" => Some(ConsumeOutcome::Revoked),
        _ => None,
    }
}

fn store_error(e: BackendError) -> StoreError {
    StoreError(e.to_string())
}

impl GrantStore for RedisGrantStore {
    fn consume(
        &self,
        grant: &GrantRef<'_>,
        max_uses: u32,
        keep_until: u64,
        now: u64,
        dry_run: bool,
    ) -> Result<ConsumeOutcome, StoreError> {
        self.take_use(grant, max_uses, keep_until, now, dry_run).map_err(store_error)
    }

    fn revoke(&self, what: &Revocation, keep_until: u64) -> Result<(), StoreError> {
        self.revoke_what(what, keep_until).map(|_| ()).map_err(store_error)
    }

    fn is_revoked(&self, grant: &GrantRef<'_>) -> Result<bool, StoreError> {
        // The use script's dry run with no use limit answers exactly "revoked" or not.
        let outcome = self.take_use(grant, u32::MAX, 0, crate::unix_now(), true).map_err(store_error)?;
        Ok(outcome == ConsumeOutcome::Revoked)
    }

    fn uses(&self, jti: &str) -> Result<u32, StoreError> {
        let s = &self.state;
        let mut pipe = redis::pipe();
        pipe.cmd("GET").arg(s.keys.uses(jti));
        let answers = s.client.query_blocking(pipe, Trip::Background).map_err(store_error)?;
        match answers.first() {
            None | Some(Value::Nil) => Ok(0),
            Some(v) => int(v)
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| store_error(s.client.bad("a use counter"))),
        }
    }

    fn revocations(&self) -> Result<Vec<(Revocation, u64)>, StoreError> {
        let s = &self.state;
        let mut pipe = redis::pipe();
        pipe.cmd("HGETALL").arg(s.keys.revoked());
        let answers = s.client.query_blocking(pipe, Trip::Background).map_err(store_error)?;
        let Some(Value::Array(flat)) = answers.first() else {
            return Err(store_error(s.client.bad("the revocation hash")));
        };
        let now = crate::unix_now();
        Ok(flat
            .chunks(2)
            .filter_map(|pair| revocation_of(&text(pair.first()?)?, &text(pair.get(1)?)?))
            .filter(|(_, keep)| *keep >= now)
            .collect())
    }

    fn sweep(&self, now: u64) -> Result<usize, StoreError> {
        let s = &self.state;
        let answers = SWEEP
            .run_blocking(&s.client, &[&s.keys.revoked()], &[&now.to_string()], &[], Trip::Background)
            .map_err(store_error)?;
        let n =
            answers.first().and_then(int).ok_or_else(|| store_error(s.client.bad("the sweep's answer")))?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    /// Used grant ids plus revocations in force (a `SCAN`: for diagnostics, not the hot path).
    fn len(&self) -> usize {
        let s = &self.state;
        let mut cursor = 0u64;
        let mut n = 0usize;
        loop {
            let mut pipe = redis::pipe();
            pipe.cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg(format!("{}*", s.keys.uses("")))
                .arg("COUNT")
                .arg(1000);
            let Ok(answers) = s.client.query_blocking(pipe, Trip::Background) else { return n };
            let Some(Value::Array(parts)) = answers.first() else { return n };
            let (Some(next), Some(Value::Array(found))) = (parts.first().and_then(int), parts.get(1)) else {
                return n;
            };
            n += found.len();
            cursor = u64::try_from(next).unwrap_or(0);
            if cursor == 0 {
                break;
            }
        }
        let mut pipe = redis::pipe();
        pipe.cmd("HLEN").arg(s.keys.revoked());
        let revoked = s
            .client
            .query_blocking(pipe, Trip::Background)
            .ok()
            .and_then(|a| a.first().and_then(int))
            .unwrap_or(0);
        n + usize::try_from(revoked).unwrap_or(0)
    }
}
