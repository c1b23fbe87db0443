//! The load generator as a process: `bench-load PORT PATH PAYLOAD RATE CONNS SECONDS [WARMUP]`
//! (PAYLOAD `a2a`, `a2a-stream` or `chat`; RATE 0 = back to back). Prints one JSON line.

use blindfold_bench::loadgen::{LoadSpec, Payload, run};
use std::time::Duration;

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let parsed = (|| {
        Some(LoadSpec {
            port: a.first()?.parse().ok()?,
            path: a.get(1)?.clone(),
            payload: Payload::parse(a.get(2)?)?,
            rate: a.get(3)?.parse().ok()?,
            conns: a.get(4)?.parse().ok()?,
            duration: Duration::from_secs_f64(a.get(5)?.parse().ok()?),
            warmup: Duration::from_secs_f64(a.get(6).map_or(Some(0.5), |w| w.parse().ok())?),
        })
    })();
    let Some(spec) = parsed else {
        eprintln!("usage: bench-load PORT PATH a2a|a2a-stream|chat RATE CONNS SECONDS [WARMUP]");
        std::process::exit(64);
    };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let result = rt.block_on(run(spec));
    println!("{}", result.to_json());
}
