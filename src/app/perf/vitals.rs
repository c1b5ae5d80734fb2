//! The page-load metrics of one run, computed from what the page's Performance APIs recorded,
//! and the statistics and budgets over several runs. Pure logic: no browser here.
//!
//! Rules (all times in ms from the navigation's time origin):
//! - TTFB: the navigation entry's `responseStart`.
//! - FCP: the `first-contentful-paint` paint entry.
//! - LCP: the last `largest-contentful-paint` entry (no input is given, so none is final early).
//! - CLS: as web-vitals computes it: layout shifts without recent input, grouped in session
//!   windows (a new window after a 1 s gap or when the window would exceed 5 s), the largest sum.
//! - TBT: Lighthouse's sum of (duration − 50) over long tasks after FCP (a task straddling FCP
//!   counts only its part after FCP) until TTI, where TTI is taken as the end of the last long
//!   task before the page had [`QUIET_MS`] without long tasks after its load event. Lighthouse
//!   waits for 5 s of CPU and network quiet; a long task after such a 2 s lull is missed here.

use serde::Deserialize;
use serde_json::{json, Value};

/// How long after the load event the page must run no long task for the run to end.
pub(super) const QUIET_MS: u32 = 2000;
/// The longest a run waits for that quiet, from the time origin.
pub(super) const SETTLE_CAP_MS: u32 = 30_000;

const BLOCKING_THRESHOLD_MS: f64 = 50.0;
const SESSION_GAP_MS: f64 = 1000.0;
const SESSION_CAP_MS: f64 = 5000.0;
/// No time recorded in a run can be later than this (an hour): anything else is forged.
const MAX_TIME_MS: f64 = 3_600_000.0;
/// One layout shift scores at most the viewport's area fraction times the move: ≤ 1 each, but
/// the spec allows more for a big move; 10 leaves room while refusing nonsense.
const MAX_SHIFT: f64 = 10.0;

/// What the injected observer hands back (see `observer.js`); every number is checked before use,
/// since the page could have tampered with it.
#[derive(Deserialize, Debug, Default)]
pub(super) struct Recorded {
    ttfb: Option<f64>,
    fcp: Option<f64>,
    lcp: Option<f64>,
    /// `[startTime, value]` of each layout shift without recent input.
    #[serde(default)]
    shifts: Vec<(f64, f64)>,
    /// `[startTime, duration]` of each long task.
    #[serde(default)]
    tasks: Vec<(f64, f64)>,
    /// Whether the quiet window was reached before the cap.
    #[serde(default)]
    pub(super) settled: bool,
}

/// The names, in the order shown, with their unit.
pub(super) const METRICS: &[(&str, &str)] = &[
    ("ttfb", "ms"),
    ("fcp", "ms"),
    ("lcp", "ms"),
    ("cls", ""),
    ("tbt", "ms"),
];

/// One run's metrics, in [`METRICS`] order; `None` when the page never produced it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Metrics(pub(super) [Option<f64>; 5]);

fn time(v: Option<f64>) -> Result<Option<f64>, String> {
    match v {
        Some(t) if !(0.0..=MAX_TIME_MS).contains(&t) => {
            Err(format!("the page reported a time of {t} ms"))
        }
        other => Ok(other),
    }
}

impl Recorded {
    /// The metrics, or why the recorded numbers cannot be right.
    pub(super) fn metrics(&self) -> Result<Metrics, String> {
        let fcp = time(self.fcp)?;
        for &(t, v) in &self.shifts {
            time(Some(t))?;
            if !(0.0..=MAX_SHIFT).contains(&v) {
                return Err(format!("the page reported a layout shift of {v}"));
            }
        }
        for &(t, d) in &self.tasks {
            time(Some(t))?;
            time(Some(d))?;
        }
        let tbt = fcp.map(|fcp| blocking_time(fcp, &self.tasks));
        Ok(Metrics([
            time(self.ttfb)?,
            fcp,
            time(self.lcp)?,
            Some(cumulative_layout_shift(&self.shifts)),
            tbt,
        ]))
    }
}

/// web-vitals' CLS: the largest session window of shifts (ordered by time).
fn cumulative_layout_shift(shifts: &[(f64, f64)]) -> f64 {
    let mut sorted = shifts.to_vec();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut best, mut sum) = (0.0_f64, 0.0_f64);
    let (mut first, mut last) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    for (t, v) in sorted {
        if t - last < SESSION_GAP_MS && t - first < SESSION_CAP_MS {
            sum += v;
        } else {
            first = t;
            sum = v;
        }
        last = t;
        best = best.max(sum);
    }
    best
}

/// Lighthouse's TBT from FCP on; every task recorded counts, as the run ends at the quiet window.
fn blocking_time(fcp: f64, tasks: &[(f64, f64)]) -> f64 {
    tasks
        .iter()
        .map(|&(start, duration)| start + duration - start.max(fcp))
        .filter(|&after_fcp| after_fcp > BLOCKING_THRESHOLD_MS)
        // A fold from +0, not `sum`: an empty f64 sum is −0, shown as "-0 ms".
        .fold(0.0, |total, after_fcp| {
            total + after_fcp - BLOCKING_THRESHOLD_MS
        })
}

/// Median (the mean of the middle two for an even count) and p75 (nearest rank).
fn median_p75(values: &[f64]) -> Option<(f64, f64)> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return None;
    }
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    let rank = (0.75 * n as f64).ceil() as usize;
    Some((median, v[rank.clamp(1, n) - 1]))
}

/// A limit on one metric, from `--budget lcp=2500,cls=0.1`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Budget {
    pub(super) metric: usize,
    pub(super) limit: f64,
}

pub(super) fn parse_budgets(spec: &str) -> Result<Vec<Budget>, String> {
    let mut out = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((name, limit)) = part.split_once('=') else {
            return Err(format!("budget {part:?} is not metric=limit"));
        };
        let name = name.trim().to_ascii_lowercase();
        let Some(metric) = METRICS.iter().position(|(m, _)| *m == name) else {
            return Err(format!(
                "unknown metric {name:?} in the budget (known: ttfb, fcp, lcp, cls, tbt)"
            ));
        };
        let limit: f64 = limit
            .trim()
            .parse()
            .ok()
            .filter(|l: &f64| l.is_finite() && *l >= 0.0)
            .ok_or_else(|| format!("the {name} budget {limit:?} is not a number ≥ 0"))?;
        out.push(Budget { metric, limit });
    }
    Ok(out)
}

/// A metric's summary over the runs that produced it.
pub(super) struct Summary {
    pub(super) median: Option<f64>,
    pub(super) p75: Option<f64>,
    /// The runs that did not produce it.
    pub(super) missing: usize,
}

pub(super) fn summarize(runs: &[Metrics]) -> Vec<Summary> {
    (0..METRICS.len())
        .map(|i| {
            let values: Vec<f64> = runs.iter().filter_map(|m| m.0[i]).collect();
            let stats = median_p75(&values);
            Summary {
                median: stats.map(|s| s.0),
                p75: stats.map(|s| s.1),
                missing: runs.len() - values.len(),
            }
        })
        .collect()
}

/// A budget is kept when the metric's p75 over the runs is within it (Core Web Vitals are judged
/// at p75); a metric no run produced breaks its budget, as nothing shows it is kept.
pub(super) fn broken(budget: &Budget, summary: &[Summary]) -> bool {
    summary
        .get(budget.metric)
        .and_then(|s| s.p75)
        .is_none_or(|p75| p75 > budget.limit)
}

/// A value as shown: times in whole ms, CLS with three decimals.
pub(super) fn show(metric: usize, value: Option<f64>) -> String {
    match (METRICS.get(metric), value) {
        (_, None) => "-".into(),
        (Some((_, "ms")), Some(v)) => format!("{v:.0} ms"),
        (_, Some(v)) => format!("{v:.3}"),
    }
}

pub(super) fn metrics_json(m: &Metrics) -> Value {
    let mut out = serde_json::Map::new();
    for (i, (name, _)) in METRICS.iter().enumerate() {
        out.insert((*name).into(), json!(m.0[i]));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cls_takes_the_largest_session_window() {
        // Two shifts 0.5 s apart form one window; one 1.5 s later starts another.
        assert_eq!(
            cumulative_layout_shift(&[(100.0, 0.1), (600.0, 0.05)]),
            0.1 + 0.05
        );
        let split = cumulative_layout_shift(&[(100.0, 0.1), (1600.0, 0.05), (2000.0, 0.02)]);
        assert_eq!(split, 0.1);
        // A window closes 5 s after its first shift even without a gap.
        let shifts: Vec<(f64, f64)> = (0..12).map(|i| (i as f64 * 900.0, 0.01)).collect();
        assert!((cumulative_layout_shift(&shifts) - 0.06).abs() < 1e-9);
        assert_eq!(cumulative_layout_shift(&[]), 0.0);
    }

    #[test]
    fn tbt_counts_the_part_after_fcp_over_50ms() {
        // Before FCP: nothing. Straddling FCP by 80 ms: 30. After: 200 − 50 = 150. 60 ms: 10.
        let tasks = [(0.0, 90.0), (950.0, 130.0), (2000.0, 200.0), (3000.0, 60.0)];
        assert_eq!(blocking_time(1000.0, &tasks), 30.0 + 150.0 + 10.0);
        assert!(blocking_time(1000.0, &[]).is_sign_positive());
        assert_eq!(show(4, Some(blocking_time(1000.0, &[]))), "0 ms");
    }

    #[test]
    fn median_and_p75() {
        assert_eq!(median_p75(&[3.0, 1.0, 2.0]), Some((2.0, 3.0)));
        assert_eq!(median_p75(&[4.0, 1.0, 3.0, 2.0]), Some((2.5, 3.0)));
        assert_eq!(median_p75(&[7.0]), Some((7.0, 7.0)));
        assert_eq!(median_p75(&[]), None);
    }

    #[test]
    fn budgets_parse_and_break() {
        let b = parse_budgets("lcp=2500, CLS=0.1,tbt=200").unwrap();
        assert_eq!(
            b[0],
            Budget {
                metric: 2,
                limit: 2500.0
            }
        );
        assert_eq!(
            b[1],
            Budget {
                metric: 3,
                limit: 0.1
            }
        );
        assert!(parse_budgets("speed=1").is_err());
        assert!(parse_budgets("lcp").is_err());
        assert!(parse_budgets("lcp=-1").is_err());
        assert!(parse_budgets("lcp=NaN").is_err());
        let runs = [
            Metrics([None, Some(10.0), Some(2000.0), Some(0.0), Some(0.0)]),
            Metrics([None, Some(10.0), Some(3000.0), Some(0.0), Some(0.0)]),
        ];
        let s = summarize(&runs);
        assert!(broken(
            &Budget {
                metric: 2,
                limit: 2500.0
            },
            &s
        ));
        assert!(!broken(
            &Budget {
                metric: 2,
                limit: 3000.0
            },
            &s
        ));
        assert!(
            broken(
                &Budget {
                    metric: 0,
                    limit: 1e9
                },
                &s
            ),
            "never measured"
        );
    }

    #[test]
    fn forged_numbers_are_refused() {
        let bad_shift = Recorded {
            shifts: vec![(10.0, f64::INFINITY)],
            ..Default::default()
        };
        assert!(bad_shift.metrics().is_err());
        let negative = Recorded {
            lcp: Some(-5.0),
            ..Default::default()
        };
        assert!(negative.metrics().is_err());
        let nan = Recorded {
            ttfb: Some(f64::NAN),
            ..Default::default()
        };
        assert!(nan.metrics().is_err());
        let fine = Recorded {
            fcp: Some(100.0),
            tasks: vec![(200.0, 150.0)],
            ..Default::default()
        };
        assert_eq!(fine.metrics().unwrap().0[4], Some(100.0));
    }
}
