//! The durability Blindfold needs from Redis, checked at every connection: a use acknowledged
//! must survive a Redis crash or restart, so `appendonly yes` with `appendfsync always` (Redis
//! 7.0 has no `WAITAOF`), and with `replicas = N`, N replicas connected for `WAIT`. A server that
//! does not keep them is refused unless the operator chose `durability = "everysec"`, whose loss
//! window (the last second of uses on a crash of the Redis host) is documented.

use super::client::{BackendError, RedisClient};
use crate::config::{RedisConfig, RedisDurability};
use redis::Value;

/// Checks the server's persistence settings (and replicas) against `config`.
pub async fn check(client: &RedisClient, config: &RedisConfig) -> Result<(), BackendError> {
    let mut pipe = redis::pipe();
    pipe.cmd("CONFIG").arg("GET").arg("appendonly");
    pipe.cmd("CONFIG").arg("GET").arg("appendfsync");
    pipe.cmd("INFO").arg("replication");
    let answers = client.query(&pipe).await?;
    let [appendonly, appendfsync, replication] = answers.as_slice() else {
        return Err(client.bad("CONFIG GET and INFO gave no three answers"));
    };
    let appendonly = config_value(appendonly).ok_or_else(|| client.bad("CONFIG GET appendonly"))?;
    let appendfsync = config_value(appendfsync).ok_or_else(|| client.bad("CONFIG GET appendfsync"))?;
    let fsync_ok = match config.durability {
        RedisDurability::Always => appendfsync == "always",
        RedisDurability::EverySec => appendfsync == "always" || appendfsync == "everysec",
    };
    if appendonly != "yes" || !fsync_ok {
        let wanted = match config.durability {
            RedisDurability::Always => "appendonly yes and appendfsync always",
            RedisDurability::EverySec => "appendonly yes and appendfsync everysec or always",
        };
        return Err(client.not_ready(format!(
            "it runs with appendonly {appendonly} and appendfsync {appendfsync}; Blindfold needs {wanted} \
             so that no spent grant can run again after a Redis restart (or set [state.redis] durability = \
             \"everysec\" to accept losing the last second of uses on a crash, see docs/scale-out.md)"
        )));
    }
    if config.replicas > 0 {
        let info = text(replication).ok_or_else(|| client.bad("INFO replication"))?;
        let connected = online_replicas(&info);
        if connected < config.replicas {
            return Err(client.not_ready(format!(
                "{connected} replicas are connected and in sync; [state.redis] replicas asks every use to reach {}",
                config.replicas
            )));
        }
    }
    Ok(())
}

/// Replicas in `INFO replication` that are in sync (`state=online`): one still loading its first
/// copy is connected but cannot acknowledge a write yet.
fn online_replicas(info: &str) -> u32 {
    let online = info
        .lines()
        .filter(|l| l.starts_with("slave") && l.contains(':'))
        .filter(|l| l.split(',').any(|f| f.trim() == "state=online"))
        .count();
    u32::try_from(online).unwrap_or(u32::MAX)
}

/// The value of a `CONFIG GET name` answer (`[name, value]`, or a map in RESP3).
fn config_value(v: &Value) -> Option<String> {
    match v {
        Value::Array(items) if items.len() == 2 => text(&items[1]),
        Value::Map(pairs) if pairs.len() == 1 => text(&pairs[0].1),
        _ => None,
    }
}

/// A string answer.
pub fn text(v: &Value) -> Option<String> {
    match v {
        Value::BulkString(b) => String::from_utf8(b.clone()).ok(),
        Value::SimpleString(s) => Some(s.clone()),
        Value::VerbatimString { text, .. } => Some(text.clone()),
        _ => None,
    }
}

/// An integer answer.
pub fn int(v: &Value) -> Option<i64> {
    match v {
        Value::Int(n) => Some(*n),
        other => text(other).and_then(|s| s.parse().ok()),
    }
}

#[cfg(test)]
mod tests {
    use super::online_replicas;

    #[test]
    fn only_replicas_in_sync_count() {
        let info = "# Replication\r\nrole:master\r\nconnected_slaves:2\r\n\
            slave0:ip=127.0.0.1,port=7001,state=wait_bgsave,offset=0,lag=0\r\n\
            slave1:ip=127.0.0.1,port=7002,state=online,offset=140,lag=0\r\nmaster_repl_offset:140\r\n";
        assert_eq!(online_replicas(info), 1);
        assert_eq!(online_replicas("role:master\r\nconnected_slaves:0\r\n"), 0);
    }
}
