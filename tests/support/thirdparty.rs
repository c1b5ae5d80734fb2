//! What the `thirdparty_*` tests share: third-party developer tools, called on pages
//! of `tests/fixtures/thirdparty/` (its README says what each one registers).

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::calls::assert_error;
use super::{Fixtures, Mcp, ToolResult};

/// How long a page's tools may take to reach the server by notification.
pub const NOTIFIED: Duration = Duration::from_secs(8);
pub const LIST_CHANGED: &str = "notifications/tools/list_changed";
pub const EXECUTE: &str = "execute_3p_developer_tool";
pub const LIST: &str = "list_3p_developer_tools";
/// The heading of the third-party section in answers and in the list.
pub const SECTION: &str = "## Third-party developer tools";

/// The URL of a page of `tests/fixtures/thirdparty/`.
pub fn page_url(fx: &Fixtures, file: &str) -> String {
    fx.url(&format!("/thirdparty/{file}"))
}

/// `new_page` on a fixture page; returns the answer.
pub fn open(mcp: &Mcp, fx: &Fixtures, file: &str) -> ToolResult {
    mcp.call_ok("new_page", json!({"url": page_url(fx, file)}))
}

/// `execute_3p_developer_tool` on the selected page, with `params` as given (None: absent).
pub fn exec(mcp: &Mcp, tool: &str, params: Option<&str>) -> ToolResult {
    let mut args = json!({"toolName": tool});
    if let Some(p) = params {
        args["params"] = json!(p);
    }
    mcp.call(EXECUTE, args)
}

/// `execute_3p_developer_tool` that must succeed; returns its text.
pub fn exec_ok(mcp: &Mcp, tool: &str, params: Option<&str>) -> String {
    let r = exec(mcp, tool, params);
    assert!(!r.is_error, "{tool} {params:?} failed: {}", r.text);
    r.text
}

/// `list_3p_developer_tools` on the selected page, which must succeed.
pub fn list(mcp: &Mcp) -> ToolResult {
    mcp.call_ok(LIST, json!({}))
}

/// The third-party section of an answer (from its heading to the end), or "" when absent.
pub fn section(text: &str) -> &str {
    text.find(SECTION).map(|i| &text[i..]).unwrap_or("")
}

/// Asserts the reference's error for a tool the page does not have.
pub fn assert_not_found(result: &ToolResult, tool: &str) {
    assert_error(result, &format!("Tool {tool} not found"));
}

/// Waits for `list_changed` notifications (never polling the page) until `ready` holds,
/// checking it after each one. Panics after `NOTIFIED`.
pub fn until_notified(mcp: &Mcp, what: &str, mut ready: impl FnMut() -> bool) {
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
pub fn json_body(text: &str) -> Value {
    let body = text.split("\n## Latest page snapshot").next().unwrap_or("");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}
