//! The printed table, the machine description and the JSON file.

use blindfold_bench::gate::Bound;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// One table row: a metric per arm (or one value), with the added cost or ratio.
pub struct Row {
    workload: String,
    metric: String,
    /// direct, floor, blindfold.
    values: [Option<f64>; 3],
    /// Latency-like (show blindfold − direct and the floor multiple) or throughput-like (ratios).
    latency: bool,
    note: String,
}

impl Row {
    /// A metric measured on the three arms.
    pub fn arms(workload: &str, metric: &str, v: [f64; 3], latency: bool) -> Self {
        Self {
            workload: workload.into(),
            metric: metric.into(),
            values: v.map(Some),
            latency,
            note: String::new(),
        }
    }

    /// A metric of Blindfold alone.
    pub fn single(workload: &str, metric: &str, v: f64) -> Self {
        Self {
            workload: workload.into(),
            metric: metric.into(),
            values: [None, None, Some(v)],
            latency: false,
            note: String::new(),
        }
    }

    /// Adds a note.
    pub fn note(mut self, n: String) -> Self {
        self.note = n;
        self
    }

    fn compare(&self) -> String {
        let [Some(d), Some(f), Some(b)] = self.values else { return self.note.clone() };
        let text = if self.latency {
            let (added, floor) = (b - d, f - d);
            format!("+{added:.1} µs ({:.1}× floor's +{floor:.1})", added / floor)
        } else {
            format!("{:.2}× direct, {:.2}× floor", b / d, b / f)
        };
        if self.note.is_empty() { text } else { format!("{text}; {}", self.note) }
    }
}

fn cell(v: Option<f64>) -> String {
    v.map_or("—".into(), |x| if x >= 1000.0 { format!("{x:.0}") } else { format!("{x:.1}") })
}

/// `/proc/loadavg`'s three averages.
pub fn loadavg() -> Vec<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .filter_map(|x| x.parse().ok())
        .collect()
}

/// The machine: cores, CPU model, load averages before and after.
pub fn machine(before: Vec<f64>, after: Vec<f64>) -> Value {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("model name").map(|m| m.trim_start_matches([' ', '\t', ':']).to_owned()))
        .unwrap_or_default();
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    json!({"cores": cores, "cpu": cpu, "loadavg_before": before, "loadavg_after": after})
}

/// Prints the table and the bounds.
pub fn print(rows: &[Row], bounds: &[Bound], machine: &Value) {
    println!(
        "\nBlindfold cost, medians over rounds ({} cores, {}; load average before {} after {})\n",
        machine["cores"],
        machine["cpu"].as_str().unwrap_or("?"),
        machine["loadavg_before"],
        machine["loadavg_after"]
    );
    println!(
        "{:<36} {:<44} {:>10} {:>10} {:>10}  blindfold vs",
        "workload", "metric", "direct", "floor", "blindfold"
    );
    let mut last = "";
    for r in rows {
        let w = if r.workload == last { "" } else { r.workload.as_str() };
        last = &r.workload;
        let [d, f, b] = r.values;
        println!("{w:<36} {:<44} {:>10} {:>10} {:>10}  {}", r.metric, cell(d), cell(f), cell(b), r.compare());
    }
    if !bounds.is_empty() {
        println!("\nAcceptance bounds (docs/performance.md), on the median of the rounds:");
        for b in bounds {
            println!("  {}", b.line());
        }
    }
}

/// `YYYYMMDDTHHMMSSZ` of a time.
fn stamp(t: SystemTime) -> String {
    let secs = t.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = ((secs / 86400) as i64, secs % 86400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}{m:02}{d:02}T{:02}{:02}{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Writes the report to `<dir>/<timestamp>.json`.
pub fn write(dir: &Path, started: SystemTime, report: &Value) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{}.json", stamp(started)));
    std::fs::write(&path, serde_json::to_string_pretty(report).map_err(std::io::Error::other)?)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_are_utc_civil_time() {
        let t = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_796_000_000);
        assert_eq!(stamp(t), "20261130T005320Z");
        assert_eq!(stamp(SystemTime::UNIX_EPOCH), "19700101T000000Z");
    }
}
