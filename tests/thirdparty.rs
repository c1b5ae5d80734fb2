//! Issue 3's third-party developer tools against the real binary and real headless Chromium:
//! discovery (sync, microtask, promise, late, SPA), bad registrations, the list text of
//! chrome-devtools-mcp 1.11 (the reference; /work/notes/reference-responses.md section 3),
//! `execute_3p_developer_tool` arguments, results and errors, elements in and out, and the
//! server never wedging: timeouts, busy loops, cancellation, dialogs, navigation and crashes
//! mid-call, several tabs, frames, composition through `evaluate_script`, and
//! `--exposePageTools`.
//!
//! Pages come from `tests/fixtures/thirdparty/` (its README says what each one registers) and,
//! for one-off registrations, from inline pages on the fixture server.

mod common;

use std::collections::HashSet;
use std::fs;
use std::thread;
use std::time::{Duration, Instant};

use common::calls::{assert_error, assert_no_response, call_async, returned, tool_result, uid_of};
use common::{browser_main_process, started, started_with, Fixtures, Mcp, ToolResult};
use serde_json::{json, Value};

/// How soon calls that do not depend on a busy page must answer. The calls themselves take
/// milliseconds; the slack is for a shared two-core machine under load.
const PROMPT: Duration = Duration::from_secs(5);
/// How long a page's tools may take to reach the server by notification.
const NOTIFIED: Duration = Duration::from_secs(8);
const LIST_CHANGED: &str = "notifications/tools/list_changed";
const EXECUTE: &str = "execute_3p_developer_tool";
const LIST: &str = "list_3p_developer_tools";
const SECTION: &str = "## Third-party developer tools";

// ---------------------------------------------------------------- helpers

fn page_url(fx: &Fixtures, file: &str) -> String {
    fx.url(&format!("/thirdparty/{file}"))
}

/// `new_page` on a fixture page; returns the answer.
fn open(mcp: &Mcp, fx: &Fixtures, file: &str) -> ToolResult {
    mcp.call_ok("new_page", json!({"url": page_url(fx, file)}))
}

/// `execute_3p_developer_tool` on the selected page, with `params` as given (None: absent).
fn exec(mcp: &Mcp, tool: &str, params: Option<&str>) -> ToolResult {
    let mut args = json!({"toolName": tool});
    if let Some(p) = params {
        args["params"] = json!(p);
    }
    mcp.call(EXECUTE, args)
}

/// `execute_3p_developer_tool` that must succeed; returns its text.
fn exec_ok(mcp: &Mcp, tool: &str, params: Option<&str>) -> String {
    let r = exec(mcp, tool, params);
    assert!(!r.is_error, "{tool} {params:?} failed: {}", r.text);
    r.text
}

fn list(mcp: &Mcp) -> ToolResult {
    mcp.call_ok(LIST, json!({}))
}

/// The third-party section of an answer (from its heading to the end), or "" when absent.
fn section(text: &str) -> &str {
    text.find(SECTION).map(|i| &text[i..]).unwrap_or("")
}

fn assert_not_found(result: &ToolResult, tool: &str) {
    assert_error(result, &format!("Tool {tool} not found"));
}

/// Waits for `list_changed` notifications (never polling the page) until `ready` holds,
/// checking it after each one. Panics after `NOTIFIED`.
fn until_notified(mcp: &Mcp, what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + NOTIFIED;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if mcp.poll_notification(LIST_CHANGED, left).is_none() {
            panic!("no notification brought {what} within {NOTIFIED:?}");
        }
        if ready() {
            return;
        }
    }
}

/// The body of a tool result that holds JSON (before any snapshot section), parsed.
fn json_body(text: &str) -> Value {
    let body = text.split("\n## Latest page snapshot").next().unwrap_or("");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}

fn tool_names(mcp: &Mcp) -> Vec<String> {
    mcp.list_tools()
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect()
}

// ---------------------------------------------------------------- discovery

#[test]
fn sync_tools_are_listed_by_new_page_and_run_at_once() {
    let fx = Fixtures::start();
    let mcp = started();
    let page = open(&mcp, &fx, "sync.html");
    assert!(
        section(&page.text).contains("Sync: Tools answered synchronously."),
        "{}",
        page.text
    );
    // Right after new_page, without a list.
    assert_eq!(exec_ok(&mcp, "add", Some(r#"{"a":2,"b":3}"#)), "5");
    assert_eq!(
        json_body(&exec_ok(&mcp, "get_status", None)),
        json!({"status": "ready", "title": "Sync tools"})
    );
    // Listing never takes long for a page that answers at once.
    let began = Instant::now();
    list(&mcp);
    assert!(
        began.elapsed() < Duration::from_secs(1),
        "{:?}",
        began.elapsed()
    );
}

#[test]
fn microtask_and_promise_responders_are_collected_in_call_order() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "microtask.html");
    let text = list(&mcp).text;
    let micro = text.find("Microtask: Answered from queueMicrotask.");
    let awaited = text.find("AfterAwait: Answered after two awaits.");
    assert!(
        micro.is_some() && awaited.is_some() && micro < awaited,
        "{text}"
    );
    assert_eq!(exec_ok(&mcp, "microtask_ping", None), "\"pong\"");
    assert_eq!(exec_ok(&mcp, "after_await_ping", None), "\"pong\"");

    // Promises: the groups keep the order of the respondWith calls, not of settling; the
    // rejected one is reported, the others count; listing waits for the 150 ms promise only.
    let began = Instant::now();
    let nav = mcp.call_ok(
        "navigate_page",
        json!({"url": page_url(&fx, "promise.html")}),
    );
    assert!(
        began.elapsed() < Duration::from_secs(3),
        "{:?}",
        began.elapsed()
    );
    let tools = section(&nav.text);
    let order: Vec<Option<usize>> = ["Slow: ", "Plain: ", "Quick: "]
        .iter()
        .map(|g| tools.find(g))
        .collect();
    assert!(
        order.iter().all(Option::is_some) && order.windows(2).all(|w| w[0] < w[1]),
        "{tools}"
    );
    assert!(
        tools
            .contains("a tool group promise given to respondWith() was rejected: registry offline"),
        "{tools}"
    );
    for (tool, result) in [
        ("slow_tool", "slow"),
        ("plain_tool", "plain"),
        ("quick_tool", "quick"),
    ] {
        assert_eq!(exec_ok(&mcp, tool, None), format!("\"{result}\""));
    }
}

#[test]
fn late_tools_arrive_by_notification_and_never_vanish() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "late.html");
    // The slow promise (800 ms) and the listener added 1 s after load reach the table by
    // themselves; each change is announced.
    until_notified(&mcp, "late_tool", || {
        !exec(&mcp, "late_tool", None).is_error
    });
    assert_eq!(exec_ok(&mcp, "late_tool", None), "\"late\"");
    assert_eq!(exec_ok(&mcp, "slow_tool", None), "\"slow\"");
    // Listing again dispatches discovery again; the slow promise is still slower than the
    // grace period, but its group must not drop out of the list meanwhile.
    for _ in 0..2 {
        let began = Instant::now();
        let text = list(&mcp).text;
        // The grace period (500 ms) plus slack; never the slow promise's full wait.
        assert!(
            began.elapsed() < Duration::from_secs(2),
            "{:?}",
            began.elapsed()
        );
        let slow = text.find("Slow: Resolved after 800 ms.");
        let late = text.find("Late: Registered one second after load.");
        assert!(slow.is_some() && late.is_some() && slow < late, "{text}");
    }
    // Nothing changed, so nothing is announced.
    mcp.drain_notifications(LIST_CHANGED);
    assert!(
        mcp.poll_notification(LIST_CHANGED, Duration::from_millis(2500))
            .is_none(),
        "a list_changed without a change"
    );
    assert_eq!(exec_ok(&mcp, "slow_tool", None), "\"slow\"");
}

#[test]
fn a_responder_that_turns_asynchronous_is_not_lost() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "switching.html");
    // Lists of a page whose responders answer during the dispatch end right after it.
    for _ in 0..3 {
        assert!(list(&mcp).text.contains("Switching: Answers at once."));
    }
    mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => { window.answerLater = true; }"}),
    );
    mcp.drain_notifications(LIST_CHANGED);
    // The next list may still show the old answer, but the late one reaches the table and
    // is announced, and every later list has it.
    let first = list(&mcp).text;
    if !first.contains("from_microtask") {
        until_notified(&mcp, "the microtask answer", || {
            list(&mcp)
                .text
                .contains("Switching: Answers from a microtask.")
        });
    }
    for _ in 0..3 {
        assert!(list(&mcp)
            .text
            .contains("Switching: Answers from a microtask."));
    }
    assert_eq!(exec_ok(&mcp, "from_microtask", None), "\"from_microtask\"");
}

#[test]
fn an_spa_route_adds_tools_and_removed_listeners_take_theirs_away() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "spa.html");
    assert_eq!(exec_ok(&mcp, "core_route", None), "\"#/\"");
    assert_not_found(&exec(&mcp, "route_a_info", None), "route_a_info");

    let evaluate = |f: &str| mcp.call_ok("evaluate_script", json!({ "function": f }));
    mcp.drain_notifications(LIST_CHANGED);
    evaluate("() => { window.loadRoute('A'); }");
    until_notified(&mcp, "route A", || {
        !exec(&mcp, "route_a_info", None).is_error
    });
    assert_eq!(
        json_body(&exec_ok(&mcp, "route_a_info", None)),
        json!({"route": "A"})
    );
    assert!(list(&mcp).text.contains("Route A: Tools of route A."));

    evaluate("() => { window.addExtraListener(); }");
    until_notified(&mcp, "extra_tool", || {
        !exec(&mcp, "extra_tool", None).is_error
    });
    assert_eq!(exec_ok(&mcp, "extra_tool", None), "\"extra\"");
    evaluate("() => { window.removeExtraListener(); }");
    until_notified(&mcp, "the removal", || {
        exec(&mcp, "extra_tool", None).is_error
    });
    assert_not_found(&exec(&mcp, "extra_tool", None), "extra_tool");

    evaluate("() => { window.addAbortableListener(); }");
    until_notified(&mcp, "abortable_tool", || {
        !exec(&mcp, "abortable_tool", None).is_error
    });
    evaluate("() => { window.abortListener(); }");
    until_notified(&mcp, "the abort", || {
        exec(&mcp, "abortable_tool", None).is_error
    });
    // The rest is untouched.
    assert_eq!(exec_ok(&mcp, "core_route", None), "\"#/a\"");
}

// ---------------------------------------------------------------- bad registrations

#[test]
fn invalid_registrations_are_listed_with_reasons_while_valid_tools_work() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "invalid.html");
    let text = list(&mcp).text;
    assert!(
        text.starts_with(
            "## Third-party developer tools\nMixed: Valid group, some invalid tools.\nAvailable tools:\n\
name=\"good_tool\", description=\"A valid tool.\", inputSchema={\"type\":\"object\",\"properties\":{}}\n\
name=\"another_good_tool\", description=\"A valid tool.\", inputSchema={\"type\":\"object\",\"properties\":{}}\n\
name=\"no_description\", description=\"\", inputSchema={\"type\":\"object\",\"properties\":{}}\n\
Empty: No tools yet.\nAvailable tools:\n"
        ),
        "{text}"
    );
    assert!(!text.contains("undefined\n"), "{text}");
    let reasons: Vec<&str> = text
        .split("Registrations that were left out:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no reasons:\n{text}"))
        .lines()
        .collect();
    assert_eq!(reasons.len(), 19, "{text}");
    for expected in [
        "respondWith() was given undefined instead of a tool group object",
        "respondWith() was given string instead of a tool group object",
        "a tool group has no name",
        "'NoTools' has no tools array (got undefined)",
        "'ToolsNotArray' has no tools array (got object)",
        "'BadDescription' has a description that is not a string",
        "tools getter exploded",
        "'no_execute' in group 'Mixed' has no execute function (got undefined)",
        "'execute_not_function' in group 'Mixed' has no execute function (got string)",
        "'no_schema' in group 'Mixed': inputSchema must be an object (got undefined)",
        "'schema_is_array' in group 'Mixed': inputSchema must be an object",
        "'schema_is_string' in group 'Mixed': inputSchema must be an object",
        "'schema_circular' in group 'Mixed': inputSchema cannot be converted to JSON",
        "'schema_bigint' in group 'Mixed': inputSchema cannot be converted to JSON",
        "'bad_description' in group 'Mixed' has a description that is not a string",
        "tools[10] in group 'Mixed' is not an object (got null)",
    ] {
        assert!(
            reasons.iter().any(|r| r.contains(expected)),
            "no reason containing {expected:?} in:\n{text}"
        );
    }
    assert!(reasons.iter().all(|r| r.starts_with("- ")), "{text}");
    // Structured: the valid groups only.
    let structured = list(&mcp).structured.unwrap_or_default();
    let groups: Vec<&str> = structured["thirdPartyDeveloperTools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|g| g["name"].as_str())
        .collect();
    assert_eq!(groups, ["Mixed", "Empty"]);

    assert_eq!(exec_ok(&mcp, "good_tool", None), "\"good_tool\"");
    assert_eq!(
        exec_ok(&mcp, "another_good_tool", None),
        "\"another_good_tool\""
    );
    assert_eq!(exec_ok(&mcp, "no_description", None), "\"fine\"");
    for left_out in ["no_execute", "schema_is_array", "lost_1", "bad_description"] {
        assert_not_found(&exec(&mcp, left_out, None), left_out);
    }
}

#[test]
fn a_schema_that_does_not_compile_is_left_out_with_its_reason() {
    let fx = Fixtures::start();
    let mcp = started();
    let page = open(&mcp, &fx, "schemas.html");
    let tools = section(&page.text);
    assert!(tools.contains("name=\"configure\""), "{tools}");
    assert!(!tools.contains("name=\"bad_type\""), "{tools}");
    assert!(!tools.contains("name=\"bad_pattern\""), "{tools}");
    for bad in ["bad_type", "bad_pattern"] {
        assert!(
            tools.lines().any(|l| l.starts_with("- ")
                && l.contains(bad)
                && l.contains("not a valid JSON Schema")),
            "no reason for {bad}:\n{tools}"
        );
        assert_not_found(&exec(&mcp, bad, None), bad);
    }
    let params = r#"{"name":"n","config":{"level":2}}"#;
    assert_eq!(
        json_body(&exec_ok(&mcp, "configure", Some(params))),
        json!({"name": "n", "config": {"level": 2}})
    );
}

#[test]
fn a_throwing_listener_does_not_stop_the_others() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "throwing.html");
    let text = list(&mcp).text;
    assert!(
        text.contains("Survivor: Registered after a throwing listener."),
        "{text}"
    );
    assert!(
        text.contains("a devtoolstooldiscovery listener threw: listener exploded"),
        "{text}"
    );
    assert!(
        text.contains("a devtoolstooldiscovery listener threw: a thrown string"),
        "{text}"
    );
    assert_eq!(exec_ok(&mcp, "survivor_tool", None), "\"alive\"");
}

#[test]
fn a_duplicate_tool_name_runs_the_first_registration_and_both_are_listed() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "duplicates.html");
    let text = list(&mcp).text;
    let first = text.find("First: Registered first.\nAvailable tools:\nname=\"get_version\", description=\"Returns \"from First\".\"");
    let second = text.find("Second: Registered second.\nAvailable tools:\nname=\"get_version\", description=\"Returns \"from Second\".\"");
    assert!(
        first.is_some() && second.is_some() && first < second,
        "{text}"
    );
    assert!(
        text.contains("\"get_version\" is registered by several groups (First, Second); the first, First, is the one that runs."),
        "{text}"
    );
    assert_eq!(exec_ok(&mcp, "get_version", None), "\"from First\"");
    assert_eq!(exec_ok(&mcp, "second_only", None), "2");
}

// ---------------------------------------------------------------- the list

#[test]
fn the_list_has_the_reference_format_and_structured_content() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "sync.html");
    let listed = list(&mcp);
    assert_eq!(
        listed.text,
        "## Third-party developer tools\n\
Sync: Tools answered synchronously.\n\
Available tools:\n\
name=\"add\", description=\"Adds two numbers.\", inputSchema={\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},\"b\":{\"type\":\"number\"}},\"required\":[\"a\",\"b\"]}\n\
name=\"get_status\", description=\"Returns the status text and the page title.\", inputSchema={\"type\":\"object\",\"properties\":{}}"
    );
    let structured = listed.structured.expect("structuredContent");
    assert_eq!(
        structured["thirdPartyDeveloperTools"],
        json!([{
            "name": "Sync",
            "description": "Tools answered synchronously.",
            "tools": [
                {"name": "add", "description": "Adds two numbers.", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}},
                {"name": "get_status", "description": "Returns the status text and the page title.", "inputSchema": {"type": "object", "properties": {}}},
            ],
        }])
    );

    // Shaped like Angular: no group description (never "undefined"), names with a colon,
    // an element property shown as {uid}.
    mcp.call_ok(
        "navigate_page",
        json!({"url": page_url(&fx, "angular-like.html")}),
    );
    let text = list(&mcp).text;
    assert!(
        text.starts_with(
            "## Third-party developer tools\nAngular\nAvailable tools:\n\
name=\"angular:di_graph\", description=\"Returns the dependency injection graph.\", inputSchema={\"type\":\"object\",\"properties\":{}}\n\
name=\"angular:signal_graph\", description=\"Returns the signal graph of the component that owns an element.\", \
inputSchema={\"type\":\"object\",\"properties\":{\"element\":{\"x-mcp-type\":\"HTMLElement\",\"description\":\"An element of the component.\",\
\"properties\":{\"uid\":{\"type\":\"string\"}},\"required\":[\"uid\"]}},\"required\":[\"element\"]}\n\
Prebid.js DevTools: Inspect Prebid.js auctions.\nAvailable tools:\n\
name=\"get_auctions\", description=\"Lists the auctions.\", inputSchema={\"type\":\"object\",\"properties\":{\"limit\":{\"type\":\"integer\",\"minimum\":1}}}"
        ),
        "{text}"
    );
    assert!(!text.contains("undefined"), "{text}");
    let graph = json_body(&exec_ok(&mcp, "angular:di_graph", None));
    assert_eq!(graph["injectors"][0]["name"], "Root", "{graph}");
    assert_eq!(
        json_body(&exec_ok(&mcp, "get_auctions", Some(r#"{"limit":3}"#))),
        json!({"auctions": [], "limit": 3})
    );
}

#[test]
fn the_section_follows_new_page_navigate_page_and_select_page() {
    let fx = Fixtures::start();
    let mcp = started();
    let sync_section = list_section_of(&mcp, &fx, "sync.html");
    assert!(sync_section.starts_with(SECTION), "{sync_section}");

    // new_page: after the pages.
    let opened = open(&mcp, &fx, "duplicates.html");
    assert!(opened.text.starts_with("## Pages\n"), "{}", opened.text);
    assert!(
        section(&opened.text).contains("First: Registered first."),
        "{}",
        opened.text
    );
    // select_page: the selected page's tools.
    let selected = mcp.call_ok("select_page", json!({"pageId": 2}));
    assert_eq!(section(&selected.text), sync_section, "{}", selected.text);
    // navigate_page.
    let nav = mcp.call_ok("navigate_page", json!({"type": "reload"}));
    assert!(
        nav.text
            .starts_with("Successfully reloaded the page.\n## Pages\n"),
        "{}",
        nav.text
    );
    assert_eq!(section(&nav.text), sync_section);
    // list_pages never runs page code, so it shows no tools.
    let pages = mcp.call_ok("list_pages", json!({}));
    assert!(!pages.text.contains(SECTION), "{}", pages.text);

    // A page without tools: nothing appended to navigation answers, and the list says so.
    for file in ["no-tools.html", "empty-listener.html"] {
        let nav = mcp.call_ok("navigate_page", json!({"url": page_url(&fx, file)}));
        assert!(!nav.text.contains(SECTION), "{file}: {}", nav.text);
        let listed = list(&mcp);
        assert_eq!(
            listed.text,
            "## Third-party developer tools\nThis page exposes no third-party developer tools.",
            "{file}"
        );
        assert_eq!(
            listed.structured.expect("structuredContent")["thirdPartyDeveloperTools"],
            json!([])
        );
    }
    let empty = mcp.call_ok("select_page", json!({"pageId": 3}));
    assert!(section(&empty.text).contains("First: "), "{}", empty.text);
}

/// The section `list_3p_developer_tools` shows for a freshly opened fixture page.
fn list_section_of(mcp: &Mcp, fx: &Fixtures, file: &str) -> String {
    open(mcp, fx, file);
    list(mcp).text
}

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

// ---------------------------------------------------------------- execute: results

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

#[test]
fn odd_values_come_back_as_readable_json() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "values.html");
    let text = exec_ok(&mcp, "odd_values", None);
    // The reference's layout: JSON.stringify(value, null, 2).
    assert!(
        text.starts_with("{\n  \"cycle\": {\n    \"name\": \"root\",\n"),
        "{text}"
    );
    let v = json_body(&text);
    assert_eq!(v["cycle"]["self"], "<Circular reference>");
    assert_eq!(v["cycle"]["list"][0], "<Circular reference>");
    assert_eq!(v["cycle"]["list"][1]["back"], "<Circular reference>");
    assert_eq!(v["shared"], json!([{"shared": true}, {"shared": true}]));
    assert_eq!(v["fn"], "<Function object>");
    assert_eq!(v["arrow"], "<Function object>");
    assert_eq!(v["klass"], "<Function object>");
    assert_eq!(v["instance"], "<Point instance>");
    assert_eq!(
        v["map"],
        json!({"<Map>": [["a", 1], [{"key": "object"}, {"<Set>": [1, 2]}]]})
    );
    assert_eq!(v["set"], json!({"<Set>": [1, "two", [3]]}));
    assert_eq!(v["date"], "2024-01-02T03:04:05.006Z");
    assert_eq!(v["invalidDate"], "Invalid Date");
    assert_eq!(v["regexp"], "/a+b/gi");
    assert_eq!(v["bigint"], "123n");
    assert_eq!(v["negativeBigint"], "-45n");
    assert_eq!(v["symbol"], "Symbol(x)");
    assert_eq!(v["anonymousSymbol"], "Symbol()");
    assert!(
        v.get("undef").is_none(),
        "undefined properties are left out: {v}"
    );
    assert_eq!(v["arrayWithUndefined"], json!([1, null, 3]));
    assert_eq!(v["sparse"], json!([1, null, 3]));
    assert_eq!(v["nan"], "NaN");
    assert_eq!(v["infinity"], "Infinity");
    assert_eq!(v["negativeInfinity"], "-Infinity");
    assert_eq!(v["negativeZero"], "-0");
    assert_eq!(v["zero"], 0);
    assert_eq!(v["loneHigh"], "a\u{FFFD}b");
    assert_eq!(v["loneLow"], "\u{FFFD}end");
    assert_eq!(v["key\u{FFFD}"], "lone surrogate in a key");
    assert_eq!(v["emoji"], "😀");
    assert_eq!(v["error"]["name"], "TypeError");
    assert_eq!(v["error"]["message"], "bad type");
    assert_eq!(v["errorWithCause"]["cause"]["message"], "inner");
    assert_eq!(
        v["getterThrows"],
        json!({"ok": 1, "boom": "<Getter threw: getter says no>"})
    );
    assert!(
        v["revokedProxy"]
            .as_str()
            .is_some_and(|s| s.starts_with("<Unreadable object")),
        "{v}"
    );
    assert_eq!(v["promise"], "<Promise instance>");
    assert_eq!(v["nested"]["deeper"]["deepest"][2]["three"], 3);

    // Top-level odd values.
    assert_eq!(
        exec_ok(&mcp, "undefined_result", None),
        "Tool returned no result."
    );
    assert_eq!(exec_ok(&mcp, "null_result", None), "null");
    assert_eq!(
        exec_ok(&mcp, "string_result", None),
        "\"hello \\\"world\\\"\\nline 2\""
    );
    assert_eq!(exec_ok(&mcp, "nan_result", None), "\"NaN\"");
    assert_eq!(
        exec_ok(&mcp, "function_result", None),
        "\"<Function object>\""
    );
    // What goes in comes out.
    let echoed = exec_ok(
        &mcp,
        "echo",
        Some(r#"{"s":"é😀","n":-1.5,"list":[true,null]}"#),
    );
    assert_eq!(
        json_body(&echoed),
        json!({"s": "é😀", "n": -1.5, "list": [true, null]})
    );
    // A "__proto__" key is an ordinary property, as JSON.parse makes it.
    let echoed = exec_ok(&mcp, "echo", Some(r#"{"__proto__":{"x":1},"y":"\u2028"}"#));
    assert_eq!(
        json_body(&echoed),
        json!({"__proto__": {"x": 1}, "y": "\u{2028}"})
    );
}

#[test]
fn plain_data_reads_the_same_as_any_other_result() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "values.html");
    // Plain data is printed by the page's native JSON.stringify, other values by the shim's
    // walk; both must read the same: undefined dropped or null.
    let plain = "{
  \"list\": [
    1,
    null,
    \"x\",
    {
      \"deeper\": []
    },
    {}
  ],
  \"noProto\": {
    \"a\": 1
  },
  \"emptyKeyed\": {
    \"\": 0
  }
}";
    assert_eq!(exec_ok(&mcp, "plain_edges", None), plain);
    // What JSON gets wrong is still put right: lone surrogates replaced, -0 kept (and a
    // text backslash that looks like an escaped surrogate stays as it is).
    let edges = format!(
        "{},\n  \"backslash\": \"\\\\ud800 is text here\",\n  \"loneHigh\": \"a\u{FFFD}b\",\n  \"key\u{FFFD}\": \"lone\",\n  \"negativeZero\": \"-0\",\n  \"zeros\": [\n    \"-0\",\n    0\n  ]\n}}",
        &plain[..plain.len() - 2]
    );
    assert_eq!(
        exec_ok(&mcp, "plain_edges", Some(r#"{"edges":true}"#)),
        edges
    );
    assert_eq!(
        exec_ok(&mcp, "plain_edges", Some(r#"{"ownToJSON":true}"#)),
        "{\n  \"list\": [\n    1,\n    2\n  ]\n}"
    );
}

#[test]
fn a_page_that_sabotages_its_built_ins_changes_nothing() {
    let fx = Fixtures::start();
    let mcp = started();
    // The page breaks JSON, Array, Object, Promise, Map, Reflect.apply, timers and more
    // after registering its tool (see the fixture); the shim captured them before.
    let opened = open(&mcp, &fx, "hostile.html");
    assert!(
        opened
            .text
            .contains("Hostile: A page that broke its built-ins."),
        "{}",
        opened.text
    );
    assert_eq!(
        json_body(&exec_ok(&mcp, "hostile_values", Some(r#"{"n":1}"#))),
        json!({"list": [1, 2, 3], "map": {"<Map>": [["k", "v"]]}, "date": "1970-01-01T00:00:00.000Z", "text": "fine"})
    );
    // Object.prototype.toJSON does not turn evaluate_script's answer into the page's text.
    let answer = mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => ({a: [1, {b: 2}], t: document.title})"}),
    );
    assert_eq!(
        answer.text,
        returned(r#"{"a":[1,{"b":2}],"t":"Hostile page"}"#)
    );
    let composed = mcp.call_ok(
        "evaluate_script",
        json!({"function": "async () => (await window.__dtmcp.executeTool('hostile_values', {})).list"}),
    );
    assert_eq!(composed.text, returned("[1,2,3]"));
}

#[test]
fn deep_results_come_back_whole_or_truncated_never_crashing() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "values.html");
    // 1,000 levels: whole (serde_json alone would stop at 128).
    let text = exec_ok(&mcp, "deep", Some(r#"{"depth":1000}"#));
    assert_eq!(text.matches("\"child\"").count(), 1000, "{}", &text[..200]);
    assert!(text.contains("\"bottom\""));
    assert!(
        text.ends_with(&"}".repeat(1000)),
        "{}",
        &text[text.len() - 200..]
    );
    let arrays = exec_ok(&mcp, "deep", Some(r#"{"depth":1000,"array":true}"#));
    assert_eq!(arrays.matches('[').count(), 1000);
    assert!(arrays.contains("\"bottom\""));

    // 100,000 levels: cut with a marker, and the server carries on.
    for array in [false, true] {
        let params = format!(r#"{{"depth":100000,"array":{array}}}"#);
        let r = exec(&mcp, "deep", Some(&params));
        assert!(
            r.is_error || r.text.contains("<Nested too deep>"),
            "array={array}: {}…",
            &r.text[..r.text.len().min(300)]
        );
        assert!(!r.text.contains("\"bottom\""));
    }
    assert_eq!(mcp.request_ok("ping", json!({})), json!({}));
    assert_eq!(exec_ok(&mcp, "number_result", None), "42");
}

#[test]
fn a_large_result_is_truncated_with_a_marker_or_written_whole_to_file_path() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "values.html");
    let r = exec_ok(&mcp, "big_string", Some(r#"{"chars":1500000}"#));
    let (body, marker) = r.rsplit_once('\n').expect("a marker line");
    assert_eq!(
        marker,
        "[Result truncated: showing the first 1000000 of 1500002 characters. Pass filePath to get the whole result.]"
    );
    assert_eq!(body.len(), 1_000_000);
    assert!(body.starts_with("\"xxxx"));

    let dir = std::env::temp_dir().join(format!("dtmcp-3p-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("big.json");
    let saved = mcp.call_ok(
        EXECUTE,
        json!({"toolName": "big_string", "params": r#"{"chars":1500000}"#, "filePath": path}),
    );
    assert_eq!(
        saved.text,
        format!("Tool result saved to {}.", path.display())
    );
    let whole = fs::read_to_string(&path).expect("the saved result");
    assert_eq!(whole.len(), 1_500_002);
    assert_eq!(whole, format!("\"{}\"", "x".repeat(1_500_000)));

    // Surrogate pairs across every piece boundary survive the trip to the file.
    let emoji_path = dir.join("emoji.json");
    mcp.call_ok(
        EXECUTE,
        json!({"toolName": "emoji_string", "params": r#"{"count":2600001}"#, "filePath": emoji_path}),
    );
    let emoji = fs::read_to_string(&emoji_path).expect("the saved result");
    assert_eq!(emoji, format!("\"{}\"", "😀".repeat(2_600_001)));
    // Inline, a pair is never cut in half.
    let inline = exec_ok(&mcp, "emoji_string", Some(r#"{"count":600000}"#));
    assert!(inline.contains("[Result truncated: showing the first 1000000 of 1200002 characters."));
    // A small result with filePath is written as shown inline.
    let small = dir.join("small.json");
    mcp.call_ok(
        EXECUTE,
        json!({"toolName": "number_result", "filePath": small}),
    );
    assert_eq!(fs::read_to_string(&small).expect("saved"), "42");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_100_mb_result_is_truncated_and_the_server_keeps_serving() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "values.html");
    let began = Instant::now();
    let r = mcp.call_timeout(
        EXECUTE,
        json!({"toolName": "big_string", "params": r#"{"chars":100000000}"#, "timeout": 120000}),
        Duration::from_secs(150),
    );
    assert!(!r.is_error, "{}", &r.text[..r.text.len().min(300)]);
    assert!(
        r.text.ends_with("[Result truncated: showing the first 1000000 of 100000002 characters. Pass filePath to get the whole result.]"),
        "{}",
        &r.text[r.text.len().saturating_sub(300)..]
    );
    assert!(r.text.len() < 1_100_000);
    eprintln!("100 MB result, inline: {:?}", began.elapsed());
    assert_eq!(mcp.request_ok("ping", json!({})), json!({}));

    // Whole, to a file.
    let path = std::env::temp_dir().join(format!("dtmcp-3p-100mb-{}.json", std::process::id()));
    let began = Instant::now();
    let saved = mcp.call_timeout(
        EXECUTE,
        json!({"toolName": "big_string", "params": r#"{"chars":100000000}"#, "filePath": path, "timeout": 120000}),
        Duration::from_secs(150),
    );
    eprintln!("100 MB result, to a file: {:?}", began.elapsed());
    assert!(!saved.is_error, "{}", saved.text);
    let size = fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let _ = fs::remove_file(&path);
    assert_eq!(size, 100_000_002);
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

// ---------------------------------------------------------------- never wedged

#[test]
fn a_tool_that_never_settles_times_out_while_everything_else_answers() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "values.html");
    open(&mcp, &fx, "sync.html");
    let began = Instant::now();
    let hanging = call_async(
        &mcp,
        EXECUTE,
        json!({"toolName": "never_settles", "pageId": 2, "timeout": 6000}),
    );
    thread::sleep(Duration::from_millis(300));

    let quick = Instant::now();
    assert_eq!(
        mcp.request_timeout("ping", json!({}), PROMPT)["result"],
        json!({})
    );
    let pages = mcp.call_timeout("list_pages", json!({}), PROMPT);
    assert!(pages.text.starts_with("## Pages\n"), "{}", pages.text);
    let other = mcp.call_timeout(
        EXECUTE,
        json!({"toolName": "add", "params": r#"{"a":1,"b":1}"#, "pageId": 3}),
        PROMPT,
    );
    assert_eq!(other.text, "2");
    let listed = mcp.call_timeout(LIST, json!({"pageId": 3}), PROMPT);
    assert!(listed.text.contains("Sync: "), "{}", listed.text);
    // All of that while the hanging call still waits (it ends at 6 s).
    assert!(
        quick.elapsed() < Duration::from_secs(4),
        "took {:?}",
        quick.elapsed()
    );

    let r = tool_result(&mcp.wait_response_timeout(hanging, PROMPT * 2));
    assert_error(
        &r,
        "Tool never_settles timed out after 6000 ms without settling.",
    );
    let took = began.elapsed();
    assert!(
        took >= Duration::from_millis(5900) && took < Duration::from_secs(11),
        "{took:?}"
    );
    // The page is usable afterwards.
    let after = mcp.call_timeout(
        EXECUTE,
        json!({"toolName": "number_result", "pageId": 2}),
        PROMPT,
    );
    assert_eq!(after.text, "42");
}

#[test]
fn a_tool_that_blocks_the_main_thread_is_stopped_at_its_timeout() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "behaviour.html");
    let began = Instant::now();
    let blocked = call_async(
        &mcp,
        EXECUTE,
        json!({"toolName": "block_forever", "timeout": 4000}),
    );
    thread::sleep(Duration::from_millis(300));
    assert_eq!(
        mcp.request_timeout("ping", json!({}), PROMPT)["result"],
        json!({})
    );
    let pages = mcp.call_timeout("list_pages", json!({}), PROMPT);
    assert!(pages.text.starts_with("## Pages\n"), "{}", pages.text);
    // Listing the busy page's tools cannot run discovery there; it answers with the table
    // as it stands, without waiting for the page.
    let listing = Instant::now();
    let listed = mcp.call_timeout(LIST, json!({}), PROMPT);
    assert!(listed.text.contains("Behaviour: "), "{}", listed.text);
    assert!(
        listing.elapsed() < Duration::from_millis(2500),
        "{:?}",
        listing.elapsed()
    );

    let r = tool_result(&mcp.wait_response_timeout(blocked, PROMPT * 2));
    assert_error(
        &r,
        "Tool block_forever timed out after 4000 ms without settling.",
    );
    assert!(
        began.elapsed() < Duration::from_secs(10),
        "{:?}",
        began.elapsed()
    );
    // The page's main thread is free again.
    let after = Instant::now();
    let text = mcp
        .call_timeout(
            EXECUTE,
            json!({"toolName": "block", "params": r#"{"ms":10}"#}),
            PROMPT,
        )
        .text;
    assert_eq!(json_body(&text), json!({"blocked": 10}));
    assert!(list(&mcp).text.contains("Behaviour: "));
    assert!(after.elapsed() < PROMPT, "{:?}", after.elapsed());
}

#[test]
fn a_cancelled_tool_call_gets_no_answer_and_frees_the_page() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "behaviour.html");
    for tool in ["never_settles", "block_forever"] {
        let id = call_async(&mcp, EXECUTE, json!({"toolName": tool, "timeout": 60000}));
        thread::sleep(Duration::from_millis(300));
        mcp.cancel(id, "the agent moved on");
        let began = Instant::now();
        assert_eq!(mcp.request_ok("ping", json!({})), json!({}));
        let next = mcp.call_timeout(
            EXECUTE,
            json!({"toolName": "block", "params": r#"{"ms":1}"#}),
            PROMPT,
        );
        assert!(!next.is_error, "{tool}: {}", next.text);
        assert!(began.elapsed() < PROMPT, "{tool}: {:?}", began.elapsed());
        assert_no_response(&mcp, id, Duration::from_millis(500));
    }
}

#[test]
fn dialogs_opened_by_a_tool_are_answered_and_reported() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "behaviour.html");
    let began = Instant::now();
    let r = exec_ok(&mcp, "alert", None);
    assert!(r.starts_with("\"after alert\"\n"), "{r}");
    assert!(
        r.contains("alert dialog") && r.contains("hello from a tool"),
        "{r}"
    );
    let r = exec_ok(&mcp, "confirm", None);
    assert!(r.contains("\"confirmed\": true"), "{r}");
    assert!(
        r.contains("confirm dialog") && r.contains("Proceed?"),
        "{r}"
    );
    let r = exec_ok(&mcp, "prompt", None);
    assert!(r.contains("\"text\": \"default name\""), "{r}");
    assert!(
        r.contains("prompt dialog") && r.contains("Your name?"),
        "{r}"
    );
    assert!(began.elapsed() < PROMPT, "{:?}", began.elapsed());
    // Nothing is left open.
    let listed = list(&mcp);
    assert!(!listed.text.contains("# Open dialog"), "{}", listed.text);
    assert_eq!(
        exec_ok(&mcp, "block", Some(r#"{"ms":1}"#)),
        "{\n  \"blocked\": 1\n}"
    );
}

#[test]
fn a_page_navigating_away_mid_call_fails_it_at_once_and_its_new_tools_work() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "behaviour.html");
    for tool in ["navigate_away", "reload"] {
        let began = Instant::now();
        let r = exec(&mcp, tool, None);
        // The call fails as soon as the document goes (the rest is the navigation itself,
        // slower on a loaded machine); a server that waited would take the 30 s timeout.
        assert!(
            began.elapsed() < Duration::from_secs(2),
            "{tool}: {:?}",
            began.elapsed()
        );
        assert!(r.is_error, "{tool}: {}", r.text);
        assert!(r.text.contains("navigated away"), "{tool}: {}", r.text);
        // The next document's tools, right away and without a list.
        if tool == "navigate_away" {
            assert_eq!(exec_ok(&mcp, "add", Some(r#"{"a":4,"b":5}"#)), "9");
            assert_not_found(&exec(&mcp, "set_text", Some(r#"{"text":"x"}"#)), "set_text");
            mcp.call_ok(
                "navigate_page",
                json!({"url": page_url(&fx, "behaviour.html")}),
            );
        } else {
            assert!(exec_ok(&mcp, "set_text", Some(r#"{"text":"x"}"#)).contains("uid"));
        }
    }
}

#[test]
fn after_the_page_navigated_itself_old_tools_are_gone_and_new_ones_work() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "links.html");
    // By a link the page follows itself.
    mcp.drain_notifications(LIST_CHANGED);
    assert_eq!(exec_ok(&mcp, "follow_link", None), "\"clicked\"");
    // The old document's tools leave with it (announced); no list call in between.
    mcp.wait_notification(LIST_CHANGED, NOTIFIED);
    assert_eq!(exec_ok(&mcp, "add", Some(r#"{"a":1,"b":2}"#)), "3");
    assert_not_found(&exec(&mcp, "where", None), "where");

    // By a location change from a script.
    mcp.call_ok("navigate_page", json!({"url": page_url(&fx, "links.html")}));
    mcp.drain_notifications(LIST_CHANGED);
    mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => { setTimeout(() => { location.href = 'duplicates.html'; }, 0); return 1; }"}),
    );
    mcp.wait_notification(LIST_CHANGED, NOTIFIED);
    assert_eq!(exec_ok(&mcp, "get_version", None), "\"from First\"");
    assert_not_found(&exec(&mcp, "follow_link", None), "follow_link");

    // Back in history.
    mcp.drain_notifications(LIST_CHANGED);
    mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => { setTimeout(() => history.back(), 0); return 1; }"}),
    );
    mcp.wait_notification(LIST_CHANGED, NOTIFIED);
    let began = Instant::now();
    let url = exec_ok(&mcp, "where", None);
    assert_eq!(url, format!("\"{}\"", page_url(&fx, "links.html")));
    assert!(began.elapsed() < PROMPT, "{:?}", began.elapsed());
    assert_not_found(&exec(&mcp, "get_version", None), "get_version");
}

#[test]
fn a_renderer_crash_mid_call_is_reported_and_pages_work_afterwards() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "values.html");
    let hanging = call_async(
        &mcp,
        EXECUTE,
        json!({"toolName": "never_settles", "timeout": 60000}),
    );
    thread::sleep(Duration::from_millis(300));
    let began = Instant::now();
    mcp.call("navigate_page", json!({"url": "chrome://crash"}));
    let r = tool_result(&mcp.wait_response_timeout(hanging, PROMPT));
    assert!(r.is_error, "{}", r.text);
    assert!(r.text.to_lowercase().contains("crash"), "{}", r.text);
    assert!(began.elapsed() < PROMPT, "{:?}", began.elapsed());
    // A tool call on the crashed page says so at once.
    let dead = exec(&mcp, "number_result", None);
    assert!(
        dead.is_error && dead.text.to_lowercase().contains("crash"),
        "{}",
        dead.text
    );

    // A new page works, and so does the crashed one once navigated.
    open(&mcp, &fx, "sync.html");
    assert_eq!(exec_ok(&mcp, "add", Some(r#"{"a":1,"b":1}"#)), "2");
    let nav = mcp.call_ok(
        "navigate_page",
        json!({"pageId": 2, "url": page_url(&fx, "values.html")}),
    );
    assert!(section(&nav.text).contains("Values: "), "{}", nav.text);
    let again = mcp.call(EXECUTE, json!({"toolName": "number_result", "pageId": 2}));
    assert_eq!(again.text, "42");
}

#[test]
fn a_dying_browser_fails_a_running_tool_and_the_next_call_starts_a_new_one() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "values.html");
    let browser = browser_main_process(&mcp);
    let hanging = call_async(
        &mcp,
        EXECUTE,
        json!({"toolName": "never_settles", "timeout": 60000}),
    );
    thread::sleep(Duration::from_millis(300));
    let killed = Instant::now();
    common::procs::signal(&[browser.pid], "KILL");
    let r = tool_result(&mcp.wait_response_timeout(hanging, PROMPT));
    assert!(r.is_error, "{}", r.text);
    assert!(r.text.to_lowercase().contains("browser"), "{}", r.text);
    assert!(killed.elapsed() < PROMPT, "{:?}", killed.elapsed());
    // The next call starts a browser again and says that page ids changed.
    let page = open(&mcp, &fx, "sync.html");
    assert!(page.text.contains("Page ids have changed"), "{}", page.text);
    assert_eq!(exec_ok(&mcp, "add", Some(r#"{"a":3,"b":4}"#)), "7");
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
    other.wait_for_request("/thirdparty/evil-frame.html", PROMPT);
    // Give the frames time for all their attempts (they retry after 300 ms and 1 s).
    thread::sleep(Duration::from_millis(1500));
    let text = list(&mcp).text;
    assert_eq!(
        text,
        "## Third-party developer tools\nTop: Tools of the top frame.\nAvailable tools:\n\
name=\"top_tool\", description=\"Returns \"top\".\", inputSchema={\"type\":\"object\",\"properties\":{}}"
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
    other.wait_for_request("/thirdparty/frame-tools.html", PROMPT);
    thread::sleep(Duration::from_millis(500));
    let text = list(&mcp).text;
    assert!(text.contains("name=\"top_tool\""), "{text}");
    assert!(
        !text.contains("frame_tool") && !text.contains("Frame:"),
        "{text}"
    );
    assert_not_found(&exec(&mcp, "frame_tool", None), "frame_tool");
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

// ---------------------------------------------------------------- flags

#[test]
fn expose_page_tools_lists_them_as_mcp_tools_and_keeps_them_current() {
    let fx = Fixtures::start();
    let mcp = started_with(&["--exposePageTools"]);
    let builtin = tool_names(&mcp);
    open(&mcp, &fx, "angular-like.html");
    let tools = mcp.list_tools();
    let exposed: Vec<&Value> = tools
        .iter()
        .filter(|t| !builtin.iter().any(|b| t["name"] == b.as_str()))
        .collect();
    let names: Vec<&str> = exposed.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names.len(), 3, "{names:?}");
    let unique: HashSet<&&str> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "{names:?}");
    for name in &names {
        assert!(
            !name.is_empty()
                && name.len() <= 64
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
            "not a valid MCP tool name: {name}"
        );
    }
    let di = exposed
        .iter()
        .find(|t| t["title"] == "Angular: angular:di_graph")
        .unwrap_or_else(|| panic!("{exposed:?}"));
    let di_name = di["name"].as_str().unwrap_or("");
    assert!(di_name.contains("angular_di_graph"), "{di_name}");
    let signal = exposed
        .iter()
        .find(|t| t["title"] == "Angular: angular:signal_graph")
        .unwrap_or_else(|| panic!("{exposed:?}"));
    assert_eq!(
        signal["inputSchema"]["properties"]["element"]["required"],
        json!(["uid"])
    );
    let signal_name = signal["name"].as_str().unwrap_or("").to_owned();

    // Calling them.
    let graph = mcp.call_ok(di_name, json!({}));
    assert_eq!(json_body(&graph.text)["injectors"][1]["name"], "AppCounter");
    let snapshot = mcp.call_ok("take_snapshot", json!({})).text;
    let button = uid_of(&snapshot, "button \"+1\"");
    let r = mcp.call_ok(&signal_name, json!({"element": {"uid": button}}));
    assert_eq!(json_body(&r.text)["component"], "app-counter");
    let auctions = exposed
        .iter()
        .find(|t| t["title"] == "Prebid.js DevTools: get_auctions")
        .and_then(|t| t["name"].as_str())
        .unwrap_or_else(|| panic!("{exposed:?}"));
    let bad = mcp.call(auctions, json!({"limit": 0}));
    assert!(bad.is_error && bad.text.contains("limit"), "{}", bad.text);

    // A change of page tools is announced and the list follows.
    mcp.drain_notifications(LIST_CHANGED);
    mcp.call_ok("navigate_page", json!({"url": page_url(&fx, "sync.html")}));
    mcp.wait_notification(LIST_CHANGED, NOTIFIED);
    let names = tool_names(&mcp);
    assert!(!names.iter().any(|n| n == di_name), "{names:?}");
    let add = names
        .iter()
        .find(|n| !builtin.contains(n) && n.ends_with("add"))
        .unwrap_or_else(|| panic!("{names:?}"))
        .clone();
    assert_eq!(mcp.call_ok(&add, json!({"a": 20, "b": 22})).text, "42");
    // A tool that went away is not callable any more.
    let gone = mcp.request("tools/call", json!({"name": di_name, "arguments": {}}));
    assert!(
        gone.get("error").is_some() || gone["result"]["isError"] == true,
        "{gone}"
    );

    // Duplicated and colliding names stay unique.
    let page = fx.page_url_with_html(
        "<title>Clash</title><script>
        const t = (name) => ({name, description: name, inputSchema: {type: 'object'}, execute: () => name});
        addEventListener('devtoolstooldiscovery', e => {
          e.respondWith({name: 'G', tools: [t('x:y'), t('x_y'), t('x.y')]});
          e.respondWith({name: 'H', tools: [t('x:y')]});
        });
        </script>",
    );
    mcp.drain_notifications(LIST_CHANGED);
    mcp.call_ok("navigate_page", json!({ "url": page }));
    let exposed: Vec<String> = tool_names(&mcp)
        .into_iter()
        .filter(|n| !builtin.contains(n))
        .collect();
    assert_eq!(exposed.len(), 3, "{exposed:?}");
    let unique: HashSet<&String> = exposed.iter().collect();
    assert_eq!(unique.len(), 3, "{exposed:?}");
    let mut results: Vec<String> = exposed
        .iter()
        .map(|n| mcp.call_ok(n, json!({})).text)
        .collect();
    results.sort();
    assert_eq!(results, ["\"x.y\"", "\"x:y\"", "\"x_y\""]);

    // Exposed tools are the selected page's: selecting a page without tools empties them.
    mcp.drain_notifications(LIST_CHANGED);
    mcp.call_ok("select_page", json!({"pageId": 1}));
    mcp.wait_notification(LIST_CHANGED, NOTIFIED);
    assert_eq!(tool_names(&mcp), builtin);
}

#[test]
fn the_result_cap_and_the_tool_timeout_are_configurable() {
    let fx = Fixtures::start();
    let mcp = started_with(&["--maxResultBytes=1000", "--toolTimeout=1500"]);
    open(&mcp, &fx, "values.html");
    // Pretty while it fits; compact (and whole) when only the compact text fits the cap.
    let pretty = exec_ok(&mcp, "deep", Some(r#"{"depth":10}"#));
    assert!(
        pretty.starts_with("{\n  \"child\": {\n    \"child\""),
        "{pretty}"
    );
    assert_eq!(
        exec_ok(&mcp, "deep", Some(r#"{"depth":20}"#)),
        format!("{}\"bottom\"{}", "{\"child\":".repeat(20), "}".repeat(20))
    );
    let r = exec_ok(&mcp, "big_string", Some(r#"{"chars":5000}"#));
    assert_eq!(
        r,
        format!(
            "\"{}\n[Result truncated: showing the first 1000 of 5002 characters. Pass filePath to get the whole result.]",
            "x".repeat(999)
        )
    );
    let began = Instant::now();
    assert_error(
        &exec(&mcp, "never_settles", None),
        "Tool never_settles timed out after 1500 ms without settling.",
    );
    assert!(began.elapsed() < PROMPT, "{:?}", began.elapsed());
    // The call's own timeout still wins.
    let slow = mcp.call(
        EXECUTE,
        json!({"toolName": "slow", "params": r#"{"ms":2000}"#, "timeout": 10000}),
    );
    assert_eq!(json_body(&slow.text), json!({"waited": 2000}));
}

#[test]
fn page_tools_are_not_mcp_tools_by_default_and_the_reference_flag_is_accepted() {
    let fx = Fixtures::start();
    for flags in [
        &[][..],
        &["--categoryExperimentalThirdParty=true"][..],
        &["--categoryExperimentalThirdParty"][..],
    ] {
        let mcp = started_with(flags);
        let before = tool_names(&mcp);
        assert!(before.iter().any(|n| n == LIST), "{flags:?}: {before:?}");
        assert!(before.iter().any(|n| n == EXECUTE), "{flags:?}: {before:?}");
        open(&mcp, &fx, "sync.html");
        assert_eq!(tool_names(&mcp), before, "{flags:?}");
        assert_eq!(
            exec_ok(&mcp, "add", Some(r#"{"a":1,"b":2}"#)),
            "3",
            "{flags:?}"
        );
    }
}
