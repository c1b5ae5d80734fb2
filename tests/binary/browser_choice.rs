//! Which browser the server starts: a window and the headless shell are refused together
//! before any browser (the builds it starts, and `--prelaunch`, are in
//! `browser/browser_choice.rs`).

use crate::browser::browser_choice::START;
use crate::support::{procs, Mcp};

#[test]
fn a_window_and_the_shell_do_not_go_together() {
    let mcp = Mcp::start_raw(&["--headless=false", "--headlessShell"]);
    assert!(
        procs::wait_until(START, || !procs::alive(mcp.pid())),
        "the server kept running"
    );
    let log = mcp.stderr_log();
    assert!(log.contains("--headlessShell runs only headless"), "{log}");
}
