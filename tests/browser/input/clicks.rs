//! The pointer tools (click, click_at, hover, drag) against real Chromium and the
//! pages in tests/fixtures/input/: elements covered, hidden or disabled, navigations, popups,
//! frames and beforeunload.
//! Each test checks what the page itself saw (events, values, the submitted form), the
//! response text the reference gives, and that no call stalls.

use std::time::{Duration, Instant};

use crate::support::calls::{eval, uid};
use crate::support::input::{open, unstalled};
use crate::support::{started, started_with, Fixtures, Mcp, PROMPT};
use serde_json::{json, Value};

#[test]
fn hover_changes_the_page_state() {
    let fx = Fixtures::start();
    let mcp = started();
    let snap = open(&mcp, &fx, "/input/hover.html");
    let r = unstalled(
        &mcp,
        "hover",
        json!({"uid": uid(&snap, "button", "Menu"), "includeSnapshot": true}),
    );
    assert!(
        r.text
            .starts_with("Successfully hovered over the element\n## Latest page snapshot\n"),
        "{}",
        r.text
    );
    // The :hover rule showed the submenu, which the fresh snapshot lists.
    assert!(r.text.contains("link \"Sub item\""), "{}", r.text);
    let state = eval(&mcp, "() => document.getElementById('state').textContent");
    assert_eq!(state, json!("hovering"));
}

/// Drags drag.html's card onto its drop zone; the page saw the whole drag and the card moved.
fn drags_the_card_into_the_zone(mcp: &Mcp, snap: &str) {
    let r = unstalled(
        mcp,
        "drag",
        json!({"from_uid": uid(snap, "button", "Card"), "to_uid": uid(snap, "region", "Drop zone")}),
    );
    assert_eq!(r.text, "Successfully dragged an element");
    let state = eval(
        mcp,
        "() => [document.getElementById('log').textContent, window.dragEvents, item.parentElement.id]",
    );
    assert_eq!(
        state,
        json!(["dropped card-1", ["dragstart", "dragover", "drop"], "zone"])
    );
}

#[test]
fn drag_and_drop_moves_the_card() {
    let fx = Fixtures::start();
    let mcp = started();
    let snap = open(&mcp, &fx, "/input/drag.html");
    drags_the_card_into_the_zone(&mcp, &snap);
}

#[test]
fn a_drop_target_slow_to_answer_dragover_still_gets_its_drop() {
    let fx = Fixtures::start();
    let mcp = started();
    let snap = open(&mcp, &fx, "/input/drag.html");
    // Each dragover keeps the page busy for 300 ms: the browser learns late that the target
    // takes the drop, later than a release sent on a timer would come.
    eval(&mcp, "() => { window.busyFor = 300; return 0; }");
    drags_the_card_into_the_zone(&mcp, &snap);
}

#[test]
fn covered_hidden_and_disabled_elements_are_refused() {
    let fx = Fixtures::start();
    let mcp = started();
    let snap = open(&mcp, &fx, "/input/cover.html");
    let buy = uid(&snap, "button", "Buy now");
    let r = unstalled(&mcp, "click", json!({"uid": buy}));
    assert!(r.is_error);
    assert!(
        r.text.starts_with(&format!("Error: Failed to interact with the element with uid {buy}. The element is covered by another element")),
        "{}",
        r.text
    );
    assert!(
        r.text
            .contains("<div id=\"overlay\" class=\"modal backdrop\">"),
        "{}",
        r.text
    );
    assert_eq!(eval(&mcp, "() => window.clicked ?? null"), Value::Null);

    let r = mcp.call_err("click", json!({"uid": uid(&snap, "button", "Not yet")}));
    assert!(r.text.ends_with("The element is disabled."), "{}", r.text);

    // Hidden after the snapshot was taken.
    let vanish = uid(&snap, "button", "Vanishing");
    eval(
        &mcp,
        "() => { overlay.remove(); vanish.style.display = 'none'; return true; }",
    );
    let r = mcp.call_err("click", json!({"uid": vanish}));
    assert!(r.text.contains("not displayed"), "{}", r.text);
    eval(
        &mcp,
        "() => { vanish.style.display = ''; vanish.style.visibility = 'hidden'; return true; }",
    );
    let r = mcp.call_err("click", json!({"uid": vanish}));
    assert!(r.text.contains("hidden"), "{}", r.text);
    // Removed from the page.
    eval(&mcp, "() => { vanish.remove(); return true; }");
    let r = mcp.call_err("click", json!({"uid": vanish}));
    assert!(r.text.contains("no longer exists"), "{}", r.text);

    // With the overlay gone the first button takes the click.
    let r = mcp.call_ok("click", json!({"uid": buy}));
    assert_eq!(r.text, "Successfully clicked on the element");
    assert_eq!(eval(&mcp, "() => window.clicked"), json!("under"));
}

#[test]
fn clicks_navigate_double_click_and_reach_far_elements() {
    let fx = Fixtures::start();
    let mcp = started_with(&["--experimentalVision"]);
    let snap = open(&mcp, &fx, "/input/nav.html");

    // Below the fold: scrolled into view first.
    mcp.call_ok("click", json!({"uid": uid(&snap, "button", "Far away")}));
    assert_eq!(eval(&mcp, "() => window.far"), json!(true));

    let r = unstalled(
        &mcp,
        "click",
        json!({"uid": uid(&snap, "button", "Double me"), "dblClick": true}),
    );
    assert_eq!(r.text, "Successfully double clicked on the element");
    assert_eq!(eval(&mcp, "() => count.textContent"), json!("double"));

    // A DOM change shortly after the click is waited for and shows in the snapshot.
    let r = unstalled(
        &mcp,
        "click",
        json!({"uid": uid(&snap, "button", "Grow"), "includeSnapshot": true}),
    );
    assert!(r.text.contains("\"Grown\""), "{}", r.text);

    // An option of a select is chosen.
    mcp.call_ok("click", json!({"uid": uid(&snap, "option", "Two")}));
    assert_eq!(eval(&mcp, "() => pick.value"), json!("2"));

    // click_at hits what is there.
    eval(&mcp, "() => { window.scrollTo(0, 0); return true; }");
    let r = unstalled(&mcp, "click_at", json!({"x": 400, "y": 250}));
    assert_eq!(r.text, "Successfully clicked at the coordinates");
    assert_eq!(eval(&mcp, "() => count.textContent"), json!("big clicked"));

    // Same-document navigation is reported too.
    let r = unstalled(
        &mcp,
        "click",
        json!({"uid": uid(&snap, "button", "Push state")}),
    );
    assert_eq!(
        r.text,
        format!(
            "Successfully clicked on the element\nPage navigated to {}.",
            fx.url("/input/pushed")
        )
    );

    // A link: the new document has loaded when the answer comes.
    let snap = mcp.call_ok("take_snapshot", json!({})).text;
    let r = unstalled(
        &mcp,
        "click",
        json!({"uid": uid(&snap, "link", "Next page")}),
    );
    assert_eq!(
        r.text,
        format!(
            "Successfully clicked on the element\nPage navigated to {}.",
            fx.url("/input/result.html?from=link")
        )
    );
    let out = eval(&mcp, "() => document.getElementById('out').textContent");
    assert_eq!(out, json!("{\"from\":\"link\"}"));
}

#[test]
fn popups_frames_beforeunload_and_slow_navigations() {
    let fx = Fixtures::start();
    let mcp = started();

    // A link that opens a tab is reported with the new page's id.
    let snap = open(&mcp, &fx, "/input/nav.html");
    let r = unstalled(&mcp, "click", json!({"uid": uid(&snap, "link", "New tab")}));
    assert!(
        r.text
            .starts_with("Successfully clicked on the element\n## Opened pages\n2: "),
        "{}",
        r.text
    );
    // (Its URL may not be known yet: the tab is only starting to load.)
    let pages = mcp.call_ok("list_pages", json!({})).text;
    assert!(pages.contains("\n2: "), "{pages}");

    // An element inside a frame is aimed at through the frame's offset.
    let snap = open(&mcp, &fx, "/input/unload.html");
    mcp.call_ok("click", json!({"uid": uid(&snap, "button", "Inside")}));
    assert_eq!(eval(&mcp, "() => window.innerClicked"), json!(true));

    // Leaving a page with unsaved changes: the beforeunload dialog is reported, and
    // accepting it lets the navigation go on.
    mcp.call_ok(
        "fill",
        json!({"uid": uid(&snap, "textbox", "Draft"), "value": "unsaved"}),
    );
    let r = unstalled(&mcp, "click", json!({"uid": uid(&snap, "link", "Leave")}));
    assert_eq!(
        r.text,
        "The element was clicked and it opened a dialog.\n# Open dialog\nbeforeunload: .\nCall handle_dialog to handle it before continuing."
    );
    mcp.call_ok("handle_dialog", json!({"action": "accept"}));
    let deadline = Instant::now() + PROMPT;
    loop {
        let pages = mcp.call_ok("list_pages", json!({})).text;
        if pages.contains("result.html?from=unload") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the page did not leave:\n{pages}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    // A navigation that takes long is waited for only briefly: its page is held back until the
    // click has answered, so an answer shows the click did not wait for it (a server that
    // did would answer the call's time limit instead).
    let gate = fx.held_route(
        "/slow",
        crate::support::Response::html("<title>Slow</title><p>late</p>"),
    );
    let url = fx.page_url_with_html(&format!("<a href=\"{}\">Slow link</a>", fx.url("/slow")));
    mcp.call_ok("navigate_page", json!({"url": url}));
    let snap = mcp.call_ok("take_snapshot", json!({})).text;
    let r = mcp.call("click", json!({"uid": uid(&snap, "link", "Slow link")}));
    assert_eq!(r.text, "Successfully clicked on the element");
    // The link was followed (its request waits at the gate).
    fx.wait_for_request("/slow", Duration::from_secs(30));
    gate.open();
}
