//! Start-up: spawn → `initialize` answered (no browser yet: it starts lazily), and spawn →
//! first `new_page` answered on each installed browser (the headless shell, full Chromium),
//! beside that browser's raw start doing the same work (start, new tab, attach, page loaded).
//!
//! The first-page runs and the Chromium runs alternate, so load on this shared machine hits
//! both alike. Each run starts from nothing: a fresh server, a fresh browser, a fresh profile.
//!
//!     cargo bench --bench startup
//!     BENCH_INIT_RUNS=200 BENCH_PAGE_RUNS=20 cargo bench --bench startup

mod common;

use std::time::Duration;

use common::*;
use serde_json::json;

fn main() {
    let init_runs = env_count("BENCH_INIT_RUNS", 100);
    let page_runs = env_count("BENCH_PAGE_RUNS", 10);
    let fixtures = Fixtures::start(&[("/tools.html", tools_page())]);
    let url = fixtures.url("/tools.html");
    println!("server: {}", server());
    let browsers = browsers();
    for b in &browsers {
        println!(
            "browser {}: {} {}",
            b.label,
            b.exe,
            CHROMIUM_FLAGS.join(" ")
        );
    }

    // spawn → initialize answered, and the shutdown that follows (no browser to stop).
    let mut init = Vec::new();
    let mut init_shutdown = Vec::new();
    for _ in 0..init_runs {
        let mut mcp = Mcp::spawn();
        let answer = mcp.initialize();
        init.push(ms(answer.arrived - mcp.spawned));
        init_shutdown.push(ms(mcp.close()));
    }

    // The operating system's floor for the same exchange: spawn a small program that echoes
    // the first line it reads (`head -n 1`), write a line, read it back.
    let mut echo = Vec::new();
    for _ in 0..init_runs {
        echo.push(ms(spawn_echo()));
    }

    println!();
    print_header();
    let i = print_row("spawn → initialize answered", &init);
    print_row("  shutdown after stdin closes (no browser)", &init_shutdown);
    print_row("floor: spawn `head -n 1` → a line echoed back", &echo);
    let mut verdicts = vec![format!("initialize p50 {:.3} ms (target ≤ 5 ms)", i.p50)];
    for b in &browsers {
        verdicts.push(first_page_rows(b, &url, page_runs));
    }
    println!();
    for v in verdicts {
        println!("  {v}");
    }
}

/// spawn → first new_page answered on one browser, alternating with the same browser's raw
/// start (so load on this shared machine hits both alike); prints the rows and returns the
/// verdict line.
fn first_page_rows(browser: &BrowserKind, url: &str, runs: usize) -> String {
    let mut first_page = Vec::new();
    let mut first_page_shutdown = Vec::new();
    let mut chromium_first_answer = Vec::new();
    let mut chromium_page_loaded = Vec::new();
    for _ in 0..runs {
        let mut mcp = Mcp::spawn_on(browser, &[]);
        mcp.initialize();
        let page = mcp.call_ok("new_page", json!({"url": url}));
        first_page.push(ms(page.arrived - mcp.spawned));
        first_page_shutdown.push(ms(mcp.close()));
        settle();

        let (first_answer, page_loaded) = chromium_start(&browser.exe, url);
        chromium_first_answer.push(first_answer);
        chromium_page_loaded.push(page_loaded);
        settle();
    }
    let label = browser.label;
    let p = print_row(
        &format!("[{label}] spawn → first new_page answered"),
        &first_page,
    );
    print_row(
        &format!("[{label}]   shutdown after stdin closes"),
        &first_page_shutdown,
    );
    print_row(
        &format!("[{label}] floor: spawn → first CDP answer"),
        &chromium_first_answer,
    );
    let l = print_row(
        &format!("[{label}] floor: spawn → new tab, page loaded"),
        &chromium_page_loaded,
    );
    format!(
        "[{label}] first new_page − raw same work (p50): {:+.1} ms (target ≤ +40 ms)",
        p.p50 - l.p50
    )
}

/// One raw Chromium start: (spawn → first CDP answer, spawn → the page loaded in a new tab),
/// in ms.
fn chromium_start(exe: &str, url: &str) -> (f64, f64) {
    let mut browser = Browser::launch_exe(exe);
    browser.call("Browser.getVersion", json!({}), None);
    let first_answer = ms(browser.spawned.elapsed());
    // The least raw CDP work that gives the fixture page loaded in a tab of its own
    // (what new_page amounts to), for scale.
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
    let page_loaded = ms(browser.spawned.elapsed());
    browser.close();
    (first_answer, page_loaded)
}

/// Lets the previous browser's processes finish exiting before the next run is timed.
fn settle() {
    std::thread::sleep(Duration::from_millis(300));
}

/// Spawn → a line written → the same line read back, from `head -n 1`.
fn spawn_echo() -> Duration {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let started = std::time::Instant::now();
    let mut child = Command::new("head")
        .args(["-n", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn head");
    let mut stdin = child.stdin.take().expect("stdin");
    let _ = stdin.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
    let mut line = String::new();
    let _ = BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line);
    let took = started.elapsed();
    drop(stdin);
    let _ = child.wait();
    took
}
