//! Helpers for tests that call tools without waiting (hangs, cancellation), read values and
//! uids back, compare answers with the reference's texts, and read what `tools/list` and
//! JSON-RPC errors say.

use std::time::Duration;

use serde_json::{json, Value};

use super::mcp::{Mcp, ToolResult};

/// `tools/call` sent without waiting, for calls that are meant to hang.
pub fn call_async(mcp: &Mcp, tool: &str, args: Value) -> u64 {
    mcp.request_async("tools/call", json!({"name": tool, "arguments": args}))
}

/// The tool result in a whole `tools/call` response.
pub fn tool_result(response: &Value) -> ToolResult {
    match response.get("result") {
        Some(result) => ToolResult::from_result(result),
        None => panic!("expected a tool result, got {response}"),
    }
}

/// The uid of the first snapshot line containing `needle`.
pub fn uid_of(snapshot: &str, needle: &str) -> String {
    snapshot
        .lines()
        .find(|l| l.contains(needle))
        .and_then(|l| l.trim_start().strip_prefix("uid="))
        .and_then(|rest| rest.split_whitespace().next())
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("no line with {needle:?} in the snapshot:\n{snapshot}"))
}

/// Asserts that no response to request `id` arrives within `wait`.
pub fn assert_no_response(mcp: &Mcp, id: u64, wait: Duration) {
    let waited = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        mcp.wait_response_timeout(id, wait)
    }));
    if let Ok(response) = waited {
        panic!("request {id} was answered although it was cancelled: {response}");
    }
}

/// The reference's text for a successful `evaluate_script` that returned `json_text`.
pub fn returned(json_text: &str) -> String {
    format!("Script ran on page and returned:\n```json\n{json_text}\n```")
}

/// The reference's text for a tool that failed with `message`.
pub fn error_text(message: &str) -> String {
    format!("Error: {message}")
}

/// Asserts an `isError` result whose text is exactly the reference's `Error: <message>`.
pub fn assert_error(result: &ToolResult, message: &str) {
    assert!(result.is_error, "expected an error, got: {}", result.text);
    assert_eq!(result.text, error_text(message));
}

/// Runs `function` in the selected page (`evaluate_script`, which must succeed) and returns
/// the JSON value it answered with.
pub fn eval(mcp: &Mcp, function: &str) -> Value {
    let r = mcp.call_ok("evaluate_script", json!({ "function": function }));
    returned_value(&r.text)
}

/// The value in an `evaluate_script` answer's JSON block.
pub fn returned_value(text: &str) -> Value {
    let body = text
        .split("```json\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .unwrap_or_else(|| panic!("no JSON block in {text:?}"));
    serde_json::from_str(body).unwrap_or_else(|e| panic!("bad JSON {body:?}: {e}"))
}

/// The uid of the snapshot line with this role and accessible name.
pub fn uid(snapshot: &str, role: &str, name: &str) -> String {
    let wanted = format!(" {role} \"{name}\"");
    for line in snapshot.lines() {
        let line = line.trim_start();
        if let Some(rest) = line.strip_prefix("uid=") {
            let (id, tail) = rest.split_once(' ').unwrap_or((rest, ""));
            if format!(" {tail}").starts_with(&wanted) {
                return id.to_owned();
            }
        }
    }
    panic!("no {role} \"{name}\" in the snapshot:\n{snapshot}");
}

/// Waits until the page `page` (the selected page when `None`) has logged `marker` to its
/// console: how a test knows that a call it sent without waiting has reached the page (the
/// script or page tool logs the marker first), instead of sleeping and hoping it has.
pub fn until_logged(mcp: &Mcp, page: Option<u32>, marker: &str) {
    let args = match page {
        Some(id) => json!({ "pageId": id }),
        None => json!({}),
    };
    super::console_network::until(mcp, "list_console_messages", args, |list| {
        list.contains(marker)
    });
}

/// Waits until the selected page shows the dialog `dialog` (`alert: text`): answers about a
/// page carry its open dialog, and `list_console_messages` is one that never needs the
/// page's main thread (which an open dialog holds).
pub fn until_dialog(mcp: &Mcp, dialog: &str) {
    let section = format!("# Open dialog\n{dialog}.");
    super::console_network::until(mcp, "list_console_messages", json!({}), |answer| {
        answer.contains(&section)
    });
}

/// The code of a JSON-RPC error response (panics on anything else).
pub fn error_code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("expected a JSON-RPC error, got {response}"))
}

/// The names `tools/list` gives.
pub fn tool_names(mcp: &Mcp) -> Vec<String> {
    mcp.list_tools()
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect()
}

/// The tool of this name in a `tools/list` answer.
pub fn tool<'a>(tools: &'a [Value], name: &str) -> Option<&'a Value> {
    tools.iter().find(|t| t["name"] == name)
}
