//! The input tools that write into a page (fill, fill_form, press_key, type_text,
//! upload_file, click to submit) against real Chromium and the pages in tests/fixtures/input/.
//! Each test checks what the page itself saw (events, values, the submitted form), the
//! response text the reference gives, and that no call stalls.

use crate::support::calls::{eval, uid};
use crate::support::input::{open, unstalled};
use crate::support::{started, Fixtures};
use serde_json::{json, Value};

#[test]
fn a_form_is_filled_and_submitted() {
    let fx = Fixtures::start();
    let mcp = started();
    let snap = open(&mcp, &fx, "/input/form.html");
    let r = unstalled(
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

    let r = unstalled(
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

    let r = unstalled(&mcp, "press_key", json!({"key": "Control+Shift+R"}));
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
    let r = unstalled(
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
    let r = unstalled(&mcp, "upload_file", json!({"uid": input, "filePaths": [a]}));
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
    let r = unstalled(
        &mcp,
        "upload_file",
        json!({"uid": uid(&snap, "button", "Choose a file"), "filePaths": [b]}),
    );
    assert!(!r.is_error, "{}", r.text);
    let out = eval(&mcp, "() => document.getElementById('out').textContent");
    assert_eq!(out, json!("hidden-file b.txt:11"));

    // A button that opens nothing.
    let r = unstalled(
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
