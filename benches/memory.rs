//! Memory: the server's peak RSS (VmHWM of /proc/<pid>/status, its lifetime high-water mark)
//! after a series of calls like the other benches make, read at checkpoints so the phase that
//! raises the peak shows; the browser tree's PSS and process count after those calls, on each
//! installed browser, beside the same browser started raw with the same pages; and the size of
//! the release binary.
//!
//!     cargo bench --bench memory

mod common;

use common::*;
use serde_json::json;

type Checkpoint = (String, Option<u64>, Option<u64>);

fn main() {
    let fixtures = Fixtures::start(&[("/tools.html", tools_page())]);
    let url = fixtures.url("/tools.html");
    let binary = std::fs::metadata(server()).map(|m| m.len()).unwrap_or(0);
    println!("server: {}", server());
    println!(
        "release binary size: {} bytes ({:.2} MB; target ≤ 6 MB)",
        binary,
        binary as f64 / 1024.0 / 1024.0
    );
    let mut footprints = Vec::new();
    for browser in browsers() {
        let (checkpoints, ours) = run(&browser, &url);
        print_checkpoints(&browser, &checkpoints);
        let floor = floor_footprint(&browser.exe, &url);
        footprints.push((browser.label, ours, floor));
    }
    println!();
    println!(
        "{:<44} {:>12} {:>10}",
        "browser tree after the bench", "PSS MB", "processes"
    );
    for (label, ours, floor) in footprints {
        let row = |name: String, (pss, n): (u64, usize)| {
            println!("{name:<44} {:>12.1} {n:>10}", pss as f64 / 1024.0);
        };
        row(format!("[{label}] ours (about:blank + 4 pages)"), ours);
        row(format!("[{label}] floor: raw, the same 5 tabs"), floor);
    }
}

/// The bench's calls on one browser: the server's checkpoints, and the browser tree's
/// footprint (PSS kB, processes) at the end, before the server is closed.
fn run(browser: &BrowserKind, url: &str) -> (Vec<Checkpoint>, (u64, usize)) {
    let iterations = env_count("BENCH_ITERATIONS", 200);
    let big_iterations = env_count("BENCH_BIG_ITERATIONS", 10);
    let mut mcp = Mcp::spawn_on(browser, &[]);
    let pid = mcp.pid();
    let mut checkpoints: Vec<Checkpoint> = Vec::new();
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

    let footprint = tree_pss(&descendants(pid));
    mcp.close();
    (checkpoints, footprint)
}

/// The same browser started raw with the tabs the bench leaves open (the first, blank, and
/// four of the fixture page), measured the same way.
fn floor_footprint(exe: &str, url: &str) -> (u64, usize) {
    let mut browser = Browser::launch_exe(exe);
    for _ in 0..4 {
        let (target, _) = browser.call("Target.createTarget", json!({"url": "about:blank"}), None);
        let (attached, _) = browser.call(
            "Target.attachToTarget",
            json!({"targetId": target["targetId"], "flatten": true}),
            None,
        );
        let session = attached["sessionId"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        browser.navigate(&session, url);
    }
    let footprint = tree_pss(&browser.pids());
    browser.close();
    footprint
}

/// One browser's server checkpoints and the server's peak.
fn print_checkpoints(browser: &BrowserKind, checkpoints: &[Checkpoint]) {
    println!();
    println!(
        "[{}] {:<48} {:>12} {:>12}",
        browser.label, "checkpoint", "VmHWM kB", "VmRSS kB"
    );
    for (name, hwm, rss) in checkpoints {
        println!(
            "[{}] {:<48} {:>12} {:>12}",
            browser.label,
            name,
            hwm.map(|v| v.to_string()).unwrap_or("-".into()),
            rss.map(|v| v.to_string()).unwrap_or("-".into())
        );
    }
    let peak = checkpoints.iter().filter_map(|c| c.1).max().unwrap_or(0);
    println!(
        "[{}] server peak RSS (VmHWM): {peak} kB = {:.2} MB (target ≤ 8 MB everyday, ≤ 12 MB after ~1 MB results)",
        browser.label,
        peak as f64 / 1024.0,
    );
}
