//! Dialogs opened by the input tools (click, hover, type_text) and answered with
//! handle_dialog, against real Chromium and tests/fixtures/input/dialog.html.
//! Each test checks what the page itself saw (events, values, the submitted form), the
//! response text the reference gives, and that no call stalls.

use crate::support::calls::{eval, uid};
use crate::support::input::{open, unstalled};
use crate::support::{started, Fixtures, Mcp};
use serde_json::json;

#[test]
fn a_dialog_opened_by_a_click_never_stalls_and_is_answered() {
    let fx = Fixtures::start();
    let mcp = started();
    let snap = open(&mcp, &fx, "/input/dialog.html");
    a_confirm_blocks_the_page(&mcp, &snap);
    the_confirm_is_accepted(&mcp);
    a_prompt_and_a_dismissed_confirm(&mcp, &snap);
    dialogs_by_hover_key_and_later(&mcp, &snap);
}

/// A confirm opened by a click: reported, and everything that needs the page is refused
/// at once while the server still answers.
fn a_confirm_blocks_the_page(mcp: &Mcp, snap: &str) {
    let r = unstalled(mcp, "click", json!({"uid": uid(snap, "button", "Ask")}));
    assert!(!r.is_error, "{}", r.text);
    assert_eq!(
        r.text,
        "The element was clicked and it opened a dialog.\n# Open dialog\nconfirm: Proceed?.\nCall handle_dialog to handle it before continuing."
    );

    // The server and the page's listing still answer while it is open.
    let pages = unstalled(mcp, "list_pages", json!({}));
    assert!(pages.text.contains("dialog.html"), "{}", pages.text);
    // Input is refused while the dialog blocks the page.
    let r = unstalled(mcp, "click", json!({"uid": uid(snap, "button", "Name")}));
    assert!(r.is_error);
    assert_eq!(
        r.text,
        "# Open dialog\nconfirm: Proceed?.\nCall handle_dialog to handle it before continuing.\nError: A dialog is open (confirm: Proceed?)."
    );
    // So is everything that needs the page's main thread, at once rather than at a timeout.
    for (tool, args) in [
        ("evaluate_script", json!({"function": "() => 1"})),
        ("take_snapshot", json!({})),
        ("wait_for", json!({"text": ["Ask"]})),
        ("execute_3p_developer_tool", json!({"toolName": "any"})),
    ] {
        let r = unstalled(mcp, tool, args);
        assert!(r.is_error, "{tool}: {}", r.text);
        assert_eq!(
            r.text,
            "# Open dialog\nconfirm: Proceed?.\nCall handle_dialog to handle it before continuing.\nError: A dialog is open (confirm: Proceed?).",
            "{tool}"
        );
    }
    let r = unstalled(mcp, "list_3p_developer_tools", json!({}));
    assert!(r.text.starts_with("# Open dialog\n"), "{}", r.text);
}

/// The confirm accepted; then there is no dialog to answer.
fn the_confirm_is_accepted(mcp: &Mcp) {
    let r = unstalled(mcp, "handle_dialog", json!({"action": "accept"}));
    assert!(
        r.text
            .starts_with("Successfully accepted the dialog\n## Pages\n"),
        "{}",
        r.text
    );
    assert!(!r.text.contains("# Open dialog"), "{}", r.text);
    let out = eval(mcp, "() => document.getElementById('out').textContent");
    assert_eq!(out, json!("confirm=true"));

    let r = mcp.call_err("handle_dialog", json!({"action": "dismiss"}));
    assert_eq!(r.text, "Error: No open dialog found");
}

/// A prompt answered with text, and a confirm dismissed.
fn a_prompt_and_a_dismissed_confirm(mcp: &Mcp, snap: &str) {
    // A prompt, answered with text.
    let r = unstalled(mcp, "click", json!({"uid": uid(snap, "button", "Name")}));
    assert!(
        r.text
            .contains("prompt: Your name? (default value: \"Anon\")."),
        "{}",
        r.text
    );
    let r = mcp.call_ok(
        "handle_dialog",
        json!({"action": "accept", "promptText": "Zed"}),
    );
    assert!(
        r.text.starts_with("Successfully accepted the dialog"),
        "{}",
        r.text
    );
    let out = eval(mcp, "() => document.getElementById('out').textContent");
    assert_eq!(out, json!("prompt=Zed"));

    // Dismissed: confirm gives false.
    mcp.call_ok("click", json!({"uid": uid(snap, "button", "Ask")}));
    let r = mcp.call_ok("handle_dialog", json!({"action": "dismiss"}));
    assert!(
        r.text.starts_with("Successfully dismissed the dialog"),
        "{}",
        r.text
    );
    let out = eval(mcp, "() => document.getElementById('out').textContent");
    assert_eq!(out, json!("confirm=false"));
}

/// Dialogs opened by hovering, by a key and just after a click.
fn dialogs_by_hover_key_and_later(mcp: &Mcp, snap: &str) {
    // A dialog opened by hovering, and one by a key: reported the same way.
    let r = unstalled(
        mcp,
        "hover",
        json!({"uid": uid(snap, "button", "Hover alert")}),
    );
    assert!(
        r.text.starts_with(
            "The element was hovered and it opened a dialog.\n# Open dialog\nalert: Hovered!."
        ),
        "{}",
        r.text
    );
    mcp.call_ok("handle_dialog", json!({"action": "accept"}));
    mcp.call_ok("click", json!({"uid": uid(snap, "textbox", "Guarded")}));
    let r = unstalled(mcp, "type_text", json!({"text": "abc"}));
    assert!(
        r.text.contains("# Open dialog\nalert: Key: a."),
        "{}",
        r.text
    );
    mcp.call_ok("handle_dialog", json!({"action": "accept"}));

    // A dialog that opens just after the click: the click succeeded, the dialog is shown.
    let r = unstalled(
        mcp,
        "click",
        json!({"uid": uid(snap, "button", "Late alert")}),
    );
    assert!(
        r.text
            .starts_with("Successfully clicked on the element\n# Open dialog\nalert: Later."),
        "{}",
        r.text
    );
    mcp.call_ok("handle_dialog", json!({"action": "accept"}));
}
