//! Latency samples summarised as percentiles in microseconds.

use serde_json::{Value, json};
use std::time::Duration;

/// Percentiles of a set of latency samples, microseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Summary {
    /// Number of samples.
    pub n: usize,
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Largest sample.
    pub max: f64,
    /// Mean.
    pub mean: f64,
}

/// The `q` quantile (0..=1) of sorted samples by the nearest-rank method.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The median of some values (the mean of the two middle ones for an even count).
pub fn median(values: &[f64]) -> f64 {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 { v[m] } else { (v[m - 1] + v[m]) / 2.0 }
}

impl Summary {
    /// Summarises durations.
    pub fn of(samples: &[Duration]) -> Self {
        let us: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1e6).collect();
        Self::of_us(us)
    }

    /// Summarises samples already in microseconds.
    pub fn of_us(mut us: Vec<f64>) -> Self {
        us.sort_by(f64::total_cmp);
        let n = us.len();
        let mean = if n == 0 { 0.0 } else { us.iter().sum::<f64>() / n as f64 };
        Self {
            n,
            p50: quantile(&us, 0.5),
            p99: quantile(&us, 0.99),
            p999: quantile(&us, 0.999),
            max: us.last().copied().unwrap_or(0.0),
            mean,
        }
    }

    /// As JSON (`{n, p50_us, p99_us, p999_us, max_us, mean_us}`).
    pub fn to_json(&self) -> Value {
        json!({"n": self.n, "p50_us": self.p50, "p99_us": self.p99, "p999_us": self.p999,
               "max_us": self.max, "mean_us": self.mean})
    }

    /// Reads the JSON written by [`Summary::to_json`] (missing fields are zero).
    pub fn from_json(v: &Value) -> Self {
        let f = |k: &str| v.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        Self {
            n: v.get("n").and_then(Value::as_u64).unwrap_or(0) as usize,
            p50: f("p50_us"),
            p99: f("p99_us"),
            p999: f("p999_us"),
            max: f("max_us"),
            mean: f("mean_us"),
        }
    }

    /// One summary for several measurements of the same thing taken one after another (the
    /// slices of a round): counts added, the mean weighted by them, the largest maximum, and each
    /// percentile the median of the parts' (the parts' samples are not kept, so this is an
    /// estimate, not the percentile of the union).
    pub fn merge(parts: &[Summary]) -> Self {
        let n: usize = parts.iter().map(|s| s.n).sum();
        let weighted: f64 = parts.iter().map(|s| s.mean * s.n as f64).sum();
        let of = |f: fn(&Summary) -> f64| median(&parts.iter().map(f).collect::<Vec<_>>());
        Self {
            n,
            p50: of(|s| s.p50),
            p99: of(|s| s.p99),
            p999: of(|s| s.p999),
            max: parts.iter().map(|s| s.max).fold(0.0, f64::max),
            mean: if n == 0 { 0.0 } else { weighted / n as f64 },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles_and_medians() {
        let s = Summary::of_us((1..=1000).map(f64::from).collect());
        assert_eq!((s.n, s.p50, s.p99, s.p999, s.max), (1000, 500.0, 990.0, 999.0, 1000.0));
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
        assert_eq!(Summary::from_json(&s.to_json()), s);
    }

    #[test]
    fn merged_summaries_add_counts_weight_means_and_take_median_percentiles() {
        let a = Summary::of_us(vec![1.0, 2.0, 3.0]);
        let b = Summary::of_us(vec![10.0; 6]);
        let c = Summary::of_us(vec![100.0]);
        let m = Summary::merge(&[a, b, c]);
        assert_eq!(m.n, 10);
        assert_eq!(m.mean, (6.0 + 60.0 + 100.0) / 10.0);
        assert_eq!((m.p50, m.p99, m.max), (10.0, 10.0, 100.0));
        assert_eq!(Summary::merge(&[]).n, 0);
    }
}
