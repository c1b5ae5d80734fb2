//! Memory: the server's peak RSS (VmHWM of /proc/<pid>/status, its lifetime high-water mark)
//! after a series of calls like the other benches make, read at checkpoints so the phase that
//! raises the peak shows (with how much of the resident set is the binary's pages, RssFile, and
//! how much the heap's, RssAnon); the browser tree's PSS and process count after those calls,
//! on each installed browser, beside the same browser started raw with the same pages and the
//! same scripts run in them; and the size of the release binary.
//!
//!     cargo bench --bench memory

mod common;

use common::*;
use serde_json::json;

/// A checkpoint's name and the server's VmHWM, VmRSS, RssAnon and RssFile (kB).
type Checkpoint = (String, [Option<u64>; 4]);

/// The checkpoints taken before the first ~1 MB result: the everyday calls' peak.
const EVERYDAY_CHECKPOINTS: usize = 4;

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
        "{:<52} {:>8} {:>12} {:>10}",
        "browser tree after the bench", "PSS MB", "of it anon", "processes"
    );
    for (label, ours, floor) in footprints {
        let row = |name: String, f: Footprint| {
            let mb = |kb: u64| kb as f64 / 1024.0;
            println!(
                "{name:<52} {:>8.1} {:>12.1} {:>10}",
                mb(f.pss),
                mb(f.anon),
                f.processes
            );
        };
        row(format!("[{label}] ours (about:blank + 4 pages)"), ours);
        row(
            format!("[{label}] floor: raw, the same 5 tabs and scripts"),
            floor,
        );
    }
}

/// The bench's calls on one browser: the server's checkpoints, and the browser tree's
/// footprint at the end, before the server is closed.
fn run(browser: &BrowserKind, url: &str) -> (Vec<Checkpoint>, Footprint) {
    let (iterations, big_iterations) = counts();
    let mut mcp = Mcp::spawn_on(browser, &[]);
    let pid = mcp.pid();
    let mut checkpoints: Vec<Checkpoint> = Vec::new();
    let mut checkpoint = |name: &str| {
        let fields = ["VmHWM", "VmRSS", "RssAnon", "RssFile"].map(|key| status_kb(pid, key));
        checkpoints.push((name.to_owned(), fields));
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

/// The bench's counts: calls of each small kind, and of the ~1 MB result.
fn counts() -> (usize, usize) {
    (
        env_count("BENCH_ITERATIONS", 200),
        env_count("BENCH_BIG_ITERATIONS", 10),
    )
}

/// The same browser started raw with the tabs the bench leaves open (the first, blank, and
/// four of the fixture page), measured the same way. The first fixture page runs what the
/// server's calls run there (the scripts, the page tool, the ~1 MB results, printed as the
/// server prints them): a page's heap grows with what it ran, so the floor runs it too.
fn floor_footprint(exe: &str, url: &str) -> Footprint {
    let (iterations, big_iterations) = counts();
    let mut browser = Browser::launch_exe(exe);
    for tab in 0..4 {
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
        if tab == 0 {
            for _ in 0..iterations {
                browser.evaluate(&session, "(() => 1+1)()", true);
            }
            for i in 0..iterations {
                let add = format!("JSON.stringify(benchTools.add({{a: {i}, b: 1}}))");
                browser.evaluate(&session, &add, true);
            }
            for _ in 0..big_iterations {
                browser.evaluate(&session, "JSON.stringify(benchTools.big(), null, 2)", false);
            }
        }
    }
    let footprint = tree_pss(&browser.pids());
    browser.close();
    footprint
}

/// One browser's server checkpoints and the server's peaks: before the ~1 MB results (the
/// everyday calls) and over the whole run.
fn print_checkpoints(browser: &BrowserKind, checkpoints: &[Checkpoint]) {
    let label = browser.label;
    println!();
    println!(
        "[{label}] {:<48} {:>10} {:>10} {:>10} {:>10}",
        "checkpoint (kB)", "VmHWM", "VmRSS", "RssAnon", "RssFile"
    );
    for (name, fields) in checkpoints {
        let [hwm, rss, anon, file] = fields.map(|v| v.map_or("-".into(), |v| v.to_string()));
        println!("[{label}] {name:<48} {hwm:>10} {rss:>10} {anon:>10} {file:>10}");
    }
    let peak = |upto: usize| {
        let kb = checkpoints[..upto.min(checkpoints.len())]
            .iter()
            .filter_map(|c| c.1[0])
            .max()
            .unwrap_or(0);
        format!("{kb} kB = {:.2} MB", kb as f64 / 1024.0)
    };
    println!(
        "[{label}] server peak RSS (VmHWM): everyday calls {} (target ≤ 8 MB); whole run, with the ~1 MB results, {} (target ≤ 12 MB)",
        peak(EVERYDAY_CHECKPOINTS),
        peak(checkpoints.len()),
    );
}
