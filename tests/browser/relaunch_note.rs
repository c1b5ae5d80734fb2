//! After the browser dies and a later call starts a new one, the first answer says so and what
//! was lost, whichever tool gives it — not only the answers that list pages — and only once.

use crate::support::calls::{call_async, tool_result, until_logged};
use crate::support::pages::page_url;
use crate::support::procs;
use crate::support::{browser_main_process, started, Fixtures, Mcp, PROMPT};
use serde_json::json;

const LOST_NOTE: &str = "Note: the browser was restarted or reconnected since the last call. \
The pages open before were lost, with their state (page ids, scripts, dialogs, emulation, \
console and network records). Call list_pages to see open pages.";

/// Kills the browser's whole process group and waits until the server has noticed (a call
/// that waits on the page fails).
fn kill_browser(mcp: &Mcp) {
    let browser = browser_main_process(mcp);
    let hanging = call_async(
        mcp,
        "evaluate_script",
        json!({"function": "() => { console.log('reached the page'); return new Promise(() => {}) }", "timeout": 60000}),
    );
    until_logged(mcp, None, "reached the page");
    // The browser leads its own process group.
    procs::signal_group(browser.pid, libc::SIGKILL);
    let failed = tool_result(&mcp.wait_response_timeout(hanging, PROMPT));
    assert!(failed.is_error, "{}", failed.text);
    // Lost is not yet restarted: the call that saw the loss does not carry the note.
    assert!(
        !failed.text.contains("Note: the browser"),
        "{}",
        failed.text
    );
}

#[test]
fn the_first_answer_after_a_relaunch_says_the_pages_were_lost() {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": page_url(&fx, "start.html")}));
    kill_browser(&mcp);

    let first = mcp.call_ok("evaluate_script", json!({"function": "() => 6 * 7"}));
    assert!(
        first.text.starts_with(&format!("{LOST_NOTE}\n")),
        "{}",
        first.text
    );
    let again = mcp.call_ok("evaluate_script", json!({"function": "() => 6 * 7"}));
    assert!(!again.text.contains("Note: the browser"), "{}", again.text);

    // Another family, another loss: the same.
    mcp.call_ok(
        "navigate_page",
        json!({"url": page_url(&fx, "second.html")}),
    );
    kill_browser(&mcp);
    let snapshot = mcp.call_ok("take_snapshot", json!({}));
    assert!(
        snapshot.text.starts_with(&format!("{LOST_NOTE}\n")),
        "{}",
        snapshot.text
    );
}

#[test]
fn an_error_answer_after_a_relaunch_says_it_too() {
    let fx = Fixtures::start();
    let mcp = started();
    mcp.call_ok("new_page", json!({"url": page_url(&fx, "start.html")}));
    kill_browser(&mcp);

    let first = mcp.call(
        "evaluate_script",
        json!({"function": "() => { throw new Error('after the relaunch'); }"}),
    );
    assert!(first.is_error, "{}", first.text);
    assert!(
        first.text.starts_with(&format!("{LOST_NOTE}\n")),
        "{}",
        first.text
    );
    assert!(first.text.contains("Error: "), "{}", first.text);
    assert!(first.text.contains("after the relaunch"), "{}", first.text);
    let again = mcp.call_ok("evaluate_script", json!({"function": "() => 1"}));
    assert!(!again.text.contains("Note: the browser"), "{}", again.text);
}
