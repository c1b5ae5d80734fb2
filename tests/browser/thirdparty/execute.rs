//! `execute_3p_developer_tool` against the real binary and real headless Chromium:
//! arguments and errors in the reference's words, elements in and out as snapshot uids, each
//! tab running only its own tools, frames kept out of the list, and composition through
//! `evaluate_script`.
//!
//! Pages come from `tests/fixtures/thirdparty/` (its README says what each one registers) and,
//! for one-off registrations, from inline pages on the fixture server; the helpers are in
//! `support/thirdparty.rs`.

use crate::support::calls::{assert_error, returned, uid_of};
use crate::support::thirdparty::{
    assert_not_found, exec, exec_ok, json_body, list, open, page_url, until_notified, EXECUTE, LIST,
};
use crate::support::{started, Fixtures, Mcp, PROMPT};
use serde_json::json;

// ---------------------------------------------------------------- execute: arguments

#[test]
fn bad_params_and_unknown_tools_get_clear_errors() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "schemas.html");
    let failed = exec(&mcp, "configure", Some("{name:1"));
    assert!(failed.is_error, "{}", failed.text);
    assert!(
        failed
            .text
            .starts_with("Error: Failed to parse params as JSON: "),
        "{}",
        failed.text
    );
    for not_object in ["[1,2]", "\"x\"", "3", "null", "true"] {
        assert_error(
            &exec(&mcp, "configure", Some(not_object)),
            "Failed to parse params as JSON: Parsed params is not an object",
        );
    }
    // Absent or empty params are {}: here, that misses required properties.
    for empty in [None, Some("")] {
        let r = exec(&mcp, "configure", empty);
        assert!(r.is_error, "{}", r.text);
        assert!(
            r.text
                .starts_with("Error: Invalid parameters for tool configure: "),
            "{}",
            r.text
        );
        assert!(r.text.contains("\"name\""), "{}", r.text);
    }
    // Every violation is named, with its path.
    let r = exec(
        &mcp,
        "configure",
        Some(r#"{"name":"","config":{"level":9,"extra":true},"tags":["ok",7],"other":1}"#),
    );
    assert!(r.is_error, "{}", r.text);
    assert!(
        r.text
            .starts_with("Error: Invalid parameters for tool configure: "),
        "{}",
        r.text
    );
    for path in [
        "data/name",
        "data/config/level",
        "data/config",
        "data/tags/1",
        "data ",
    ] {
        assert!(r.text.contains(path), "{path} not named in: {}", r.text);
    }
    assert!(r.text.contains("extra"), "{}", r.text);
    assert!(r.text.contains("other"), "{}", r.text);
    // Unknown tools, in the reference's words.
    assert_not_found(&exec(&mcp, "nope", None), "nope");
    assert_not_found(&exec(&mcp, "", None), "");
}

#[test]
fn thrown_and_rejected_values_are_errors_with_their_message() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "values.html");
    for (tool, message) in [
        ("throw_error", "kaput"),
        ("throw_empty_error", "SyntaxError"),
        ("throw_string", "plain string thrown"),
        ("throw_number", "7"),
        ("throw_object", r#"{"code":42,"detail":"custom"}"#),
        ("throw_null", "null"),
        (
            "throw_dom_exception",
            "Failed to execute 'querySelector' on 'Document': '!!' is not a valid selector.",
        ),
        ("reject_error", "rejected!"),
        ("reject_string", "async string"),
    ] {
        assert_error(&exec(&mcp, tool, None), message);
    }
    // The page is fine afterwards.
    assert_eq!(exec_ok(&mcp, "number_result", None), "42");
}

// ---------------------------------------------------------------- elements

#[test]
fn dom_elements_in_a_result_come_back_as_snapshot_uids() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "values.html");
    let r = exec_ok(&mcp, "element_result", None);
    let (json_text, snapshot) = r
        .split_once("\n## Latest page snapshot\n")
        .unwrap_or_else(|| panic!("no snapshot section:\n{r}"));
    let uid = uid_of(snapshot, "button \"First\"");
    assert_eq!(json_text, format!("{{\n  \"uid\": \"{uid}\"\n}}"));
    assert!(
        r.ends_with('\n'),
        "the snapshot ends the text with a newline"
    );

    // Several, one twice: the same element gets the same uid.
    let r = exec_ok(&mcp, "elements", None);
    let v = json_body(&r);
    let snapshot = r
        .split_once("## Latest page snapshot\n")
        .map(|x| x.1)
        .unwrap_or("");
    assert_eq!(
        v["title"]["uid"],
        json!(uid_of(snapshot, "heading \"Odd values\""))
    );
    assert_eq!(v["again"], v["title"]);
    assert_eq!(
        v["buttons"][0]["uid"],
        json!(uid_of(snapshot, "button \"First\""))
    );
    assert_eq!(
        v["buttons"][1]["uid"],
        json!(uid_of(snapshot, "button \"Second\""))
    );
    assert_eq!(v["textNode"], "<Text instance>");
    // An element of a same-process frame gets a uid of the snapshot too.
    let in_frame = v["inFrame"]["uid"]
        .as_str()
        .unwrap_or_else(|| panic!("{r}"));
    assert!(r.contains(&format!("uid={in_frame} ")), "{r}");

    // An element the accessibility tree leaves out still gets a uid of its own.
    mcp.call_ok(
        "navigate_page",
        json!({"url": page_url(&fx, "behaviour.html")}),
    );
    let r = exec_ok(&mcp, "set_text", Some(r#"{"text":"written by a tool"}"#));
    let v = json_body(&r);
    let uid = v["uid"].as_str().unwrap_or_else(|| panic!("{r}"));
    assert!(!uid.starts_with("stashed"), "{r}");
    assert!(r.contains(&format!("uid={uid} p")), "{r}");
}

#[test]
fn an_element_param_takes_a_uid_from_take_snapshot() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "values.html");
    let snapshot = mcp.call_ok("take_snapshot", json!({})).text;
    let second = uid_of(&snapshot, "button \"Second\"");
    let params = json!({"el": {"uid": second}, "note": "n"}).to_string();
    let v = json_body(&exec_ok(&mcp, "describe_element", Some(&params)));
    assert_eq!(
        v,
        json!({"isElement": true, "tag": "BUTTON", "id": "second", "text": "Second", "note": "n"})
    );
    // The schema agents see says {uid}; anything else is refused by name.
    let r = exec(&mcp, "describe_element", Some(r#"{"el":{"id":"second"}}"#));
    assert!(r.is_error && r.text.contains("uid"), "{}", r.text);
    // An unknown uid, and one from a document that is gone.
    assert_error(
        &exec(&mcp, "describe_element", Some(r#"{"el":{"uid":"9_99"}}"#)),
        "Element uid \"9_99\" not found on page 2.",
    );
    // After a reload there is no snapshot of the new document yet (the reference's words).
    mcp.call_ok("navigate_page", json!({"type": "reload"}));
    assert_error(
        &exec(&mcp, "describe_element", Some(&params)),
        "No snapshot found for page 2. Use take_snapshot to capture one.",
    );
    // With a snapshot of the new document, the old document's uid is named as unknown, or
    // (when the page kept its uid) resolves to the same button of the new document.
    let fresh = mcp.call_ok("take_snapshot", json!({})).text;
    let stale = exec(&mcp, "describe_element", Some(&params));
    if fresh.contains(&format!("uid={second} button \"Second\"")) {
        assert_eq!(json_body(&stale.text)["id"], "second", "{}", stale.text);
    } else {
        assert_error(
            &stale,
            &format!("Element uid \"{second}\" not found on page 2."),
        );
    }

    // Angular-like: the element goes in, the component's host element comes out as a uid.
    mcp.call_ok(
        "navigate_page",
        json!({"url": page_url(&fx, "angular-like.html")}),
    );
    let snapshot = mcp.call_ok("take_snapshot", json!({})).text;
    let button = uid_of(&snapshot, "button \"+1\"");
    let params = json!({"element": {"uid": button}}).to_string();
    let r = exec_ok(&mcp, "angular:signal_graph", Some(&params));
    let v = json_body(&r);
    assert_eq!(v["component"], "app-counter", "{r}");
    let host = v["host"]["uid"].as_str().unwrap_or_else(|| panic!("{r}"));
    assert!(r.contains(&format!("uid={host} ")), "{r}");
}

// ---------------------------------------------------------------- tabs and frames

#[test]
fn each_page_runs_only_its_own_tools() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "sync.html");
    open(&mcp, &fx, "duplicates.html");
    // Selected: page 3 (duplicates). Page 2's tools run only with pageId 2.
    assert_not_found(&exec(&mcp, "add", Some(r#"{"a":1,"b":1}"#)), "add");
    let on_two = mcp.call(EXECUTE, json!({"toolName": "get_status", "pageId": 2}));
    assert_eq!(
        json_body(&on_two.text),
        json!({"status": "ready", "title": "Sync tools"})
    );
    let wrong = mcp.call(EXECUTE, json!({"toolName": "get_version", "pageId": 2}));
    assert_not_found(&wrong, "get_version");
    assert_eq!(exec_ok(&mcp, "get_version", None), "\"from First\"");
    // Each list is its page's.
    let two = mcp.call_ok(LIST, json!({"pageId": 2})).text;
    let three = mcp.call_ok(LIST, json!({"pageId": 3})).text;
    assert!(two.contains("Sync: ") && !two.contains("First: "), "{two}");
    assert!(
        three.contains("First: ") && !three.contains("Sync: "),
        "{three}"
    );
    // And a page that navigates does not touch the other's table.
    mcp.call_ok(
        "navigate_page",
        json!({"pageId": 3, "url": page_url(&fx, "no-tools.html")}),
    );
    let still = mcp.call(
        EXECUTE,
        json!({"toolName": "add", "params": r#"{"a":2,"b":2}"#, "pageId": 2}),
    );
    assert_eq!(still.text, "4");
    // An unknown page.
    let gone = mcp.call(EXECUTE, json!({"toolName": "add", "pageId": 42}));
    assert_error(&gone, "No page found");
}

#[test]
fn frames_can_never_put_tools_into_the_list() {
    let fx = Fixtures::start();
    // A second server is a second origin; as "localhost" it is another site as well.
    let other = Fixtures::start();
    let cross = format!(
        "http://localhost:{}/thirdparty/evil-frame.html",
        other.port()
    );
    let mcp = started();
    let url = format!("{}?cross={cross}", page_url(&fx, "evil-top.html"));
    mcp.call_ok("new_page", json!({ "url": url }));
    // Both frames (same origin, other site) made all their attempts (the last after 1 s).
    fx.wait_for_request("/thirdparty/evil-frame-done", PROMPT * 2);
    other.wait_for_request("/thirdparty/evil-frame-done", PROMPT * 2);
    // The positive control: a report the page makes now does reach the list.
    register_late_tool(&mcp);
    let text = list(&mcp).text;
    assert_eq!(
        text,
        "## Third-party developer tools\nTop: Tools of the top frame.\nAvailable tools:\n\
name=\"top_tool\", description=\"Returns \"top\".\", inputSchema={\"type\":\"object\",\"properties\":{}}\n\
Late: Registered after the frames were done.\nAvailable tools:\n\
name=\"late_tool\", description=\"Returns \"late\".\", inputSchema={\"type\":\"object\",\"properties\":{}}"
    );
    for tool in ["evil_tool", "evil_own"] {
        assert_not_found(&exec(&mcp, tool, None), tool);
    }
    assert_eq!(exec_ok(&mcp, "top_tool", None), "\"top\"");
    // The same-origin frame really did try (its own context has the binding, or none).
    let state = mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => document.getElementById('same').contentDocument.getElementById('state').textContent"}),
    );
    assert!(state.text.contains("binding"), "{}", state.text);

    // The fixture's iframe page: same-origin and cross-origin frames with tools of their own.
    let cross = format!(
        "http://localhost:{}/thirdparty/frame-tools.html",
        other.port()
    );
    let url = format!("{}?cross={cross}", page_url(&fx, "iframe.html"));
    mcp.call_ok("navigate_page", json!({ "url": url }));
    fx.wait_for_request("/thirdparty/frame-tools-done", PROMPT * 2);
    other.wait_for_request("/thirdparty/frame-tools-done", PROMPT * 2);
    register_late_tool(&mcp);
    let text = list(&mcp).text;
    assert!(text.contains("name=\"top_tool\""), "{text}");
    assert!(text.contains("name=\"late_tool\""), "{text}");
    assert!(
        !text.contains("frame_tool") && !text.contains("Frame:"),
        "{text}"
    );
    assert_not_found(&exec(&mcp, "frame_tool", None), "frame_tool");
}

/// The top frame registers a tool late, and the test waits until the server has it (the
/// page reports it without being asked): what the frames did before could have reached the
/// list by then.
fn register_late_tool(mcp: &Mcp) {
    mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => { window.addEventListener('devtoolstooldiscovery', (event) => \
event.respondWith({name: 'Late', description: 'Registered after the frames were done.', \
tools: [{name: 'late_tool', description: 'Returns \"late\".', \
inputSchema: {type: 'object', properties: {}}, execute: () => 'late'}]})); return 1; }"}),
    );
    until_notified(mcp, "the late tool", || {
        exec(mcp, "late_tool", None).text == "\"late\""
    });
}

// ---------------------------------------------------------------- composition

#[test]
fn evaluate_script_composes_tools_through_window_dtmcp() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "sync.html");
    let r = mcp.call_ok(
        "evaluate_script",
        json!({"function": "async () => { const s = await window.__dtmcp.executeTool('add', {a: 2, b: 3}); return window.__dtmcp.executeTool('add', {a: s, b: 10}); }"}),
    );
    assert_eq!(r.text, returned("15"));
    let groups = mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => window.__dtmcp.toolGroups.map(g => g.name)"}),
    );
    assert_eq!(groups.text, returned("[\"Sync\"]"));
    let missing = mcp.call(
        "evaluate_script",
        json!({"function": "() => window.__dtmcp.executeTool('nope', {})"}),
    );
    assert!(missing.is_error, "{}", missing.text);
    assert!(
        missing.text.contains("Tool nope not found"),
        "{}",
        missing.text
    );

    // Elements in, as evaluate_script arguments.
    mcp.call_ok(
        "navigate_page",
        json!({"url": page_url(&fx, "values.html")}),
    );
    let snapshot = mcp.call_ok("take_snapshot", json!({})).text;
    let first = uid_of(&snapshot, "button \"First\"");
    let r = mcp.call_ok(
        "evaluate_script",
        json!({"function": "async (el) => (await window.__dtmcp.executeTool('describe_element', {el})).tag", "args": [first]}),
    );
    assert_eq!(r.text, returned("\"BUTTON\""));
}
