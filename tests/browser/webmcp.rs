//! WebMCP tools (`document.modelContext.registerTool`) against the real
//! binary and real Chromium launched with `--enable-features=WebMCP`. Debugging tools are
//! listed first in `list_3p_developer_tools` (group "WebMCP Tools") and run by
//! `execute_3p_developer_tool` as chrome-devtools-mcp 1.11 runs them; the others through
//! `list_webmcp_tools` / `execute_webmcp_tool` behind --categoryExperimentalWebmcp.
//!
//! The page is `tests/fixtures/webmcp/tools.html` (it says what it registers), served on
//! 127.0.0.1 (a secure context: a `data:` URL has no `document.modelContext`).

use std::time::{Duration, Instant};

use crate::support::calls::{assert_error, call_async, eval, tool_names, tool_result};
use crate::support::mcp::BROWSER_FLAGS;
use crate::support::thirdparty::{exec, exec_ok, list, section, until_notified};
use crate::support::{started_with, Fixtures, Mcp};
use serde_json::json;

const GROUP_HEAD: &str = "## Third-party developer tools\nWebMCP Tools: Tools exposed via WebMCP\nAvailable tools:\n\
name=\"dbg_echo\", description=\"Echoes its text\", inputSchema={\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}\n";

fn open_tools(mcp: &Mcp, fx: &Fixtures) -> String {
    let url = fx.url("/webmcp/tools.html");
    mcp.call_ok("navigate_page", json!({"type": "url", "url": url}))
        .text
}

/// Waits (bounded) until `function` evaluated in the page returns `want`.
fn until_page_says(mcp: &Mcp, function: &str, want: serde_json::Value) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let got = eval(mcp, function);
        if got == want {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{function} stayed {got}, not {want}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn checks_listing_and_runs(mcp: &Mcp, fx: &Fixtures) {
    let answer = open_tools(mcp, fx);
    assert!(section(&answer).starts_with(GROUP_HEAD), "{answer}");
    let text = list(mcp).text;
    assert!(text.starts_with(GROUP_HEAD), "{text}");
    assert!(text.contains("\nname=\"dbg_alert\", description=\"Opens an alert, then answers\", inputSchema={\"type\":\"object\",\"properties\":{}}\nEvent tools: Tools from devtoolstooldiscovery\nAvailable tools:\nname=\"event_ping\""), "{text}");
    assert!(
        !text.contains("plain_add"),
        "plain tools are not 3p tools: {text}"
    );
    assert_eq!(
        exec_ok(mcp, "dbg_echo", Some(r#"{"text":"hi"}"#)),
        "{\n  \"echo\": \"hi\",\n  \"n\": 1.5\n}"
    );
    assert_eq!(exec_ok(mcp, "event_ping", None), "\"pong\"");
}

#[test]
fn debugging_tools_are_listed_first_and_run_as_the_reference_runs_them() {
    let fx = Fixtures::start();
    let mcp = started_with(&[]);
    checks_listing_and_runs(&mcp, &fx);
    let bad = exec(&mcp, "dbg_echo", Some("{}"));
    assert!(bad.is_error, "{}", bad.text);
    assert!(
        bad.text
            .starts_with("Error: Invalid parameters for tool dbg_echo: data "),
        "{}",
        bad.text
    );
    let thrown = exec(&mcp, "dbg_throw", None);
    assert!(thrown.is_error);
    assert!(
        thrown
            .text
            .starts_with("Error: Error: boom\n    at execute ("),
        "{}",
        thrown.text
    );
    for (kind, printed) in [
        ("null", "null"),
        ("undefined", "\"undefined\""),
        ("number", "42"),
        ("string", "\"plain \\\"quoted\\\" ✓ text\""),
        (
            "nested",
            "{\n  \"a\": [\n    1,\n    {\n      \"b\": \"✓\"\n    }\n  ],\n  \"e\": {},\n  \"l\": []\n}",
        ),
    ] {
        let params = format!(r#"{{"kind":"{kind}"}}"#);
        let text = exec_ok(&mcp, "dbg_odd", Some(&params));
        // Chromium may hand non-ASCII text over differently; the shape is what counts here.
        if printed.contains('✓') {
            assert!(text.starts_with(&printed[..8]), "{kind}: {text}");
        } else {
            assert_eq!(text, printed, "{kind}");
        }
    }
    assert_error(&exec(&mcp, "plain_add", None), "Tool plain_add not found");
    let alert = exec_ok(&mcp, "dbg_alert", None);
    assert!(alert.starts_with("\"after alert\"\n"), "{alert}");
    assert!(alert.contains("from tool"), "{alert}");
}

#[test]
fn late_tools_appear_and_go_with_notifications() {
    let fx = Fixtures::start();
    let mcp = started_with(&[]);
    open_tools(&mcp, &fx);
    assert_eq!(
        eval(&mcp, "() => window.registerLate()"),
        json!("registered")
    );
    until_notified(&mcp, "dbg_late", || {
        list(&mcp).text.contains("name=\"dbg_late\"")
    });
    assert_eq!(exec_ok(&mcp, "dbg_late", None), "\"late answer\"");
    assert_eq!(
        eval(&mcp, "() => window.unregisterLate()"),
        json!("unregistered")
    );
    until_notified(&mcp, "dbg_late's removal", || {
        !list(&mcp).text.contains("dbg_late")
    });
    assert_error(&exec(&mcp, "dbg_late", None), "Tool dbg_late not found");
}

#[test]
fn a_hanging_tool_times_out_and_is_cancelled_in_the_page() {
    let fx = Fixtures::start();
    let mcp = started_with(&[]);
    open_tools(&mcp, &fx);
    let r = mcp.call(
        "execute_3p_developer_tool",
        json!({"toolName": "dbg_hang", "timeout": 1000}),
    );
    assert_error(
        &r,
        "Tool dbg_hang timed out after 1000 ms without settling.",
    );
    until_page_says(&mcp, "() => window.cancels", json!(1));
    // A client's cancel cancels the invocation too.
    let id = call_async(
        &mcp,
        "execute_3p_developer_tool",
        json!({"toolName": "dbg_hang"}),
    );
    until_page_says(&mcp, "() => window.hangStarted || 0", json!(2));
    mcp.cancel(id, "test");
    until_page_says(&mcp, "() => window.cancels", json!(2));
    // The page still answers.
    assert_eq!(exec_ok(&mcp, "dbg_odd", Some(r#"{"kind":"number"}"#)), "42");
}

#[test]
fn large_results_are_capped_inline_and_whole_in_a_file() {
    let fx = Fixtures::start();
    let mcp = started_with(&["--maxResultBytes=1000"]);
    open_tools(&mcp, &fx);
    let text = exec_ok(&mcp, "dbg_big", Some(r#"{"size":5000}"#));
    assert!(text.starts_with("\"xxxx"), "{}", &text[..20]);
    assert!(
        text.ends_with("\n[Result truncated: showing the first 1000 of 5005 characters. Pass filePath to get the whole result.]"),
        "{}",
        &text[text.len() - 200..]
    );
    let dir = std::env::temp_dir().join(format!("webmcp-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.json");
    let path_text = path.to_str().unwrap();
    let args = json!({"toolName": "dbg_big", "params": r#"{"size":5000}"#, "filePath": path_text});
    let saved = mcp.call_ok("execute_3p_developer_tool", args).text;
    assert_eq!(saved, format!("Tool result saved to {path_text}."));
    let whole = std::fs::read_to_string(&path).unwrap();
    assert_eq!(whole, format!("\"{}END\"", "x".repeat(5000)));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn navigation_ends_the_run_and_nothing_comes_from_the_old_document() {
    let fx = Fixtures::start();
    let mcp = started_with(&[]);
    open_tools(&mcp, &fx);
    assert_error(
        &exec(&mcp, "dbg_navigate", None),
        "The page navigated away (or reloaded) before the tool finished.",
    );
    let blank = fx.page_url_with_html("<title>none</title><p>no tools</p>");
    mcp.call_ok("navigate_page", json!({"type": "url", "url": blank}));
    let text = list(&mcp).text;
    assert!(!text.contains("WebMCP"), "{text}");
    assert_error(
        &exec(&mcp, "dbg_echo", Some(r#"{"text":"x"}"#)),
        "Tool dbg_echo not found",
    );
}

#[test]
fn plain_tools_are_behind_the_category_flag() {
    let fx = Fixtures::start();
    let off = started_with(&[]);
    assert!(!tool_names(&off).iter().any(|n| n.contains("webmcp")));
    drop(off);
    let mcp = started_with(&["--categoryExperimentalWebmcp"]);
    let names = tool_names(&mcp);
    assert!(
        names.contains(&"list_webmcp_tools".to_string()),
        "{names:?}"
    );
    let answer = open_tools(&mcp, &fx);
    let plain = "## WebMCP tools\nname=\"plain_add\", description=\"Adds two numbers\", inputSchema={\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},\"b\":{\"type\":\"number\"}},\"required\":[\"a\",\"b\"]}, annotations={\"readOnly\":true,\"untrustedContent\":true,\"consequential\":false,\"debugging\":false}\n";
    assert!(answer.contains(plain), "{answer}");
    let text = mcp.call_ok("list_webmcp_tools", json!({})).text;
    assert!(text.starts_with(plain), "{text}");
    assert!(text.ends_with("\nname=\"plain_throw\", description=\"A plain tool that throws\", inputSchema={\"type\":\"object\",\"properties\":{}}, annotations=undefined"), "{text}");
    let add = json!({"toolName": "plain_add", "input": r#"{"a":1,"b":2}"#});
    assert_eq!(
        mcp.call_ok("execute_webmcp_tool", add).text,
        "{\n  \"status\": \"Completed\",\n  \"output\": 3\n}"
    );
    let thrown = mcp.call_ok("execute_webmcp_tool", json!({"toolName": "plain_throw"}));
    assert!(
        thrown.text.starts_with(
            "{\n  \"status\": \"Error\",\n  \"error\": \"Error: plain boom\\n    at execute ("
        ),
        "{}",
        thrown.text
    );
    let debugging = mcp.call("execute_webmcp_tool", json!({"toolName": "dbg_echo"}));
    assert_error(&debugging, "Tool dbg_echo not found");
    let bad = mcp.call(
        "execute_webmcp_tool",
        json!({"toolName": "plain_add", "input": "[1]"}),
    );
    assert_error(
        &bad,
        "Failed to parse input as JSON: Parsed input is not an object",
    );
}

#[test]
fn exposed_webmcp_tools_are_marked_as_the_pages() {
    let fx = Fixtures::start();
    let mcp = started_with(&["--exposePageTools"]);
    open_tools(&mcp, &fx);
    let tools = mcp.list_tools();
    let find = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {tools:?}"))
            .clone()
    };
    let echo = find("WebMCP_Tools__dbg_echo");
    let description = echo["description"].as_str().unwrap_or("");
    assert!(
        description.ends_with("Description supplied by the page: Echoes its text"),
        "{description}"
    );
    let add = find("WebMCP_Tools__plain_add");
    assert!(
        add["description"]
            .as_str()
            .unwrap_or("")
            .contains("untrusted content"),
        "{add}"
    );
    let r = tool_result(&mcp.request(
        "tools/call",
        json!({"name": "WebMCP_Tools__plain_add", "arguments": {"a": 2, "b": 3}}),
    ));
    assert!(!r.is_error, "{}", r.text);
    assert!(
        r.text
            .starts_with("Note: the page marks this tool's output as untrusted content"),
        "{}",
        r.text
    );
    assert!(r.text.ends_with("\n5"), "{}", r.text);
    find("Event_tools__event_ping");
}

#[test]
fn the_headless_shell_runs_webmcp_tools_too() {
    let fx = Fixtures::start();
    let shell = "/usr/bin/chromium-headless-shell";
    let mut args = vec!["--headless", "--isolated", "--executablePath", shell];
    args.extend_from_slice(BROWSER_FLAGS);
    let mcp = Mcp::start_raw(&args);
    mcp.initialize();
    checks_listing_and_runs(&mcp, &fx);
}

#[test]
fn a_renderer_crash_ends_a_running_tool_and_the_page_recovers() {
    let fx = Fixtures::start();
    let mcp = started_with(&[]);
    open_tools(&mcp, &fx);
    let args = json!({"toolName": "dbg_hang", "timeout": 60000});
    let hanging = call_async(&mcp, "execute_3p_developer_tool", args);
    until_page_says(&mcp, "() => window.hangStarted || 0", json!(1));
    crate::support::kill_renderers(&mcp);
    let r = tool_result(&mcp.wait_response_timeout(hanging, crate::support::PROMPT));
    assert!(
        r.is_error && r.text.to_lowercase().contains("crash"),
        "{}",
        r.text
    );
    let dead = exec(&mcp, "dbg_echo", Some(r#"{"text":"x"}"#));
    assert!(
        dead.is_error && dead.text.to_lowercase().contains("crash"),
        "{}",
        dead.text
    );
    // The next document registers its tools again.
    open_tools(&mcp, &fx);
    assert_eq!(exec_ok(&mcp, "dbg_odd", Some(r#"{"kind":"number"}"#)), "42");
}

#[test]
fn an_iframes_tools_are_not_the_pages() {
    let fx = Fixtures::start();
    let mcp = started_with(&[]);
    let frame = fx.url("/webmcp/tools.html");
    let host = fx.page_url_with_html(&format!(
        "<title>host</title><iframe src=\"{frame}\"></iframe>"
    ));
    mcp.call_ok("navigate_page", json!({"type": "url", "url": host}));
    until_page_says(
        &mcp,
        "() => !!(frames[0] && frames[0].registerLate)",
        json!(true),
    );
    // Registered after the frame's tools: once it is listed, the frame's have been reported.
    let register = "() => { document.modelContext.registerTool({name: 'host_dbg', description: 'host', \
        inputSchema: {type: 'object', properties: {}}, annotations: {debugging: true}, execute: () => 'host' }); return 1; }";
    assert_eq!(eval(&mcp, register), json!(1));
    until_notified(&mcp, "host_dbg", || list(&mcp).text.contains("host_dbg"));
    let text = list(&mcp).text;
    assert!(
        !text.contains("dbg_echo") && !text.contains("event_ping"),
        "{text}"
    );
    assert_error(
        &exec(&mcp, "dbg_echo", Some(r#"{"text":"x"}"#)),
        "Tool dbg_echo not found",
    );
    assert_eq!(exec_ok(&mcp, "host_dbg", None), "\"host\"");
}

#[test]
fn an_open_dialog_refuses_webmcp_runs_at_once() {
    let fx = Fixtures::start();
    let mcp = started_with(&["--categoryExperimentalWebmcp"]);
    open_tools(&mcp, &fx);
    eval(
        &mcp,
        "() => { setTimeout(() => alert('page alert'), 0); return 1; }",
    );
    // Wait for the dialog with a call that runs no page code (a run would accept it).
    let deadline = Instant::now() + Duration::from_secs(10);
    while !mcp
        .call_ok("list_webmcp_tools", json!({}))
        .text
        .contains("# Open dialog")
    {
        assert!(Instant::now() < deadline, "the page's alert never opened");
        std::thread::sleep(Duration::from_millis(100));
    }
    let add = json!({"toolName": "plain_add", "input": r#"{"a":1,"b":2}"#});
    let refused = mcp.call("execute_webmcp_tool", add.clone());
    assert!(
        refused
            .text
            .starts_with("# Open dialog\nalert: page alert.")
            && refused
                .text
                .ends_with("Error: A dialog is open (alert: page alert)."),
        "{}",
        refused.text
    );
    let r = exec(&mcp, "dbg_echo", Some(r#"{"text":"x"}"#));
    assert!(
        r.text
            .ends_with("Error: A dialog is open (alert: page alert)."),
        "{}",
        r.text
    );
    mcp.call_ok("handle_dialog", json!({"action": "accept"}));
    assert!(!mcp.call("execute_webmcp_tool", add).is_error);
}

/// Waits (bounded) until `listing()` contains `text`; returns the last listing.
fn until_listed(listing: impl Fn() -> String, text: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let got = listing();
        if got.contains(text) || Instant::now() > deadline {
            return got;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn registrations_over_the_limits_are_listed_as_left_out() {
    let fx = Fixtures::start();
    let mcp = started_with(&["--categoryExperimentalWebmcp"]);
    open_tools(&mcp, &fx);
    let register = r#"() => {
        const long = "d".repeat(20000);
        for (const debugging of [true, false]) {
          document.modelContext.registerTool({
            name: debugging ? "dbg_wordy" : "plain_wordy",
            description: long,
            inputSchema: {type: "object", properties: {}},
            annotations: {debugging},
            execute: () => 1,
          });
        }
        return "registered";
      }"#;
    assert_eq!(eval(&mcp, register), json!("registered"));
    let why = "description is 20000 bytes, over the limit of";
    let reason = format!("- WebMCP tool \"dbg_wordy\": the tool's {why}");
    let listed = until_listed(|| list(&mcp).text, &reason);
    assert!(
        listed.contains(&format!("Registrations that were left out:\n{reason}")),
        "{listed}"
    );
    assert!(!listed.contains("plain_wordy"), "{listed}");
    let plain = mcp.call_ok("list_webmcp_tools", json!({})).text;
    let plain_reason = format!("- WebMCP tool \"plain_wordy\": the tool's {why}");
    assert!(
        plain.contains(&format!(
            "Registrations that were left out:\n{plain_reason}"
        )),
        "{plain}"
    );
    assert!(!plain.contains("dbg_wordy"), "{plain}");
    assert_error(&exec(&mcp, "dbg_wordy", None), "Tool dbg_wordy not found");
    // A new document starts with a clean slate.
    open_tools(&mcp, &fx);
    assert!(!list(&mcp).text.contains("left out"));
}
