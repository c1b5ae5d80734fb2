//! Source-mapped console stack traces where they must not be: with `--sourceMaps=false`,
//! and with maps that are missing, malformed or point outside themselves (generated
//! positions, no error); and the Debugger domain they need never pausing a page. What the
//! mapped traces read like is compared with the reference's in `reference_texts.rs`.

use crate::support::console_network::until;
use crate::support::{started, started_with, Fixtures, Mcp};
use serde_json::json;

/// The three frames of the fixture's `console.error`, at their generated positions.
fn generated(script: &str) -> String {
    format!("  at a ({script}:1:23)\n  at c ({script}:1:53)\n  at  ({script}:1:59)\n")
}

/// The page's listing with stack traces, once its message is in.
fn listed(mcp: &Mcp, fx: &Fixtures, page: &str) -> String {
    let url = fx.url(&format!("/source_maps/{page}"));
    mcp.call_ok("navigate_page", json!({ "url": url }));
    let args = json!({"includeStackTraces": true});
    until(mcp, "list_console_messages", args, |t| {
        t.contains("hello world")
    })
    .text
}

#[test]
fn with_source_maps_off_frames_keep_generated_positions() {
    let fx = Fixtures::start();
    let mcp = started_with(&["--sourceMaps=false"]);
    let text = listed(&mcp, &fx, "index.html");
    assert!(text.contains(&generated("app.min.js")), "{text}");
}

#[test]
fn hostile_maps_leave_generated_positions() {
    let fx = Fixtures::start();
    let mcp = started();
    for name in ["missing", "malformed", "offsets"] {
        let text = listed(&mcp, &fx, &format!("{name}.html"));
        let script = format!("{name}.min.js");
        assert!(text.contains(&generated(&script)), "{name}: {text}");
        assert!(!text.contains("Error:"), "{name}: {text}");
    }
}

#[test]
fn a_debugger_statement_does_not_pause_the_page() {
    let fx = Fixtures::start();
    let mcp = started();
    let url = fx.url("/source_maps/debugger.html");
    mcp.call_ok("navigate_page", json!({ "url": url }));
    let title = mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => document.title"}),
    );
    assert!(
        title.text.contains("after the debugger statement"),
        "{}",
        title.text
    );
}
