//! The Lua scripts Blindfold runs on Redis (each one atomic step), sent by hash: one round trip
//! each, two only the first time after Redis forgot its script cache (a restart).

use super::client::{BackendError, RedisClient, Trip};
use redis::{Pipeline, Value};

/// A script and its SHA-1.
pub struct LuaScript {
    script: redis::Script,
    code: &'static str,
}

/// Grant-use check-and-consume.
pub static CONSUME: std::sync::LazyLock<LuaScript> =
    std::sync::LazyLock::new(|| LuaScript::new(include_str!("lua/consume.lua")));
/// Revocation write and announcement.
pub static REVOKE: std::sync::LazyLock<LuaScript> =
    std::sync::LazyLock::new(|| LuaScript::new(include_str!("lua/revoke.lua")));
/// Revocations read for catching up.
pub static SNAPSHOT: std::sync::LazyLock<LuaScript> =
    std::sync::LazyLock::new(|| LuaScript::new(include_str!("lua/snapshot.lua")));
/// A review held (or the action's existing item found).
pub static REVIEW_SUBMIT: std::sync::LazyLock<LuaScript> =
    std::sync::LazyLock::new(|| LuaScript::new(include_str!("lua/review_submit.lua")));
/// A review answered, once.
pub static REVIEW_ANSWER: std::sync::LazyLock<LuaScript> =
    std::sync::LazyLock::new(|| LuaScript::new(include_str!("lua/review_answer.lua")));
/// Expired revocations forgotten.
pub static SWEEP: std::sync::LazyLock<LuaScript> =
    std::sync::LazyLock::new(|| LuaScript::new(include_str!("lua/sweep.lua")));

impl LuaScript {
    fn new(code: &'static str) -> Self {
        Self { script: redis::Script::new(code), code }
    }

    /// `EVALSHA` (or `EVAL` when `by_text`) of this script with `keys` and `args`, added to `pipe`.
    fn add(&self, pipe: &mut Pipeline, keys: &[&str], args: &[&str], by_text: bool) {
        let cmd = pipe.cmd(if by_text { "EVAL" } else { "EVALSHA" });
        cmd.arg(if by_text { self.code } else { self.script.get_hash() }).arg(keys.len()).arg(keys).arg(args);
    }

    /// Runs the script once, followed in the same round trip by `then` (e.g. `WAIT`): the
    /// script's answer first, then the others'.
    pub fn run_blocking(
        &self,
        client: &RedisClient,
        keys: &[&str],
        args: &[&str],
        then: &[redis::Cmd],
        trip: Trip,
    ) -> Result<Vec<Value>, BackendError> {
        let pipe = |by_text| {
            let mut pipe = redis::pipe();
            self.add(&mut pipe, keys, args, by_text);
            for cmd in then {
                pipe.add_command(cmd.clone());
            }
            pipe
        };
        match client.query_blocking(pipe(false), trip) {
            Err(BackendError::BadAnswer { detail, .. }) if no_script(&detail) => {
                client.query_blocking(pipe(true), trip)
            }
            other => other,
        }
    }

    /// [`LuaScript::run_blocking`] for async callers (the feed).
    pub async fn run(
        &self,
        client: &RedisClient,
        keys: &[&str],
        args: &[&str],
    ) -> Result<Value, BackendError> {
        let pipe = |by_text| {
            let mut pipe = redis::pipe();
            self.add(&mut pipe, keys, args, by_text);
            pipe
        };
        let answers = match client.query(&pipe(false)).await {
            Err(BackendError::BadAnswer { detail, .. }) if no_script(&detail) => {
                client.query(&pipe(true)).await
            }
            other => other,
        }?;
        answers.into_iter().next().ok_or_else(|| client.bad("no answer to a script"))
    }
}

/// True when Redis does not know the script (it restarted and forgot its cache).
fn no_script(detail: &str) -> bool {
    detail.to_ascii_lowercase().contains("noscript")
}
