//! The memory bound on the live server: a trace of about 100 MB recorded through
//! `performance_start_trace` / `performance_stop_trace` (a page that writes a great many
//! user-timing marks while the trace runs) must raise the server's peak RSS (VmHWM of
//! /proc/<pid>/status) by at most 16 MB: the trace streams from `IO.read` into the file and
//! the analyser, and is never held whole. Prints the trace's size, the stop's wall time, the
//! parser's throughput over it and VmHWM before and after; asserts nothing.
//!
//!     cargo bench --bench trace_memory
//!     BENCH_TRACE_MARKS=200000 cargo bench --bench trace_memory    # a smaller trace
//!     BENCH_TRACE_KEEP=1 cargo bench --bench trace_memory          # keep the trace file

mod common;

use std::time::Instant;

use common::*;
use serde_json::json;

/// The page: `generate(n)` writes `n` marks in tasks of 5000, clearing the page's own
/// buffer between tasks so the page does not grow with them.
const PAGE: &str = r#"<!doctype html><html><head><meta charset="utf-8"><title>marks</title></head>
<body><p>trace events</p><script>
async function generate(n) {
  let done = 0;
  while (done < n) {
    for (let i = 0; i < 5000 && done < n; i++, done++) performance.mark('bench-mark-' + (done % 1000));
    performance.clearMarks();
    await new Promise(r => setTimeout(r, 0));
  }
  return done;
}
</script></body></html>"#;

fn main() {
    let marks = env_count("BENCH_TRACE_MARKS", 330_000);
    let fixtures = Fixtures::start(&[("/marks.html", PAGE.to_owned())]);
    let file = std::env::temp_dir().join(format!(
        "devtools-mcp-bench-trace-{}.json",
        std::process::id()
    ));
    let mut mcp = Mcp::spawn();
    mcp.initialize();
    let pid = mcp.pid();
    mcp.call_ok(
        "navigate_page",
        json!({"type": "url", "url": fixtures.url("/marks.html")}),
    );
    // Warm the paths the trace uses once, so their one-time allocations are in the baseline.
    trace(&mut mcp, 1_000, &file);
    let before = status_kb(pid, "VmHWM");
    let (stop, generated) = trace(&mut mcp, marks, &file);
    let after = status_kb(pid, "VmHWM");
    let size = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
    let mb = size as f64 / 1024.0 / 1024.0;
    println!("server: {}", server());
    println!("marks written by the page: {generated}");
    println!("trace file: {mb:.1} MB (plain JSON)");
    println!(
        "performance_stop_trace: {:.1} s ({:.1} MB/s streamed to the file and analysed)",
        stop.as_secs_f64(),
        mb / stop.as_secs_f64()
    );
    let parse = Instant::now();
    let parsed = std::fs::File::open(&file)
        .map_err(|e| e.to_string())
        .and_then(devtools_mcp::trace::analyse_reader);
    let elapsed = parse.elapsed().as_secs_f64();
    match parsed {
        Ok(report) => println!(
            "analyser alone on the file: {elapsed:.1} s, {:.1} MB/s, {} events",
            mb / elapsed,
            report.events
        ),
        Err(e) => println!("analyser alone on the file: failed: {e}"),
    }
    match (before, after) {
        (Some(b), Some(a)) => println!(
            "server VmHWM: {:.1} MB before the trace, {:.1} MB after: +{:.1} MB (bound: 16 MB)",
            b as f64 / 1024.0,
            a as f64 / 1024.0,
            a.saturating_sub(b) as f64 / 1024.0
        ),
        _ => println!("server VmHWM: unreadable"),
    }
    if std::env::var_os("BENCH_TRACE_KEEP").is_some() {
        println!("kept: {}", file.display());
    } else {
        let _ = std::fs::remove_file(&file);
    }
    mcp.close();
}

/// One trace without reload: start, the page writes `marks` marks, stop into `file`.
/// Returns the stop's wall time and how many marks the page wrote.
fn trace(mcp: &mut Mcp, marks: usize, file: &std::path::Path) -> (std::time::Duration, u64) {
    mcp.call_ok(
        "performance_start_trace",
        json!({"reload": false, "autoStop": false}),
    );
    let generated = mcp.call_ok(
        "evaluate_script",
        json!({"function": format!("() => generate({marks})")}),
    );
    let generated = generated
        .text()
        .lines()
        .filter_map(|l| l.trim().parse::<u64>().ok())
        .next()
        .unwrap_or(0);
    let started = Instant::now();
    let stop = mcp.call("performance_stop_trace", json!({"filePath": file}));
    let elapsed = started.elapsed();
    if stop.is_error() {
        println!("performance_stop_trace failed: {}", stop.text());
    }
    (elapsed, generated)
}
