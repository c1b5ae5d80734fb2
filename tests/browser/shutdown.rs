//! Shutdown against the real binary: on EOF of stdin or SIGTERM the server exits,
//! and the browser, every process it started and its temporary profile are gone (with no
//! browser yet, in `binary/shutdown.rs`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::support::procs::{self, Proc};
use crate::support::{started, Fixtures, Mcp};
use serde_json::json;

/// How long shutdown may take: on EOF of stdin or SIGTERM the browser and every child process
/// are gone and the temporary profile is deleted within a second.
pub(crate) const SHUTDOWN_LIMIT: Duration = Duration::from_secs(1);
/// Extra time for the kernel to reap grandchildren that were re-parented to init.
const REAP_SLACK: Duration = Duration::from_millis(250);

// ---------------------------------------------------------------- shutdown

/// What a launched browser looks like from outside.
struct Browser {
    /// Everything the server started (browser, zygotes, renderers, crash handlers).
    processes: Vec<Proc>,
    profile: PathBuf,
}

/// Make the server launch its browser (open a fixture page) and note its processes and profile.
fn launch_browser(mcp: &Mcp, fx: &Fixtures) -> Browser {
    mcp.call_ok("new_page", json!({"url": fx.url("/pages/hello.html")}));
    let processes = mcp.started_processes();
    assert!(
        processes
            .iter()
            .any(|p| p.command().contains("--remote-debugging-pipe")),
        "no browser among the server's children: {processes:?}"
    );
    let dirs = mcp.user_data_dirs();
    assert_eq!(dirs.len(), 1, "expected one browser profile, got {dirs:?}");
    let profile = dirs[0].clone();
    assert!(
        profile.is_dir(),
        "profile {} does not exist",
        profile.display()
    );
    Browser { processes, profile }
}

/// Everything the server started must be gone, and the profile deleted, by `deadline`.
fn assert_browser_gone(mcp: &Mcp, browser: &Browser, deadline: Instant) {
    let needle = browser.profile.to_string_lossy().into_owned();
    let gone = || {
        browser.processes.iter().all(|p| !procs::alive(p.pid))
            && mcp.tagged_processes().is_empty()
            && procs::find_by_cmdline(&needle).is_empty()
            && !browser.profile.exists()
    };
    let left = deadline.saturating_duration_since(Instant::now());
    if !procs::wait_until(left, gone) {
        let alive: Vec<&Proc> = browser
            .processes
            .iter()
            .filter(|p| procs::alive(p.pid))
            .collect();
        panic!(
            "after shutdown: live browser processes {alive:?}, processes started by the server \
             {:?}, processes naming the profile {:?}, profile {} exists: {}",
            mcp.tagged_processes(),
            procs::find_by_cmdline(&needle),
            browser.profile.display(),
            browser.profile.exists()
        );
    }
}

#[test]

fn eof_on_stdin_exits_and_removes_the_browser_and_profile() {
    let fx = Fixtures::start();
    let mcp = started();
    let browser = launch_browser(&mcp, &fx);
    let closed = Instant::now();
    mcp.close_stdin();
    let status = mcp
        .wait_exit(SHUTDOWN_LIMIT)
        .unwrap_or_else(|| panic!("server still running {SHUTDOWN_LIMIT:?} after EOF on stdin"));
    assert!(status.success(), "exit status after EOF: {status:?}");
    assert_browser_gone(&mcp, &browser, closed + SHUTDOWN_LIMIT + REAP_SLACK);
}

#[test]

fn sigterm_exits_and_removes_the_browser_and_profile() {
    let fx = Fixtures::start();
    let mcp = started();
    let browser = launch_browser(&mcp, &fx);
    let signalled = Instant::now();
    mcp.terminate();
    mcp.wait_exit(SHUTDOWN_LIMIT)
        .unwrap_or_else(|| panic!("server still running {SHUTDOWN_LIMIT:?} after SIGTERM"));
    assert_browser_gone(&mcp, &browser, signalled + SHUTDOWN_LIMIT + REAP_SLACK);
}
