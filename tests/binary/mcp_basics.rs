//! The MCP lifecycle and every bad-input case, against the real binary with no
//! browser (the end of the lifecycle, shutdown, is in `shutdown.rs`; stdout with a noisy page
//! in `browser/mcp_basics.rs`).
//!
//! Where the reference (chrome-devtools-mcp 1.11 on the MCP TypeScript SDK 2.3) answers, these
//! tests expect the same shape:
//! - an unknown tool is a JSON-RPC error -32602 "Tool <name> not found" (not an isError result);
//! - invalid arguments are an `isError` result whose text starts
//!   "Input validation error: Invalid arguments for tool <name>: " and names the argument;
//! - `tools/call` without params is a JSON-RPC error -32602.
//!
//! Where the reference stays silent (it answers nothing at all to a malformed line or to a
//! request that is not JSON-RPC 2.0), JSON-RPC 2.0 decides: -32700 with id null for a
//! line that does not parse, -32600 for a message that parses but is not a valid request.

use std::time::Duration;

use crate::support::calls::error_code;
use crate::support::{started, Mcp};
use serde_json::{json, Value};

/// How long an answer the server owes may take on a loaded machine. "At once" in these tests
/// means answered rather than left unanswered (what a client would then wait out); how fast is
/// the benches' business.
pub(crate) const PROMPT: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------- lifecycle

#[test]

fn initialize_describes_the_server() {
    let mcp = Mcp::start(&[]);
    let result = mcp.initialize();
    assert_eq!(result["protocolVersion"], "2025-06-18", "{result}");
    assert!(result["capabilities"]["tools"].is_object(), "{result}");
    assert_eq!(
        result["capabilities"]["tools"]["listChanged"], true,
        "{result}"
    );
    assert!(result["serverInfo"]["name"].is_string(), "{result}");
    assert!(result["serverInfo"]["version"].is_string(), "{result}");
    // That initialize never waits for a browser is `the_browser_starts_lazily` (no browser
    // process after it); how fast it answers, the bench measures.
}

#[test]

fn the_browser_starts_lazily() {
    let mcp = started();
    mcp.request_ok("ping", json!({}));
    mcp.list_tools();
    assert!(
        mcp.started_processes().is_empty(),
        "processes started before any tool call: {:?}",
        mcp.started_processes()
    );
}

#[test]

fn each_supported_protocol_version_is_echoed() {
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mcp = Mcp::start(&[]);
        let result = mcp.initialize_with(version, json!({}));
        assert_eq!(result["protocolVersion"], version, "{result}");
        // The session works after negotiation.
        assert_eq!(mcp.request_ok("ping", json!({})), json!({}));
    }
}

#[test]

fn an_unknown_protocol_version_gets_our_latest() {
    for version in ["2099-01-01", "1.0", ""] {
        let mcp = Mcp::start(&[]);
        let result = mcp.initialize_with(version, json!({}));
        assert_eq!(
            result["protocolVersion"], "2025-11-25",
            "asked {version:?}: {result}"
        );
    }
}

#[test]

fn ping_answers_an_empty_result() {
    let mcp = started();
    let response = mcp.request("ping", Value::Null);
    assert_eq!(response["jsonrpc"], "2.0");
    assert_eq!(response["result"], json!({}), "{response}");
}

// ---------------------------------------------------------------- bad JSON-RPC

#[test]

fn unknown_methods_get_method_not_found_at_once() {
    let mcp = started();
    // server/discover: newer SDK clients send it first and wait ten seconds if unanswered.
    for method in ["server/discover", "no/such/method", "resources/read"] {
        let response = mcp.request_timeout(method, json!({}), PROMPT);
        assert_eq!(error_code(&response), -32601, "{method}: {response}");
    }
    // server/discover also before initialize, where clients actually send it.
    let fresh = Mcp::start(&[]);
    let response = fresh.request_timeout("server/discover", json!({}), PROMPT);
    assert_eq!(error_code(&response), -32601, "{response}");
}

#[test]

fn unknown_notifications_are_ignored_silently() {
    let mcp = started();
    mcp.notify("notifications/no_such_thing", json!({"x": 1}));
    mcp.notify("notifications/cancelled", json!({"requestId": 999_999}));
    assert_eq!(mcp.request_ok("ping", json!({})), json!({}));
    assert!(mcp
        .poll_null_id_response(Duration::from_millis(200))
        .is_none());
}

#[test]

fn a_malformed_line_gets_a_parse_error_and_the_server_carries_on() {
    let mcp = started();
    for line in [
        "this is not json",
        r#"{"jsonrpc":"2.0","id":"cut","method":"ping""#,
        "{",
    ] {
        mcp.send_line(line);
        let response = mcp.wait_null_id_response(PROMPT);
        assert_eq!(error_code(&response), -32700, "{line}: {response}");
        assert!(response["id"].is_null(), "{response}");
        assert_eq!(mcp.request_ok("ping", json!({})), json!({}), "after {line}");
    }
    // Not even UTF-8.
    mcp.send_raw(b"\xff\xfe\xfd\n");
    let response = mcp.wait_null_id_response(PROMPT);
    assert_eq!(error_code(&response), -32700, "{response}");
    assert_eq!(mcp.request_ok("ping", json!({})), json!({}));
}

#[test]

fn invalid_requests_get_invalid_request() {
    let mcp = started();
    // Parsed but not a valid request object, with an id we can echo.
    for (id, line) in [
        ("no-jsonrpc", r#"{"id":"no-jsonrpc","method":"ping"}"#),
        (
            "old-jsonrpc",
            r#"{"jsonrpc":"1.0","id":"old-jsonrpc","method":"ping"}"#,
        ),
        (
            "method-number",
            r#"{"jsonrpc":"2.0","id":"method-number","method":7}"#,
        ),
        ("no-method", r#"{"jsonrpc":"2.0","id":"no-method"}"#),
    ] {
        mcp.send_line(line);
        let response = mcp.wait_raw_response(&json!(id), PROMPT);
        assert_eq!(error_code(&response), -32600, "{line}: {response}");
        assert_eq!(mcp.request_ok("ping", json!({})), json!({}), "after {line}");
    }
    // params must be a structured value (JSON-RPC 2.0, section 4.2): a request with other
    // params is not a valid Request object, so -32600, with the reason.
    mcp.send_line(r#"{"jsonrpc":"2.0","id":"params-string","method":"ping","params":"oops"}"#);
    let response = mcp.wait_raw_response(&json!("params-string"), PROMPT);
    assert_eq!(error_code(&response), -32600, "{response}");
    assert_eq!(
        response["error"]["message"], "Invalid Request: params must be an object",
        "{response}"
    );
    // No usable id at all: answered with id null.
    for line in [
        r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
        "42",
        "[]",
        "\"ping\"",
    ] {
        mcp.send_line(line);
        let response = mcp.wait_null_id_response(PROMPT);
        assert_eq!(error_code(&response), -32600, "{line}: {response}");
        assert_eq!(mcp.request_ok("ping", json!({})), json!({}), "after {line}");
    }
}

// ---------------------------------------------------------------- tools/list

#[test]

fn tools_list_has_the_page_and_script_tools_with_annotations() {
    let mcp = started();
    let tools = mcp.list_tools();
    let find = |name: &str| {
        tools.iter().find(|t| t["name"] == name).unwrap_or_else(|| {
            let names: Vec<&Value> = tools.iter().map(|t| &t["name"]).collect();
            panic!("tools/list lacks {name}; has {names:?}")
        })
    };
    // Read-only hints as the reference declares them.
    for (name, read_only) in [
        ("list_pages", true),
        ("new_page", false),
        ("select_page", true),
        ("close_page", false),
        ("navigate_page", false),
        ("wait_for", true),
        ("evaluate_script", false),
    ] {
        let tool = find(name);
        assert_eq!(
            tool["annotations"]["readOnlyHint"],
            json!(read_only),
            "{name}: {tool}"
        );
        assert!(
            tool["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{name}: {tool}"
        );
        assert_eq!(tool["inputSchema"]["type"], "object", "{name}: {tool}");
    }
    // Argument shapes from the reference.
    let required = |name: &str| find(name)["inputSchema"]["required"].clone();
    assert_eq!(required("new_page"), json!(["url"]));
    assert_eq!(required("select_page"), json!(["pageId"]));
    assert_eq!(required("close_page"), json!(["pageId"]));
    assert_eq!(required("wait_for"), json!(["text"]));
    assert_eq!(
        find("select_page")["inputSchema"]["properties"]["pageId"]["type"],
        "number"
    );
    // Page-scoped tools take an optional pageId.
    for name in ["navigate_page", "wait_for", "evaluate_script"] {
        let schema = &find(name)["inputSchema"];
        assert!(
            schema["properties"]["pageId"].is_object(),
            "{name}: {schema}"
        );
        let required = schema["required"].as_array().cloned().unwrap_or_default();
        assert!(!required.contains(&json!("pageId")), "{name}: {schema}");
    }
}

// ---------------------------------------------------------------- bad tool calls

#[test]

fn an_unknown_tool_is_invalid_params_naming_it() {
    let mcp = started();
    let response = mcp.request(
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    );
    assert_eq!(error_code(&response), -32602, "{response}");
    let message = response["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("no_such_tool"), "{response}");
}

#[test]

fn tools_call_without_a_name_is_invalid_params() {
    let mcp = started();
    let response = mcp.request("tools/call", Value::Null);
    assert_eq!(error_code(&response), -32602, "{response}");
    let response = mcp.request("tools/call", json!({"arguments": {}}));
    assert_eq!(error_code(&response), -32602, "{response}");
}

#[test]

fn invalid_arguments_are_an_error_result_naming_the_argument() {
    let mcp = started();
    for (tool, args, argument) in [
        ("select_page", json!({"pageId": "abc"}), "pageId"),
        ("close_page", json!({}), "pageId"),
        ("new_page", json!({"url": 42}), "url"),
        ("navigate_page", json!({"type": "sideways"}), "type"),
        ("wait_for", json!({}), "text"),
        ("wait_for", json!({"text": "not an array"}), "text"),
        ("evaluate_script", json!({"function": 5}), "function"),
    ] {
        let result = mcp.call_err(tool, args.clone());
        let prefix = format!("Input validation error: Invalid arguments for tool {tool}: ");
        assert!(
            result.text.starts_with(&prefix),
            "{tool} {args}: {}",
            result.text
        );
        assert!(
            result.text[prefix.len()..].contains(argument),
            "{tool} {args} should name {argument}: {}",
            result.text
        );
    }
    // Validation failures never need the browser.
    assert!(
        mcp.started_processes().is_empty(),
        "{:?}",
        mcp.started_processes()
    );
}
