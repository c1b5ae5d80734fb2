//! `devtools-mcp trace FILE`: the performance summary of a trace recorded anywhere (DevTools'
//! saved format or a bare event array, plain or gzip), for CI without Node. The file is
//! read through the streaming analyser in chunks; it is never held whole.

use crate::app::stdout::{out, outln};
use std::process::ExitCode;

use argh::FromArgs;

use crate::trace;

#[derive(FromArgs)]
/// Print the performance summary of a trace file (JSON or .json.gz).
struct TraceArgs {
    /// the trace file
    #[argh(positional)]
    file: String,
    /// print the analysis of this insight (e.g. LCPBreakdown) instead of the summary
    #[argh(option)]
    insight: Option<String>,
    /// the insight set the insight belongs to (default: the first one)
    #[argh(option)]
    insight_set: Option<String>,
}

pub(super) fn trace(args: &[&str]) -> ExitCode {
    let parsed = match TraceArgs::from_args(&["devtools-mcp trace"], args) {
        Ok(a) => a,
        Err(exit) => return super::cli::early_exit(exit),
    };
    let report = match std::fs::File::open(&parsed.file)
        .map_err(|e| format!("cannot open {}: {e}", parsed.file))
        .and_then(trace::analyse_reader)
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("devtools-mcp: {e}");
            return ExitCode::FAILURE;
        }
    };
    match parsed.insight {
        None => {
            outln!("{}", trace::summary(&report));
            let tbt = blocking_times(&report);
            if !tbt.is_empty() {
                out!("\n{tbt}");
            }
            ExitCode::SUCCESS
        }
        Some(name) => {
            let set = parsed
                .insight_set
                .or_else(|| report.sets.first().map(|s| s.id.clone()))
                .unwrap_or_default();
            match trace::insight(&report, &set, &name) {
                Ok(text) => {
                    outln!("{text}");
                    ExitCode::SUCCESS
                }
                Err(text) => {
                    eprintln!("{text}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

/// TBT per navigation, after the summary (the reference's summary has no TBT).
fn blocking_times(report: &trace::Report) -> String {
    let mut out = String::new();
    for set in &report.sets {
        let Some(b) = trace::total_blocking_time(report, set) else {
            continue;
        };
        let until = if b.interactive {
            "TTI"
        } else {
            "the end of the trace (no 5 s without long tasks after FCP)"
        };
        out.push_str(&format!(
            "TBT ({}): {:.0} ms, long tasks on the main thread from FCP to {until}\n",
            set.id,
            b.total / 1000.0
        ));
    }
    out
}
