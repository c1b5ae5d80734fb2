//! The trace summary as chrome-devtools-mcp answers `performance_stop_trace` (DevTools'
//! `PerformanceTraceFormatter.formatTraceSummary`, under the reference's headings).

use super::format::{bounds, js, micros, round};
use super::insights::{listed, savings, texts, wasted_bytes};
use super::report::{InsightSet, Report};

/// The explanation of call-tree and network formats the reference appends to every summary.
const FORMATS: &str = include_str!("formats.txt");

const SETS_INTRO: &str = "The following is a list of insight sets. An insight set covers a specific part of the trace, split by navigations. The insights within each insight set are specific to that part of the trace. Be sure to consider the insight set id and bounds when calling functions. If no specific insight set or navigation is mentioned, assume the user is referring to the first one.";

/// The whole summary text.
pub fn summary(report: &Report) -> String {
    let mut parts: Vec<String> = Vec::new();
    parts.push("## Summary of Performance trace findings:".into());
    parts.push(format!("URL: {}", report.url));
    let trace_bounds = report
        .bounds
        .map_or("{min: Infinityµs, max: -Infinityµs}".into(), bounds);
    parts.push(format!("Trace bounds: {trace_bounds}"));
    let cpu = match report.cpu_throttling {
        Some(rate) if rate != 0.0 => format!("{}x", js(rate)),
        _ => "none".into(),
    };
    parts.push(format!("CPU throttling: {cpu}"));
    let network = report.network_throttling.as_deref().unwrap_or("none");
    parts.push(format!("Network throttling: {network}"));
    parts.push("\n# Available insight sets\n".into());
    parts.push(SETS_INTRO.into());
    for set in &report.sets {
        insight_set(set, &mut parts);
    }
    format!("{}\n\n{FORMATS}", parts.join("\n"))
}

fn insight_set(set: &InsightSet, parts: &mut Vec<String>) {
    parts.push(format!("\n## insight set id: {}\n", set.id));
    parts.push(format!("URL: {}", set.url));
    parts.push(format!("Bounds: {}", bounds(set.bounds)));
    lab_metrics(set, parts);
    parts.push("Metrics (field / real users): n/a – no data for this page in CrUX".into());
    parts.push("Available insights:".into());
    for insight in listed(set) {
        let (description, questions) = texts(insight.name);
        let mut lines = vec![
            format!("insight name: {}", insight.name),
            format!("description: {description}"),
            format!("relevant trace bounds: {}", bounds(insight.bounds)),
        ];
        lines.extend(savings(set, insight.name).map(|s| format!("estimated metric savings: {s}")));
        lines.extend(
            wasted_bytes(set, insight.name)
                .map(|b| format!("estimated wasted bytes: {}", super::format::bytes(b))),
        );
        lines.extend(questions.iter().map(|q| format!("example question: {q}")));
        parts.push(format!("  - {}", lines.join("\n    ")));
    }
}

/// `(eventKey: r-N, ts: T)`; `synthetic` events (requests, clusters) are keyed `s-N`.
fn event(index: u64, ts: f64, synthetic: bool) -> String {
    let kind = if synthetic { 's' } else { 'r' };
    format!("(eventKey: {kind}-{index}, ts: {})", js(ts))
}

fn lab_metrics(set: &InsightSet, parts: &mut Vec<String>) {
    // DevTools always has a CLS (0 without shifts), so the lab metrics are never "n/a".
    let (cls, worst) = set.cls();
    let inp = set.inp.as_ref().map(|i| {
        let key = event(i.begin.index, i.begin.ts, true);
        format!("  - INP: {} ms, event: {key}", js(round(i.dur / 1000.0)))
    });
    parts.push("Metrics (lab / observed):".into());
    if let Some(lcp) = &set.lcp {
        let node = lcp
            .node_id
            .map_or(String::new(), |n| format!(", nodeId: {n}"));
        let ms = round(lcp.timing / 1000.0);
        let key = event(lcp.event.index, lcp.event.ts, false);
        parts.push(format!("  - LCP: {} ms, event: {key}{node}", js(ms)));
        if let Some(s) = &lcp.subparts {
            let line = |label: &str, b: super::event::Bounds| {
                format!(
                    "    - {label}: {}, bounds: {}",
                    micros(b.range()),
                    bounds(b)
                )
            };
            parts.push("  - LCP breakdown:".into());
            parts.push(line("TTFB", s.ttfb));
            if let Some(b) = s.load_delay {
                parts.push(line("Load delay", b));
            }
            if let Some(b) = s.load_duration {
                parts.push(line("Load duration", b));
            }
            parts.push(line("Render delay", s.render_delay));
        }
    }
    parts.extend(inp);
    let key = worst.map_or(String::new(), |w| {
        format!(", event: {}", event(w.worst_index, w.first.ts, true))
    });
    parts.push(format!("  - CLS: {cls:.2}{key}"));
}
