//! `devtools-mcp perf --url URL`: N cold loads of a page, each traced and analysed as
//! `performance_start_trace` does (about:blank, then the page with the cache off, stop 5 s
//! after the load), with the median and p75 of TTFB, FCP, LCP and CLS, budgets checked
//! (exit status 1 when one is broken) and a progress line per run on stderr.

use std::process::ExitCode;

use argh::FromArgs;
use serde_json::{json, Value};

use super::cli::Client;
use crate::trace;

#[derive(FromArgs)]
/// Measure a page's load metrics over several cold loads.
pub struct PerfArgs {
    /// the page to load
    #[argh(option)]
    url: String,
    /// how many loads (default 3)
    #[argh(option, default = "3")]
    runs: u32,
    /// limits, e.g. lcp=2500,cls=0.1,fcp=1800,ttfb=800 (ms; cls unitless)
    #[argh(option)]
    budget: Option<String>,
    /// print the result as JSON
    #[argh(switch)]
    json: bool,
    /// a flag for the server, e.g. --server-arg=--headless=false (repeatable)
    #[argh(option)]
    server_arg: Vec<String>,
}

const METRICS: [&str; 4] = ["ttfb", "fcp", "lcp", "cls"];

/// One load's metrics (ms; CLS unitless); `None` when the trace had none.
type Run = [Option<f64>; 4];

fn metrics(report: &trace::Report) -> Run {
    let Some(set) = report.sets.iter().find(|s| s.navigation.is_some()) else {
        return [None; 4];
    };
    let lcp = set.lcp.as_ref();
    let ttfb = lcp
        .and_then(|l| l.subparts.as_ref())
        .map(|s| s.ttfb.range() / 1000.0)
        .or_else(|| {
            let nav = set.navigation.as_ref()?;
            Some((set.document.as_ref()?.first_byte()? - nav.at.ts) / 1000.0)
        });
    [
        ttfb,
        set.fcp.map(|f| f / 1000.0),
        lcp.map(|l| l.timing / 1000.0),
        Some(set.cls().0),
    ]
}

fn budgets(spec: &str) -> Result<Vec<(usize, f64)>, String> {
    spec.split(',')
        .filter(|p| !p.is_empty())
        .map(|part| {
            let (name, value) = part
                .split_once('=')
                .ok_or_else(|| format!("a budget is name=value: {part}"))?;
            let i = METRICS
                .iter()
                .position(|m| *m == name.trim())
                .ok_or_else(|| format!("no budget for {name} (ttfb, fcp, lcp, cls)"))?;
            let v: f64 = value
                .trim()
                .parse()
                .map_err(|_| format!("not a number: {value}"))?;
            Ok((i, v))
        })
        .collect()
}

/// The `q` quantile by the nearest-rank method.
fn quantile(values: &[f64], q: f64) -> Option<f64> {
    let mut v: Vec<f64> = values.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((q * v.len() as f64).ceil() as usize).max(1);
    v.get(rank - 1).copied()
}

fn one_run(client: &mut Client, file: &std::path::Path) -> Result<trace::Report, String> {
    let args = json!({"reload": true, "autoStop": true, "ignoreCache": true,
        "filePath": file.to_string_lossy()});
    let answer = client.request(
        "tools/call",
        json!({"name": "performance_start_trace", "arguments": args}),
    )?;
    if answer["result"]["isError"] == json!(true) || answer.get("error").is_some() {
        return Err(format!("the trace failed: {answer}"));
    }
    let opened = std::fs::File::open(file).map_err(|e| format!("the trace file: {e}"))?;
    let report = trace::analyse_reader(opened);
    let _ = std::fs::remove_file(file);
    report
}

pub fn perf(args: &[&str]) -> ExitCode {
    let parsed = match PerfArgs::from_args(&["devtools-mcp perf"], args) {
        Ok(a) => a,
        Err(exit) => return super::cli::early_exit(exit),
    };
    let limits = match parsed.budget.as_deref().map(budgets).transpose() {
        Ok(l) => l.unwrap_or_default(),
        Err(e) => {
            eprintln!("devtools-mcp: {e}");
            return ExitCode::from(2);
        }
    };
    let runs = match measure(&parsed) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("devtools-mcp: {e}");
            return ExitCode::FAILURE;
        }
    };
    report(&parsed, &runs, &limits)
}

fn measure(parsed: &PerfArgs) -> Result<Vec<Run>, String> {
    let mut client = Client::start(&parsed.server_arg)?;
    let open = client.request(
        "tools/call",
        json!({"name": "new_page", "arguments": {"url": parsed.url}}),
    )?;
    if open["result"]["isError"] == json!(true) {
        client.close();
        return Err(format!("cannot open {}: {open}", parsed.url));
    }
    let dir = crate::tools::files::temp_dir()?;
    let mut runs = Vec::new();
    for n in 1..=parsed.runs.max(1) {
        let file = dir.join(format!("perf-{}-{n}.json.gz", std::process::id()));
        let started = std::time::Instant::now();
        let report = match one_run(&mut client, &file) {
            Ok(r) => r,
            Err(e) => {
                client.close();
                return Err(e);
            }
        };
        let run = metrics(&report);
        let shown: Vec<String> = METRICS
            .iter()
            .zip(run)
            .map(|(m, v)| format!("{m}={}", shown(m, v)))
            .collect();
        eprintln!(
            "run {n}/{}: {} ({:.1} s)",
            parsed.runs.max(1),
            shown.join(" "),
            started.elapsed().as_secs_f64()
        );
        runs.push(run);
    }
    client.close();
    Ok(runs)
}

fn shown(metric: &str, v: Option<f64>) -> String {
    match v {
        Some(x) if metric == "cls" => format!("{x:.3}"),
        Some(x) => format!("{x:.0}"),
        None => "n/a".into(),
    }
}

fn report(parsed: &PerfArgs, runs: &[Run], limits: &[(usize, f64)]) -> ExitCode {
    let mut out = serde_json::Map::new();
    let mut broken = Vec::new();
    for (i, name) in METRICS.iter().enumerate() {
        let values: Vec<f64> = runs.iter().filter_map(|r| r[i]).collect();
        let (median, p75) = (quantile(&values, 0.5), quantile(&values, 0.75));
        out.insert(name.to_string(), json!({"median": median, "p75": p75}));
        for (_, limit) in limits.iter().filter(|(m, _)| *m == i) {
            if p75.is_none_or(|v| v > *limit) {
                broken.push(format!("{name} p75 {} > {limit}", shown(name, p75)));
            }
        }
    }
    if parsed.json {
        out.insert("url".into(), Value::String(parsed.url.clone()));
        out.insert("runs".into(), json!(runs.len()));
        out.insert("brokenBudgets".into(), json!(broken));
        println!("{}", Value::Object(out));
    } else {
        println!("{} ({} runs)   median   p75", parsed.url, runs.len());
        for name in METRICS {
            let fmt = |v: &Value| match v.as_f64() {
                Some(x) if name == "cls" => format!("{x:.3}"),
                Some(x) => format!("{x:.0} ms"),
                None => "n/a".into(),
            };
            let m = &out[name];
            println!(
                "{name:>5}  {:>10}  {:>10}",
                fmt(&m["median"]),
                fmt(&m["p75"])
            );
        }
        for b in &broken {
            println!("budget broken: {b}");
        }
    }
    if broken.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_and_quantiles() {
        assert_eq!(
            budgets("lcp=2500,cls=0.1").unwrap(),
            vec![(2, 2500.0), (3, 0.1)]
        );
        assert!(budgets("tbt=200").is_err());
        assert!(budgets("lcp").is_err());
        assert_eq!(quantile(&[3.0, 1.0, 2.0], 0.5), Some(2.0));
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.75), Some(3.0));
        assert_eq!(quantile(&[], 0.5), None);
    }
}
