//! Helpers for tests that call tools without waiting (hangs, cancellation) and read uids.

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
