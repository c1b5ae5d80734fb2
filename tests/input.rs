//! The input tools of issue 4 (click, click_at, hover, drag, fill, fill_form, press_key,
//! type_text, upload_file, handle_dialog) against real Chromium and the pages in
//! tests/fixtures/input/. Each test checks what the page itself saw (events, values, the
//! submitted form), the response text the reference gives, and that no call stalls.

mod common;

use std::time::{Duration, Instant};

use common::calls::{eval, uid};
use common::{started, Fixtures, Mcp};
use serde_json::{json, Value};

/// Nothing in these pages takes long: a call that needs more than this is stalling.
const PROMPT: Duration = Duration::from_secs(5);

/// Opens a fixture page and returns its snapshot text.
fn open(mcp: &Mcp, fx: &Fixtures, path: &str) -> String {
    mcp.call_ok("navigate_page", json!({"url": fx.url(path)}));
    mcp.call_ok("take_snapshot", json!({})).text
}

/// A call that must answer quickly.
fn timed(mcp: &Mcp, tool: &str, args: Value) -> common::ToolResult {
    let started = Instant::now();
    let r = mcp.call(tool, args);
    let took = started.elapsed();
    assert!(took < PROMPT, "{tool} took {took:?}: {}", r.text);
    r
}

#[test]
fn a_form_is_filled_and_submitted() {
    let fx = Fixtures::start();
    let mcp = started();
    let snap = open(&mcp, &fx, "/input/form.html");
    let r = timed(
        &mcp,
        "fill_form",
        json!({"elements": [
            {"uid": uid(&snap, "textbox", "Name"), "value": "Ada Lovelace"},
            {"uid": uid(&snap, "textbox", "Email"), "value": "ada@example.com"},
            {"uid": uid(&snap, "textbox", "Notes"), "value": "line one\nline two"},
            {"uid": uid(&snap, "combobox", "Color"), "value": "Blue"},
            {"uid": uid(&snap, "combobox", "Size"), "value": "l"},
            {"uid": uid(&snap, "checkbox", "Subscribe"), "value": "true"},
            {"uid": uid(&snap, "checkbox", "Accept terms"), "value": "true"},
            {"uid": uid(&snap, "radio", "Pro plan"), "value": "true"},
            {"uid": uid(&snap, "Date", "Birthday"), "value": "2020-02-29"},
            {"uid": uid(&snap, "textbox", "Bio"), "value": "Wrote the first program"},
        ]}),
    );
    assert!(!r.is_error, "{}", r.text);
    assert_eq!(r.text, "Successfully filled out the form");

    // Text went in as key events, selects and checkboxes fired change.
    let events = eval(&mcp, "() => window.events");
    assert!(events["keydown"].as_u64().unwrap_or(0) >= 12, "{events}");
    let changed: Vec<&str> = events["change"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for id in ["color", "size", "subscribe", "plan-pro", "birthday"] {
        assert!(changed.contains(&id), "no change event on {id}: {events}");
    }

    let r = timed(
        &mcp,
        "click",
        json!({"uid": uid(&snap, "button", "Submit")}),
    );
    assert!(!r.is_error, "{}", r.text);
    assert!(
        r.text
            .starts_with("Successfully clicked on the element\nPage navigated to "),
        "{}",
        r.text
    );
    assert!(
        r.text.contains("/input/result.html?name=Ada+Lovelace"),
        "{}",
        r.text
    );
    assert!(!r.text.contains("## Latest page snapshot"), "{}", r.text);

    let sent = eval(
        &mcp,
        "() => JSON.parse(document.getElementById('out').textContent)",
    );
    assert_eq!(
        sent,
        json!({
            "name": "Ada Lovelace",
            "email": "ada@example.com",
            "notes": "line one\r\nline two",
            "color": "b",
            "size": "l",
            "subscribe": "yes",
            "terms": "yes",
            "plan": "pro",
            "birthday": "2020-02-29",
            "bio": "Wrote the first program",
        })
    );
}

#[test]
fn fill_handles_each_kind_of_element() {
    let fx = Fixtures::start();
    let mcp = started();
    let snap = open(&mcp, &fx, "/input/form.html");

    // A select by the option's value, a checkbox unticked, text replaced.
    let r = mcp.call_ok(
        "fill",
        json!({"uid": uid(&snap, "combobox", "Color"), "value": "r"}),
    );
    assert_eq!(r.text, "Successfully filled out the element");
    mcp.call_ok(
        "fill",
        json!({"uid": uid(&snap, "checkbox", "Accept terms"), "value": "false"}),
    );
    mcp.call_ok(
        "fill",
        json!({"uid": uid(&snap, "textbox", "Email"), "value": "new@example.com"}),
    );
    let r = mcp.call_ok(
        "fill",
        json!({"uid": uid(&snap, "textbox", "Bio"), "value": "Ünïcødé ✓", "includeSnapshot": true}),
    );
    assert!(
        r.text
            .starts_with("Successfully filled out the element\n## Latest page snapshot\n"),
        "{}",
        r.text
    );
    let state = eval(
        &mcp,
        "() => [color.value, terms.checked, email.value, bio.innerText]",
    );
    assert_eq!(state, json!(["r", false, "new@example.com", "Ünïcødé ✓"]));

    // Wrong values say what is wrong.
    let r = mcp.call_err(
        "fill",
        json!({"uid": uid(&snap, "combobox", "Color"), "value": "Purple"}),
    );
    assert!(
        r.text
            .contains("Could not find option with text \"Purple\""),
        "{}",
        r.text
    );
    let r = mcp.call_err(
        "fill",
        json!({"uid": uid(&snap, "checkbox", "Subscribe"), "value": "yes"}),
    );
    assert!(
        r.text
            .contains("require \"true\" or \"false\" value, but yes was used"),
        "{}",
        r.text
    );
    let r = mcp.call_err("fill", json!({"uid": "9_999", "value": "x"}));
    assert!(r.text.contains("9_999"), "{}", r.text);
    let r = mcp.call_err(
        "fill",
        json!({"uid": uid(&snap, "heading", "Sign up"), "value": "x"}),
    );
    assert!(r.text.contains("cannot be filled out"), "{}", r.text);
}

#[test]
fn key_combinations_reach_the_page() {
    let fx = Fixtures::start();
    let mcp = started();
    let snap = open(&mcp, &fx, "/input/keys.html");
    mcp.call_ok("click", json!({"uid": uid(&snap, "textbox", "Field")}));

    let r = timed(&mcp, "press_key", json!({"key": "Control+Shift+R"}));
    assert_eq!(r.text, "Successfully pressed key: Control+Shift+R");
    let last = eval(&mcp, "() => document.getElementById('last').textContent");
    assert_eq!(last, json!("Control+Shift+R seen"));

    mcp.call_ok("press_key", json!({"key": "Control++"}));
    mcp.call_ok("press_key", json!({"key": "ArrowDown"}));
    let keys = eval(&mcp, "() => window.keys");
    let keys = keys.as_array().unwrap();
    let r_key = keys.iter().find(|k| k["key"] == "R").expect("R seen");
    assert_eq!(r_key["ctrl"], true);
    assert_eq!(r_key["shift"], true);
    assert_eq!(r_key["code"], "KeyR");
    assert_eq!(r_key["keyCode"], 82);
    let plus = keys.iter().find(|k| k["key"] == "+").expect("+ seen");
    assert_eq!(plus["ctrl"], true);
    assert!(keys
        .iter()
        .any(|k| k["key"] == "ArrowDown" && k["ctrl"] == false));
    // Modifiers were released: the last key came without them.
    assert_eq!(keys.last().unwrap()["shift"], false);

    // Typing, with a submit key.
    let r = timed(
        &mcp,
        "type_text",
        json!({"text": "Hi there é", "submitKey": "Enter"}),
    );
    assert_eq!(r.text, "Typed text \"Hi there é + Enter\"");
    let state = eval(&mcp, "() => [field.value, window.submitted]");
    assert_eq!(state, json!(["Hi there é", 1]));

    let r = mcp.call_err("press_key", json!({"key": "Ctrl+A"}));
    assert!(
        r.text
            .starts_with("Error: Ctrl is invalid. Valid keys are: 0,1,2"),
        "{}",
        r.text
    );
    let r = mcp.call_err("press_key", json!({"key": "Shift+Shift"}));
    assert_eq!(r.text, "Error: Key Shift+Shift contains duplicate keys.");
    let r = mcp.call_err("type_text", json!({"text": "x", "submitKey": "Submit"}));
    assert_eq!(r.text, "Error: Unknown key: \"Submit\"");
}

#[test]
fn a_dialog_opened_by_a_click_never_stalls_and_is_answered() {
    let fx = Fixtures::start();
    let mcp = started();
    let snap = open(&mcp, &fx, "/input/dialog.html");

    let r = timed(&mcp, "click", json!({"uid": uid(&snap, "button", "Ask")}));
    assert!(!r.is_error, "{}", r.text);
    assert_eq!(
        r.text,
        "The element was clicked and it opened a dialog.\n# Open dialog\nconfirm: Proceed?.\nCall handle_dialog to handle it before continuing."
    );

    // The server and the page's listing still answer while it is open.
    let pages = timed(&mcp, "list_pages", json!({}));
    assert!(pages.text.contains("dialog.html"), "{}", pages.text);
    // Input is refused while the dialog blocks the page.
    let r = timed(&mcp, "click", json!({"uid": uid(&snap, "button", "Name")}));
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
        let r = timed(&mcp, tool, args);
        assert!(r.is_error, "{tool}: {}", r.text);
        assert_eq!(
            r.text,
            "# Open dialog\nconfirm: Proceed?.\nCall handle_dialog to handle it before continuing.\nError: A dialog is open (confirm: Proceed?).",
            "{tool}"
        );
    }
    let r = timed(&mcp, "list_3p_developer_tools", json!({}));
    assert!(r.text.starts_with("# Open dialog\n"), "{}", r.text);

    let r = timed(&mcp, "handle_dialog", json!({"action": "accept"}));
    assert!(
        r.text
            .starts_with("Successfully accepted the dialog\n## Pages\n"),
        "{}",
        r.text
    );
    assert!(!r.text.contains("# Open dialog"), "{}", r.text);
    let out = eval(&mcp, "() => document.getElementById('out').textContent");
    assert_eq!(out, json!("confirm=true"));

    let r = mcp.call_err("handle_dialog", json!({"action": "dismiss"}));
    assert_eq!(r.text, "Error: No open dialog found");

    // A prompt, answered with text.
    let r = timed(&mcp, "click", json!({"uid": uid(&snap, "button", "Name")}));
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
    let out = eval(&mcp, "() => document.getElementById('out').textContent");
    assert_eq!(out, json!("prompt=Zed"));

    // Dismissed: confirm gives false.
    mcp.call_ok("click", json!({"uid": uid(&snap, "button", "Ask")}));
    let r = mcp.call_ok("handle_dialog", json!({"action": "dismiss"}));
    assert!(
        r.text.starts_with("Successfully dismissed the dialog"),
        "{}",
        r.text
    );
    let out = eval(&mcp, "() => document.getElementById('out').textContent");
    assert_eq!(out, json!("confirm=false"));

    // A dialog opened by hovering, and one by a key: reported the same way.
    let r = timed(
        &mcp,
        "hover",
        json!({"uid": uid(&snap, "button", "Hover alert")}),
    );
    assert!(
        r.text.starts_with(
            "The element was hovered and it opened a dialog.\n# Open dialog\nalert: Hovered!."
        ),
        "{}",
        r.text
    );
    mcp.call_ok("handle_dialog", json!({"action": "accept"}));
    mcp.call_ok("click", json!({"uid": uid(&snap, "textbox", "Guarded")}));
    let r = timed(&mcp, "type_text", json!({"text": "abc"}));
    assert!(
        r.text.contains("# Open dialog\nalert: Key: a."),
        "{}",
        r.text
    );
    mcp.call_ok("handle_dialog", json!({"action": "accept"}));

    // A dialog that opens just after the click: the click succeeded, the dialog is shown.
    let r = timed(
        &mcp,
        "click",
        json!({"uid": uid(&snap, "button", "Late alert")}),
    );
    assert!(
        r.text
            .starts_with("Successfully clicked on the element\n# Open dialog\nalert: Later."),
        "{}",
        r.text
    );
    mcp.call_ok("handle_dialog", json!({"action": "accept"}));
}

#[test]
fn hover_changes_the_page_state() {
    let fx = Fixtures::start();
    let mcp = started();
    let snap = open(&mcp, &fx, "/input/hover.html");
    let r = timed(
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

#[test]
fn drag_and_drop_moves_the_card() {
    let fx = Fixtures::start();
    let mcp = started();
    let snap = open(&mcp, &fx, "/input/drag.html");
    let r = timed(
        &mcp,
        "drag",
        json!({"from_uid": uid(&snap, "button", "Card"), "to_uid": uid(&snap, "region", "Drop zone")}),
    );
    assert_eq!(r.text, "Successfully dragged an element");
    let state = eval(
        &mcp,
        "() => [document.getElementById('log').textContent, window.dragEvents, item.parentElement.id]",
    );
    assert_eq!(
        state,
        json!(["dropped card-1", ["dragstart", "dragover", "drop"], "zone"])
    );
}

#[test]
fn upload_file_gives_the_page_the_files() {
    let fx = Fixtures::start();
    let mcp = started();
    let dir = std::env::temp_dir().join(format!("devtools-mcp-upload-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a = dir.join("a.txt");
    let b = dir.join("b.txt");
    std::fs::write(&a, "hello").unwrap();
    std::fs::write(&b, "hello world").unwrap();
    let (a, b) = (
        a.to_string_lossy().into_owned(),
        b.to_string_lossy().into_owned(),
    );

    let snap = open(&mcp, &fx, "/input/upload.html");
    let input = snap
        .lines()
        .find(|l| l.contains("Attachment") && l.contains("button"))
        .and_then(|l| l.trim_start().strip_prefix("uid="))
        .and_then(|l| l.split(' ').next())
        .unwrap_or_else(|| panic!("no file input in:\n{snap}"))
        .to_owned();
    let r = timed(&mcp, "upload_file", json!({"uid": input, "filePaths": [a]}));
    assert_eq!(r.text, format!("File uploaded from {a}."));
    let out = eval(&mcp, "() => document.getElementById('out').textContent");
    assert_eq!(out, json!("file a.txt:5"));

    // Two files into a single-file input is refused.
    let r = mcp.call_err("upload_file", json!({"uid": input, "filePaths": [a, b]}));
    assert!(
        r.text
            .contains("Multiple file uploads only work with <input type=file multiple>"),
        "{}",
        r.text
    );

    // Through a button that opens a file chooser.
    let r = timed(
        &mcp,
        "upload_file",
        json!({"uid": uid(&snap, "button", "Choose a file"), "filePaths": [b]}),
    );
    assert!(!r.is_error, "{}", r.text);
    let out = eval(&mcp, "() => document.getElementById('out').textContent");
    assert_eq!(out, json!("hidden-file b.txt:11"));

    // A button that opens nothing.
    let r = timed(
        &mcp,
        "upload_file",
        json!({"uid": uid(&snap, "button", "Does nothing"), "filePaths": [b]}),
    );
    assert!(r.is_error);
    assert!(
        r.text
            .contains("clicking it did not trigger a file chooser"),
        "{}",
        r.text
    );

    let r = mcp.call_err(
        "upload_file",
        json!({"uid": input, "filePaths": ["/no/such/file.txt"]}),
    );
    assert!(r.text.contains("/no/such/file.txt"), "{}", r.text);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn covered_hidden_and_disabled_elements_are_refused() {
    let fx = Fixtures::start();
    let mcp = started();
    let snap = open(&mcp, &fx, "/input/cover.html");
    let buy = uid(&snap, "button", "Buy now");
    let r = timed(&mcp, "click", json!({"uid": buy}));
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
    let mcp = started();
    let snap = open(&mcp, &fx, "/input/nav.html");

    // Below the fold: scrolled into view first.
    mcp.call_ok("click", json!({"uid": uid(&snap, "button", "Far away")}));
    assert_eq!(eval(&mcp, "() => window.far"), json!(true));

    let r = timed(
        &mcp,
        "click",
        json!({"uid": uid(&snap, "button", "Double me"), "dblClick": true}),
    );
    assert_eq!(r.text, "Successfully double clicked on the element");
    assert_eq!(eval(&mcp, "() => count.textContent"), json!("double"));

    // A DOM change shortly after the click is waited for and shows in the snapshot.
    let r = timed(
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
    let r = timed(&mcp, "click_at", json!({"x": 400, "y": 250}));
    assert_eq!(r.text, "Successfully clicked at the coordinates");
    assert_eq!(eval(&mcp, "() => count.textContent"), json!("big clicked"));

    // Same-document navigation is reported too.
    let r = timed(
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
    let r = timed(
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
    let r = timed(&mcp, "click", json!({"uid": uid(&snap, "link", "New tab")}));
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
    let r = timed(&mcp, "click", json!({"uid": uid(&snap, "link", "Leave")}));
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

    // A navigation that takes long is waited for only briefly.
    fx.route("/slow", |_| {
        common::Response::html("<title>Slow</title><p>late</p>").delay(Duration::from_secs(8))
    });
    let url = fx.page_url_with_html(&format!("<a href=\"{}\">Slow link</a>", fx.url("/slow")));
    mcp.call_ok("navigate_page", json!({"url": url}));
    let snap = mcp.call_ok("take_snapshot", json!({})).text;
    let started = Instant::now();
    let r = mcp.call("click", json!({"uid": uid(&snap, "link", "Slow link")}));
    let took = started.elapsed();
    assert_eq!(r.text, "Successfully clicked on the element");
    assert!(took < Duration::from_millis(4500), "took {took:?}");
}
