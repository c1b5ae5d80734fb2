//! Which browser the server starts (the headless shell or full Chromium, and the log line that
//! says why), and `--prelaunch`.

use std::time::{Duration, Instant};

use crate::support::mcp::BROWSER_FLAGS;
use crate::support::{browser_main_process, procs, started_with, Mcp};
use serde_json::json;

/// How long a browser may take to appear on a loaded machine.
pub(crate) const START: Duration = Duration::from_secs(30);

/// A server told which build to start (whatever `DEVTOOLS_MCP_TEST_BROWSER` says).
fn started_on(headless_shell: &str) -> Mcp {
    let mut args = vec!["--headless", "--isolated", headless_shell];
    args.extend_from_slice(BROWSER_FLAGS);
    let mcp = Mcp::spawn(&args, &[]);
    mcp.initialize();
    mcp
}

/// The server's browser process once a call has started it, and the log line about it.
fn started_browser(mcp: &Mcp) -> (String, String) {
    let pages = mcp.call("list_pages", json!({}));
    assert!(!pages.is_error, "{}", pages.text);
    let command = browser_main_process(mcp).command();
    let log = mcp.stderr_log();
    let line = log
        .lines()
        .find(|l| l.contains("started ") && l.contains("(pid "))
        .unwrap_or_else(|| panic!("no start line in the log:\n{log}"))
        .to_string();
    (command, line)
}

#[test]
fn the_shell_flag_picks_either_build_and_the_log_says_why() {
    // `CHROME_PATH` names a binary outright and overrides the choice; nothing to check then.
    if std::env::var_os("CHROME_PATH").is_some_and(|p| !p.is_empty()) {
        return;
    }
    let shell = started_on("--headlessShell=true");
    let (command, line) = started_browser(&shell);
    // The binary itself, not Debian's wrapper script: the browser is our direct child.
    assert!(
        command.contains("headless-shell") && !command.starts_with("/bin/sh"),
        "{command}"
    );
    assert!(
        line.contains("headless-shell") && line.contains("--headlessShell"),
        "{line}"
    );
    drop(shell);

    let full = started_on("--headlessShell=false");
    let (command, line) = started_browser(&full);
    assert!(!command.contains("headless-shell"), "{command}");
    assert!(
        line.contains("full Chromium, as --headlessShell=false asks"),
        "{line}"
    );
}

/// The server's browser, if it has one (a child speaking over the pipe).
fn has_browser(mcp: &Mcp) -> bool {
    mcp.descendants()
        .iter()
        .any(|p| p.ppid == mcp.pid() && p.command().contains("--remote-debugging-pipe"))
}

#[test]
fn prelaunch_starts_the_browser_after_initialize_and_only_then() {
    let since = Instant::now();
    let eager = started_with(&["--prelaunch"]);
    assert!(
        procs::wait_until(START, || has_browser(&eager)),
        "no browser after initialize with --prelaunch"
    );
    let took = since.elapsed();
    // The browser it started is the one the first call uses.
    let first = browser_main_process(&eager).pid;
    let pages = eager.call("list_pages", json!({}));
    assert!(!pages.is_error, "{}", pages.text);
    assert_eq!(browser_main_process(&eager).pid, first);
    drop(eager);

    // Without the flag, as long again (and at least a second) passes with no browser.
    let lazy = started_with(&[]);
    let until = Instant::now() + took.max(Duration::from_secs(1));
    while Instant::now() < until {
        assert!(!has_browser(&lazy), "a browser started before any call");
        std::thread::sleep(Duration::from_millis(50));
    }
    let pages = lazy.call("list_pages", json!({}));
    assert!(!pages.is_error, "{}", pages.text);
    assert!(has_browser(&lazy));
}
