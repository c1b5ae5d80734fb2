//! Soak: many calls of every kind against one server, printing how its resident memory grows
//! and how many browser processes there are after each phase. Growth that does not level
//! off, or processes that pile up, is a leak.
//!
//!     cargo bench --bench soak
//!     BENCH_ITERATIONS=5000 BENCH_PAGES=100 cargo bench --bench soak

mod common;

use std::time::Instant;

use common::*;
use serde_json::{json, Value};

fn main() {
    let iterations = env_count("BENCH_ITERATIONS", 2000);
    let pages = env_count("BENCH_PAGES", 50);
    let fixtures = Fixtures::start(&[("/tools.html", tools_page())]);
    let url = fixtures.url("/tools.html");

    let mut mcp = Mcp::spawn();
    let pid = mcp.pid();
    mcp.initialize();
    mcp.call_ok("new_page", json!({"url": url}));
    // Warm-up: the first calls allocate what every later call reuses.
    for _ in 0..50 {
        mcp.call_ok("evaluate_script", json!({"function": "() => 1+1"}));
    }

    println!("server: {} (pid {pid})", server());
    println!();
    println!(
        "{:<48} {:>8} {:>10} {:>10} {:>9} {:>9}",
        "phase", "calls", "RSS kB", "growth kB", "browser", "seconds"
    );
    let first = status_kb(pid, "VmRSS").unwrap_or(0);
    let mut report = Report { pid, last: first };
    report.row("start (browser up, warmed)", 0, Instant::now());

    let t = Instant::now();
    for i in 0..iterations {
        let params = json!({"a": i, "b": 1}).to_string();
        let args = json!({"toolName": "add", "params": params});
        mcp.call_ok("execute_3p_developer_tool", args);
    }
    report.row("execute_3p_developer_tool add", iterations, t);

    let t = Instant::now();
    for i in 0..iterations {
        let function = format!("() => ({{n: {i}, s: 'x'.repeat({})}})", i % 100);
        mcp.call_ok("evaluate_script", json!({"function": function}));
    }
    report.row("evaluate_script", iterations, t);

    let t = Instant::now();
    for _ in 0..iterations / 10 {
        mcp.call_ok("list_3p_developer_tools", json!({}));
    }
    report.row("list_3p_developer_tools", iterations / 10, t);

    let t = Instant::now();
    for _ in 0..pages {
        mcp.call_ok("navigate_page", json!({"type": "url", "url": url}));
    }
    report.row("navigate_page", pages, t);

    let t = Instant::now();
    for _ in 0..pages {
        let opened = mcp.call_ok("new_page", json!({"url": url}));
        if let Some(id) = newest_page(&opened.message) {
            mcp.call_ok("close_page", json!({"pageId": id}));
        }
    }
    report.row("new_page + close_page", pages * 2, t);

    let t = Instant::now();
    for _ in 0..pages {
        mcp.call_ok("take_snapshot", json!({}));
    }
    report.row("take_snapshot", pages, t);

    let last = status_kb(pid, "VmRSS").unwrap_or(0);
    let peak = status_kb(pid, "VmHWM").unwrap_or(0);
    mcp.close();
    println!();
    println!(
        "server RSS growth over the soak: {} kB ({first} → {last} kB), peak {peak} kB",
        last as i64 - first as i64
    );
}

struct Report {
    pid: u32,
    last: u64,
}

impl Report {
    fn row(&mut self, phase: &str, calls: usize, since: Instant) {
        let rss = status_kb(self.pid, "VmRSS").unwrap_or(0);
        let growth = rss as i64 - self.last as i64;
        self.last = rss;
        let browser = descendants(self.pid).len();
        let secs = since.elapsed().as_secs_f64();
        println!("{phase:<48} {calls:>8} {rss:>10} {growth:>10} {browser:>9} {secs:>9.1}");
    }
}

/// The highest page id in an answer that lists pages (the page just opened).
fn newest_page(message: &Value) -> Option<u64> {
    let pages = message["result"]["structuredContent"]["pages"].as_array()?;
    pages.iter().filter_map(|p| p["id"].as_u64()).max()
}
