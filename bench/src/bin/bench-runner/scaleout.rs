//! The scale-out workload (`--only scaleout`): effectful decisions — a counted grant's use taken
//! at the moment of execution, `check_action` with `consume` — through a Blindfold on the
//! embedded store and through one on a real Redis server, the two alternating round by round;
//! Redis round trips per decision, from Blindfold's own count and from Redis's command
//! statistics; and how long a revocation issued on one of three Blindfolds sharing that Redis
//! takes to be in force on the other two (a dry-run decision there refuses the revoked grant).

use crate::Plan;
use crate::report::Row;
use crate::workloads::Outcome;
use blindfold_bench::control::{self, Socket, sequential_requests};
use blindfold_bench::fleet::{Backend, Instance, Issuer, RedisServer};
use blindfold_bench::gate::{Bound, limits};
use blindfold_bench::stats::{Summary, median};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

const TASK: &str = "bench-scale";
const PATH: &str = "/srv/bench/app.conf";
const CONTENT: &str = "replicas=3";
/// Uses of the measured grant: more than any run takes.
const USES: u32 = 1_000_000_000;
/// Sockets of the throughput load.
const CONNS: usize = 4;
/// How long one revocation may take to be seen before the workload fails (far past the bound).
const GIVE_UP: Duration = Duration::from_secs(10);

/// The effectful call the grant covers, with a call id of its own.
fn the_call(call_id: String, consume: bool, task: &str) -> Value {
    json!({"trajectory": task, "tool": "write_file", "args": {"path": PATH, "content": CONTENT},
           "consume": consume, "call_id": call_id})
}

fn request(round: usize, arm: &'static str, k: usize, id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "check_action",
           "params": the_call(format!("{arm}-{round}-{k}-{id}"), true, TASK)})
    .to_string()
}

/// One arm's measurements of one round.
struct ArmRound {
    single: Summary,
    single_rate: f64,
    concurrent_rate: f64,
    decisions: u64,
}

async fn status_state(ws: &mut Socket) -> Result<Value, String> {
    Ok(control::call(ws, "status", json!({})).await?["state"].clone())
}

async fn submit(port: u16, token: &str, grant: &str) -> Result<(), String> {
    let mut ws = control::open(port, token).await?;
    let answer = control::call(&mut ws, "submit_grant", json!({"token": grant})).await?;
    if answer["accepted"] != true {
        return Err(format!("submit_grant answered {answer}"));
    }
    Ok(())
}

async fn warm_up(port: u16, token: &str) -> Result<(), String> {
    let mut ws = control::open(port, token).await?;
    let d = control::call(&mut ws, "check_action", the_call("warm-up".into(), true, TASK)).await?;
    if d["allowed"] != true {
        return Err(format!("the measured grant was refused: {d}"));
    }
    Ok(())
}

async fn arm_round(
    port: u16,
    token: &str,
    secs: f64,
    round: usize,
    arm: &'static str,
) -> Result<ArmRound, String> {
    let (single_rate, single) =
        sequential_requests(port, token, 1, secs, move |k, id| request(round, arm, k, id)).await?;
    let (concurrent_rate, many) =
        sequential_requests(port, token, CONNS, secs, move |k, id| request(round + 1000, arm, k, id)).await?;
    Ok(ArmRound { decisions: (single.n + many.n) as u64, single, single_rate, concurrent_rate })
}

/// Milliseconds from sending `revoke_grant` of `jti` on `revoker` until each of `others`
/// refuses the grant's call in a dry run.
async fn one_revocation(
    revoker: &mut Socket,
    others: &mut [Socket],
    jti: &str,
    task: &str,
) -> Result<Vec<f64>, String> {
    for ws in others.iter_mut() {
        let before =
            control::call(ws, "check_action", the_call(format!("{task}-before"), false, task)).await?;
        if before["allowed"] != true {
            return Err(format!("before its revocation the grant of {task} was refused: {before}"));
        }
    }
    let t0 = Instant::now();
    let revoked = control::call(revoker, "revoke_grant", json!({"jti": jti})).await?;
    if revoked["revoked"] != jti {
        return Err(format!("revoke_grant answered {revoked}"));
    }
    let mut out = Vec::new();
    for ws in others.iter_mut() {
        loop {
            let d = control::call(ws, "check_action", the_call(format!("{task}-after"), false, task)).await?;
            if d["allowed"] == false {
                out.push(t0.elapsed().as_secs_f64() * 1000.0);
                break;
            }
            if t0.elapsed() > GIVE_UP {
                return Err(format!("revocation of {jti} not in force after {GIVE_UP:?}: {d}"));
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }
    Ok(out)
}

/// `n` revocations, each of its own grant (submitted on all three), issued in turn on each
/// instance: the times until the other two refuse it.
async fn revocations(
    fleet: &[Instance],
    tokens: &[String],
    issuer: &Issuer,
    n: usize,
) -> Result<Vec<f64>, String> {
    let mut grants = Vec::new();
    for i in 0..n {
        let task = format!("bench-revoke-{i}");
        let grant = issuer.write_grant(&task, PATH, CONTENT, 100)?;
        for (inst, token) in fleet.iter().zip(tokens) {
            submit(inst.port, token, &grant).await?;
        }
        grants.push((task, jti_of(&grant)?));
    }
    let mut socks = Vec::new();
    for (inst, token) in fleet.iter().zip(tokens) {
        socks.push(control::open(inst.port, token).await?);
    }
    let mut times = Vec::new();
    for (i, (task, jti)) in grants.iter().enumerate() {
        let r = i % socks.len();
        let mut revoker = socks.remove(r);
        let t = one_revocation(&mut revoker, &mut socks, jti, task).await;
        socks.insert(r, revoker);
        times.extend(t?);
    }
    Ok(times)
}

/// The `jti` claim of a compact JWS (its payload, base64url).
fn jti_of(token: &str) -> Result<String, String> {
    use base64::Engine;
    let payload = token.split('.').nth(1).ok_or("a grant that is not a compact JWS")?;
    let bytes =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload).map_err(|e| e.to_string())?;
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
    v["jti"].as_str().map(str::to_owned).ok_or_else(|| "a grant without jti".to_owned())
}

/// The arms: the embedded store, Redis keeping every use on disk before answering (the default),
/// and Redis in the weaker `everysec` mode (what the fsync costs).
const ARMS: [&str; 3] = ["embedded", "redis", "redis-everysec"];

/// One arm's instance, token and what it measured.
struct ArmState<'a> {
    name: &'static str,
    instance: &'a Instance,
    token: String,
    /// The Redis it uses, for its command statistics.
    redis: Option<&'a RedisServer>,
    rounds: Vec<ArmRound>,
    /// Decision-path round trips (Blindfold's count), use scripts (Redis's count), decisions.
    counts: (u64, u64, u64),
}

fn scripts(redis: Option<&RedisServer>) -> Result<u64, String> {
    redis.map_or(Ok(0), |r| Ok(r.calls("evalsha")? + r.calls("eval")?))
}

fn measure(rt: &tokio::runtime::Runtime, arm: &mut ArmState<'_>, secs: f64, r: usize) -> Result<(), String> {
    let mut ws = rt.block_on(control::open(arm.instance.port, &arm.token))?;
    // The embedded backend makes no round trips and reports none; a Redis arm must report them.
    let embedded = arm.redis.is_none();
    let trips = |s: &Value| {
        (s["round_trips"].as_u64().or(embedded.then_some(0)))
            .ok_or_else(|| format!("{}: status.state has no round_trips: {s}", arm.name))
    };
    let grew = |what: &str, before: u64, after: u64| {
        after
            .checked_sub(before)
            .ok_or_else(|| format!("{}: {what} went down ({before} → {after})", arm.name))
    };
    let before = trips(&rt.block_on(status_state(&mut ws))?)?;
    let scripts_before = scripts(arm.redis)?;
    let x = rt.block_on(arm_round(arm.instance.port, &arm.token, secs, r, arm.name))?;
    let after = trips(&rt.block_on(status_state(&mut ws))?)?;
    arm.counts.0 += grew("round trips", before, after)?;
    arm.counts.1 += grew("Redis script calls", scripts_before, scripts(arm.redis)?)?;
    arm.counts.2 += x.decisions;
    eprintln!(
        "  round {r} {:<14} one socket p50 {:>7.1} µs  p99 {:>8.1} µs  {:>6.0}/s   {CONNS} sockets {:>6.0}/s",
        arm.name, x.single.p50, x.single.p99, x.single_rate, x.concurrent_rate
    );
    arm.rounds.push(x);
    Ok(())
}

/// Runs the workload under `dir`.
pub fn run(plan: &Plan, dir: &Path) -> Result<Outcome, String> {
    let redis = RedisServer::start(&dir.join("redis"), "always")?;
    let lax = RedisServer::start(&dir.join("redis-everysec"), "everysec")?;
    let issuer = Issuer::new(&plan.blindfold, dir)?;
    let embedded = Instance::start(&plan.blindfold, &dir.join("embedded"), &issuer, &Backend::Embedded)?;
    let (url, lax_url) = (redis.url(), lax.url());
    let shared = Backend::Redis { url: &url, prefix: "bench:", durability: "always" };
    let fleet: Vec<Instance> = (0..3)
        .map(|i| Instance::start(&plan.blindfold, &dir.join(format!("redis-{i}")), &issuer, &shared))
        .collect::<Result<_, _>>()?;
    let weak = Backend::Redis { url: &lax_url, prefix: "bench:", durability: "everysec" };
    let everysec = Instance::start(&plan.blindfold, &dir.join("everysec"), &issuer, &weak)?;
    let tokens: Vec<String> = fleet.iter().map(Instance::operator_token).collect::<Result<_, _>>()?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    let grant = issuer.write_grant(TASK, PATH, CONTENT, USES)?;
    let mut arms = Vec::new();
    for (name, instance, server) in
        [(ARMS[0], &embedded, None), (ARMS[1], &fleet[0], Some(&redis)), (ARMS[2], &everysec, Some(&lax))]
    {
        let token = instance.operator_token()?;
        rt.block_on(submit(instance.port, &token, &grant))?;
        // One use before measuring: a Redis that has never run the use script answers the first
        // EVALSHA with NOSCRIPT and is sent the script itself (a second round trip, once).
        rt.block_on(warm_up(instance.port, &token))?;
        arms.push(ArmState { name, instance, token, redis: server, rounds: Vec::new(), counts: (0, 0, 0) });
    }
    for r in 0..plan.rounds {
        for k in 0..arms.len() {
            let i = (r + k) % arms.len();
            measure(&rt, &mut arms[i], plan.secs, r)?;
        }
    }
    let revocation_ms = rt.block_on(revocations(&fleet, &tokens, &issuer, plan.revocations))?;
    let rev = Summary::of_us(revocation_ms.clone());
    eprintln!(
        "  revocations: {} seen, p50 {:.1} ms  p99 {:.1} ms  max {:.1} ms",
        revocation_ms.len(),
        rev.p50,
        rev.p99,
        rev.max
    );
    outcome(&arms, &rev, revocation_ms.len())
}

fn per_decision(arm: &ArmState<'_>) -> (f64, f64) {
    let (trips, scripts, decisions) = arm.counts;
    (trips as f64 / decisions.max(1) as f64, scripts as f64 / decisions.max(1) as f64)
}

fn outcome(arms: &[ArmState<'_>], rev: &Summary, seen: usize) -> Result<Outcome, String> {
    let [emb, red, lax] = arms else { return Err("three arms expected".into()) };
    if red.counts.2 == 0 || lax.counts.2 == 0 {
        return Err("no decision went through a Redis instance".into());
    }
    let med = |a: &ArmState<'_>, f: fn(&ArmRound) -> f64| median(&a.rounds.iter().map(f).collect::<Vec<_>>());
    let paired = |a: &ArmState<'_>, f: fn(&ArmRound) -> f64| {
        median(&a.rounds.iter().zip(&emb.rounds).map(|(x, e)| f(x) - f(e)).collect::<Vec<_>>())
    };
    let ratio = |a: &ArmState<'_>, f: fn(&ArmRound) -> f64| {
        median(&a.rounds.iter().zip(&emb.rounds).map(|(x, e)| f(x) / f(e)).collect::<Vec<_>>())
    };
    let p50 = |x: &ArmRound| x.single.p50;
    let p99 = |x: &ArmRound| x.single.p99;
    let one = |x: &ArmRound| x.single_rate;
    let many = |x: &ArmRound| x.concurrent_rate;
    let w = "scale-out: effectful decision";
    let mut rows = Vec::new();
    for a in arms {
        let vs = |f: fn(&ArmRound) -> f64, unit: &str| {
            if a.name == "embedded" {
                String::new()
            } else {
                format!("{:+.1} {unit} vs embedded", paired(a, f))
            }
        };
        rows.push(
            Row::single(w, &format!("{}: one socket p50 (µs)", a.name), med(a, p50)).note(vs(p50, "µs")),
        );
        rows.push(
            Row::single(w, &format!("{}: one socket p99 (µs)", a.name), med(a, p99)).note(vs(p99, "µs")),
        );
        let r =
            if a.name == "embedded" { String::new() } else { format!("{:.2}× embedded", ratio(a, many)) };
        rows.push(
            Row::single(w, &format!("{}: {CONNS} sockets (decisions/s)", a.name), med(a, many)).note(r),
        );
    }
    for a in [red, lax] {
        let (trips, scripts) = per_decision(a);
        rows.push(
            Row::single(w, &format!("{}: Redis round trips per decision", a.name), trips)
                .note(format!("Redis ran {scripts:.4} scripts per decision")),
        );
    }
    rows.push(
        Row::single("scale-out: revocation on 1 of 3", "in force on the other two p99 (ms)", rev.p99)
            .note(format!("p50 {:.1} ms, max {:.1} ms, {seen} samples", rev.p50, rev.max)),
    );
    let arm_json = |a: &ArmState<'_>| {
        let (trips, scripts) = per_decision(a);
        json!({"rounds": a.rounds.iter().map(round_json).collect::<Vec<_>>(),
               "median": {"p50_us": med(a, p50), "p99_us": med(a, p99), "one_socket_per_s": med(a, one),
                          "concurrent_per_s": med(a, many)},
               "vs_embedded": {"added_p50_us": paired(a, p50), "added_p99_us": paired(a, p99),
                               "one_socket_ratio": ratio(a, one), "concurrent_ratio": ratio(a, many)},
               "decisions": a.counts.2, "round_trips": a.counts.0, "round_trips_per_decision": trips,
               "redis_scripts": a.counts.1, "redis_scripts_per_decision": scripts})
    };
    let json = json!({
        "arms": Value::Object(arms.iter().map(|a| (a.name.to_owned(), arm_json(a))).collect()),
        "revocation_ms": {"samples": seen, "p50": rev.p50, "p99": rev.p99, "max": rev.max},
    });
    let worst = per_decision(red).0.max(per_decision(lax).0);
    let bounds = vec![
        Bound::at_most(
            "scale-out Redis round trips per effectful decision",
            worst,
            limits::REDIS_ROUND_TRIPS,
            "",
        ),
        Bound::at_most(
            "scale-out revocation in force on the fleet p99",
            rev.p99,
            limits::REVOCATION_P99_MS,
            "ms",
        ),
    ];
    Ok(Outcome { json, bounds, rows })
}

fn round_json(x: &ArmRound) -> Value {
    json!({"one_socket": x.single.to_json(), "one_socket_per_s": x.single_rate,
           "concurrent_per_s": x.concurrent_rate, "decisions": x.decisions})
}
