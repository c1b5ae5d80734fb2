//! `devtools-mcp perf`: page-load budgets in CI without Node. Loads a URL N times cold and reads
//! TTFB, FCP, LCP, CLS and TBT from the page's own Performance APIs (rules in [`vitals`]), then
//! prints the median and p75 of each and exits 1 when a budget is broken.
//!
//! Each run is a fresh server with its own browser and temporary profile (the server's default
//! `--isolated`), so caches, cookies and service workers start empty. The observer goes in with
//! navigate_page's initScript (Page.addScriptToEvaluateOnNewDocument), so it runs before the page's
//! own scripts; evaluate_script then waits in the page until the load has settled.

mod vitals;

use crate::app::stdout::{out, outln};
use std::process::ExitCode;

use argh::FromArgs;
use serde_json::{json, Value};

use super::cli::Client;
use vitals::{Budget, Metrics, Recorded, Summary, METRICS};

const OBSERVER: &str = include_str!("observer.js");

/// How long one load may take before its navigation is given up.
const NAVIGATION_TIMEOUT_MS: u32 = 30_000;

#[derive(FromArgs)]
/// Load a page cold several times and report TTFB, FCP, LCP, CLS and TBT (median and p75);
/// exit 1 when a budget is broken, 2 on a usage or browser error.
struct PerfArgs {
    /// the page to measure
    #[argh(option)]
    url: String,
    /// how many cold loads (default 3)
    #[argh(option, default = "3")]
    runs: u32,
    /// limits on the p75 of metrics, e.g. lcp=2500,cls=0.1,tbt=200 (ms; CLS unitless)
    #[argh(option)]
    budget: Option<String>,
    /// print JSON on stdout instead of a table
    #[argh(switch)]
    json: bool,
    /// a flag for the server, e.g. --server-arg --executablePath=/usr/bin/chromium (repeatable)
    #[argh(option)]
    server_arg: Vec<String>,
}

pub(super) fn perf(args: &[&str]) -> ExitCode {
    let parsed = match PerfArgs::from_args(&["devtools-mcp perf"], args) {
        Ok(a) => a,
        Err(exit) => return super::cli::early_exit(exit),
    };
    let budgets = match parsed.budget.as_deref().map(vitals::parse_budgets) {
        None => Vec::new(),
        Some(Ok(b)) => b,
        Some(Err(e)) => return usage(&e),
    };
    if parsed.runs == 0 || parsed.runs > 100 {
        return usage("--runs must be between 1 and 100");
    }
    let mut runs = Vec::new();
    for n in 1..=parsed.runs {
        match measure(&parsed.server_arg, &parsed.url) {
            Ok(m) => {
                eprintln!("run {n}/{}: {}", parsed.runs, one_line(&m));
                runs.push(m);
            }
            Err(e) => {
                eprintln!("devtools-mcp perf: run {n}/{}: {e}", parsed.runs);
                return ExitCode::from(2);
            }
        }
    }
    let summary = vitals::summarize(&runs);
    let broken: Vec<&Budget> = budgets
        .iter()
        .filter(|b| vitals::broken(b, &summary))
        .collect();
    if parsed.json {
        outln!("{}", report_json(&parsed.url, &runs, &summary, &budgets));
    } else {
        out!("{}", table(&summary, &budgets));
    }
    for b in &broken {
        let (name, _) = METRICS[b.metric];
        let p75 = vitals::show(b.metric, summary[b.metric].p75);
        let limit = vitals::show(b.metric, Some(b.limit));
        eprintln!("budget broken: {name} p75 {p75} > {limit}");
    }
    if broken.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn usage(message: &str) -> ExitCode {
    eprintln!("devtools-mcp perf: {message}");
    ExitCode::from(2)
}

/// One cold load in a fresh server; the server and its browser are gone when this returns.
fn measure(server_args: &[String], url: &str) -> Result<Metrics, String> {
    let mut client = Client::start(server_args)?;
    let result = load_and_read(&mut client, url);
    client.close();
    let recorded: Recorded = serde_json::from_str(&result?)
        .map_err(|e| format!("the page's measurements are not what was recorded: {e}"))?;
    if !recorded.settled {
        eprintln!(
            "devtools-mcp perf: the page never had {} ms without long tasks after load; TBT counts up to {} ms",
            vitals::QUIET_MS,
            vitals::SETTLE_CAP_MS
        );
    }
    recorded.metrics()
}

fn load_and_read(client: &mut Client, url: &str) -> Result<String, String> {
    call_tool(
        client,
        "navigate_page",
        json!({"url": url, "initScript": OBSERVER, "timeout": NAVIGATION_TIMEOUT_MS}),
    )?;
    let read = format!(
        "() => window.__dtmcpPerf({}, {})",
        vitals::QUIET_MS,
        vitals::SETTLE_CAP_MS
    );
    let text = call_tool(
        client,
        "evaluate_script",
        json!({"function": read, "waitForStableDom": false, "timeout": vitals::SETTLE_CAP_MS + NAVIGATION_TIMEOUT_MS}),
    )?;
    json_block(&text)
        .map(str::to_owned)
        .ok_or_else(|| format!("unexpected answer from evaluate_script: {text}"))
}

/// Calls a tool and returns its text, or the error it answered with.
fn call_tool(client: &mut Client, name: &str, args: Value) -> Result<String, String> {
    let response = client.request("tools/call", json!({"name": name, "arguments": args}))?;
    if let Some(err) = response.get("error") {
        return Err(format!(
            "{name}: {}",
            err["message"].as_str().unwrap_or("error")
        ));
    }
    let result = &response["result"];
    let text: Vec<&str> = result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect();
    let text = text.join("\n");
    if result["isError"] == true {
        return Err(format!("{name}: {text}"));
    }
    Ok(text)
}

/// The body of the first ```json block of a tool's text.
fn json_block(text: &str) -> Option<&str> {
    let start = text.find("```json\n")? + "```json\n".len();
    let len = text[start..].find("\n```")?;
    Some(&text[start..start + len])
}

fn one_line(m: &Metrics) -> String {
    METRICS
        .iter()
        .enumerate()
        .map(|(i, (name, _))| format!("{} {}", name.to_uppercase(), vitals::show(i, m.0[i])))
        .collect::<Vec<_>>()
        .join(", ")
}

fn table(summary: &[Summary], budgets: &[Budget]) -> String {
    let mut out = format!(
        "{:<6}{:>12}{:>12}  {}\n",
        "metric", "median", "p75", "budget"
    );
    for (i, (name, _)) in METRICS.iter().enumerate() {
        let s = &summary[i];
        let budget = budgets
            .iter()
            .filter(|b| b.metric == i)
            .map(|b| {
                let verdict = if vitals::broken(b, summary) {
                    "BROKEN"
                } else {
                    "ok"
                };
                format!("≤ {} {verdict}", vitals::show(i, Some(b.limit)))
            })
            .collect::<Vec<_>>()
            .join("; ");
        let missing = match s.missing {
            0 => String::new(),
            n => format!("  (not measured in {n} run(s))"),
        };
        out += &format!(
            "{:<6}{:>12}{:>12}  {budget}{missing}\n",
            name.to_uppercase(),
            vitals::show(i, s.median),
            vitals::show(i, s.p75)
        );
    }
    out
}

fn report_json(url: &str, runs: &[Metrics], summary: &[Summary], budgets: &[Budget]) -> Value {
    let mut metrics = serde_json::Map::new();
    for (i, (name, unit)) in METRICS.iter().enumerate() {
        let s = &summary[i];
        metrics.insert(
            (*name).into(),
            json!({"median": s.median, "p75": s.p75, "unit": unit, "missing": s.missing}),
        );
    }
    let budgets: Vec<Value> = budgets
        .iter()
        .map(|b| {
            json!({
                "metric": METRICS[b.metric].0,
                "limit": b.limit,
                "p75": summary[b.metric].p75,
                "ok": !vitals::broken(b, summary),
            })
        })
        .collect();
    json!({
        "url": url,
        "runs": runs.iter().map(vitals::metrics_json).collect::<Vec<_>>(),
        "metrics": metrics,
        "budgets": budgets,
        "ok": budgets.iter().all(|b| b["ok"] == true),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_json_block() {
        let text = "Script ran on page and returned:\n```json\n{\"a\":1}\n```\n## Pages";
        assert_eq!(json_block(text), Some("{\"a\":1}"));
        assert_eq!(json_block("no block"), None);
    }

    #[test]
    fn table_marks_broken_budgets() {
        let runs = [Metrics([
            Some(5.0),
            Some(90.0),
            Some(1200.0),
            Some(0.01),
            Some(0.0),
        ])];
        let summary = vitals::summarize(&runs);
        let budgets = vitals::parse_budgets("lcp=1000,cls=0.1").unwrap();
        let t = table(&summary, &budgets);
        assert!(
            t.contains("LCP        1200 ms     1200 ms  ≤ 1000 ms BROKEN"),
            "{t}"
        );
        assert!(
            t.contains("CLS          0.010       0.010  ≤ 0.100 ok"),
            "{t}"
        );
        let j = report_json("http://x/", &runs, &summary, &budgets);
        assert_eq!(j["ok"], false);
        assert_eq!(j["metrics"]["lcp"]["p75"], 1200.0);
    }
}
