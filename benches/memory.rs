//! Memory: the server's peak RSS (VmHWM of /proc/<pid>/status, its lifetime high-water mark)
//! after a series of calls like the other benches make, read at checkpoints so the phase that
//! raises the peak shows; and the size of the release binary.
//!
//!     cargo bench --bench memory

mod common;

use common::*;
use serde_json::json;

fn main() {
    let iterations = env_count("BENCH_ITERATIONS", 200);
    let big_iterations = env_count("BENCH_BIG_ITERATIONS", 10);
    let fixtures = Fixtures::start(&[("/tools.html", tools_page())]);
    let url = fixtures.url("/tools.html");

    let binary = std::fs::metadata(server()).map(|m| m.len()).unwrap_or(0);

    let mut mcp = Mcp::spawn();
    let pid = mcp.pid();
    let mut checkpoints: Vec<(String, Option<u64>, Option<u64>)> = Vec::new();
    let mut checkpoint = |name: &str| {
        checkpoints.push((
            name.to_owned(),
            status_kb(pid, "VmHWM"),
            status_kb(pid, "VmRSS"),
        ));
    };

    mcp.initialize();
    mcp.request("tools/list", json!({}));
    checkpoint("after initialize + tools/list");

    mcp.call_ok("new_page", json!({"url": url}));
    mcp.call_ok("navigate_page", json!({"type": "url", "url": url}));
    checkpoint("after new_page + navigate_page (browser up)");

    for _ in 0..iterations {
        mcp.call_ok("evaluate_script", json!({"function": "() => 1+1"}));
    }
    checkpoint(&format!("after {iterations} × evaluate_script"));

    for i in 0..iterations {
        let params = json!({"a": i, "b": 1}).to_string();
        mcp.call_ok(
            "execute_3p_developer_tool",
            json!({"toolName": "add", "params": params}),
        );
    }
    for _ in 0..iterations / 4 {
        mcp.call_ok("list_3p_developer_tools", json!({}));
    }
    checkpoint(&format!(
        "after {iterations} × execute add + {} × list",
        iterations / 4
    ));

    for _ in 0..big_iterations {
        mcp.call_ok(
            "execute_3p_developer_tool",
            json!({"toolName": "big", "params": "{}"}),
        );
    }
    checkpoint(&format!("after {big_iterations} × ~1 MB result"));

    for _ in 0..3 {
        mcp.call_ok("new_page", json!({"url": url}));
    }
    mcp.call_ok("take_snapshot", json!({}));
    checkpoint("after 3 more new_page + take_snapshot");

    let browser_pids = children(pid);
    mcp.close();

    print_report(pid, binary, &checkpoints, browser_pids.len());
}

/// The binary's size, then the checkpoints, then the peak.
fn print_report(
    pid: u32,
    binary: u64,
    checkpoints: &[(String, Option<u64>, Option<u64>)],
    browser_children: usize,
) {
    println!("server: {} (pid {pid})", server());
    println!(
        "release binary size: {} bytes ({:.2} MB; target ≤ 6 MB)",
        binary,
        binary as f64 / 1024.0 / 1024.0
    );
    println!();
    println!("{:<52} {:>12} {:>12}", "checkpoint", "VmHWM kB", "VmRSS kB");
    for (name, hwm, rss) in checkpoints {
        println!(
            "{:<52} {:>12} {:>12}",
            name,
            hwm.map(|v| v.to_string()).unwrap_or("-".into()),
            rss.map(|v| v.to_string()).unwrap_or("-".into())
        );
    }
    let peak = checkpoints.iter().filter_map(|c| c.1).max().unwrap_or(0);
    println!();
    println!(
        "server peak RSS (VmHWM): {peak} kB = {:.2} MB (target ≤ 8 MB); browser children seen: {}",
        peak as f64 / 1024.0,
        browser_children
    );
}
