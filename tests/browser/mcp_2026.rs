//! MCP 2026-07-28 with a browser: tool list changes go only to subscriptions, and calls are
//! complete, cancellable and use no client roots (the rest of the version is in
//! `binary/mcp_2026.rs`).

use std::time::Instant;

use crate::support::modern::{call_text, listen, modern_ok, with_envelope, SUBSCRIPTION_ID};
use crate::support::thirdparty::{page_url, EXECUTE, LIST_CHANGED, NOTIFIED};
use crate::support::{Fixtures, Mcp};
use serde_json::json;

/// Runs `late_tool` until the page has registered it (it does one second after load).
fn until_late_tool_runs(mcp: &Mcp) {
    let deadline = Instant::now() + NOTIFIED;
    loop {
        let (is_error, text) = call_text(mcp, EXECUTE, json!({"toolName": "late_tool"}));
        if !is_error {
            assert_eq!(text, "\"late\"");
            return;
        }
        assert!(Instant::now() < deadline, "late_tool never ran: {text}");
    }
}

#[test]
fn list_changes_go_only_to_subscriptions() {
    let fx = Fixtures::start();
    let mcp = Mcp::start(&[]);
    let url = page_url(&fx, "late.html");
    // No subscription: the page's late tools arrive unannounced.
    call_text(&mcp, "new_page", json!({"url": url}));
    until_late_tool_runs(&mcp);
    assert!(mcp.notification_history(LIST_CHANGED).is_empty());
    // Subscribed: each change comes tagged with the subscription.
    let subscription = listen(&mcp);
    call_text(&mcp, "navigate_page", json!({"type": "reload"}));
    let note = mcp.wait_notification(LIST_CHANGED, NOTIFIED);
    assert_eq!(
        note["params"]["_meta"][SUBSCRIPTION_ID], subscription,
        "{note}"
    );
    until_late_tool_runs(&mcp);
    // Cancelled: the stream ends without an answer, and nothing more comes.
    mcp.cancel(subscription, "done");
    mcp.drain_notifications(LIST_CHANGED);
    call_text(&mcp, "navigate_page", json!({"type": "reload"}));
    until_late_tool_runs(&mcp);
    modern_ok(&mcp, "tools/list", json!({}));
    assert!(mcp.drain_notifications(LIST_CHANGED).is_empty());
}

#[test]
fn calls_are_complete_cancellable_and_use_no_client_roots() {
    // The server's temp directory is a folder of this test's, so "outside it" does not depend
    // on where the repository lies (a clone under /tmp is inside the usual temp directory).
    let scratch = std::env::temp_dir().join(format!("mcp2026-roots-{}", std::process::id()));
    let tmp = scratch.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mcp = Mcp::start_with_env(&[], &[("TMPDIR", tmp.to_str().unwrap())]);
    let (is_error, text) = call_text(&mcp, "list_pages", json!({}));
    assert!(!is_error && text.contains("## Pages"), "{text}");
    // Cancelled: no answer, while a later call that takes longer answers.
    let slow = |ms: u64| {
        let function = format!("() => new Promise(r => setTimeout(() => r({ms}), {ms}))");
        let params = json!({"name": "evaluate_script", "arguments": {"function": function}});
        mcp.request_async("tools/call", with_envelope(params))
    };
    let cancelled = slow(1000);
    mcp.cancel(cancelled, "not needed");
    let later = slow(2000);
    let answer = mcp.wait_response(later);
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    // Answers come in order, and the cancelled call would have settled first.
    assert!(!mcp.answered(cancelled), "the cancelled call answered");
    // No roots/list is ever asked; a file outside --filesystemRoot and the temp dir is refused.
    let outside = scratch.join("mcp2026.png");
    let (is_error, text) = call_text(
        &mcp,
        "take_screenshot",
        json!({"filePath": outside.to_string_lossy()}),
    );
    assert!(is_error && text.contains("Access denied"), "{text}");
    let inside = tmp.join("mcp2026.png");
    let (is_error, text) = call_text(
        &mcp,
        "take_screenshot",
        json!({"filePath": inside.to_string_lossy()}),
    );
    assert!(!is_error, "{text}");
    assert!(inside.exists() && !outside.exists());
    assert!(mcp.notification_history("roots/list").is_empty());
    let _ = std::fs::remove_dir_all(&scratch);
}
