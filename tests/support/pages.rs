//! What the page and script tests (`pages.rs`, `navigation.rs`, `script.rs`, `robustness.rs`,
//! `connection.rs`, `file_roots.rs` of `browser/`) share: the page and script tools on the
//! pages of `tests/fixtures/pages_script/`.

use serde_json::json;

use super::calls::returned;
use super::{Fixtures, Mcp, ToolResult};

/// The URL of a page of `tests/fixtures/pages_script/`.
pub fn page_url(fx: &Fixtures, file: &str) -> String {
    fx.url(&format!("/pages_script/{file}"))
}

/// `evaluate_script` on the selected page.
pub fn evaluate(mcp: &Mcp, function: &str) -> ToolResult {
    mcp.call("evaluate_script", json!({ "function": function }))
}

/// `evaluate_script` on page `page`.
pub fn evaluate_on(mcp: &Mcp, page: u32, function: &str) -> ToolResult {
    mcp.call(
        "evaluate_script",
        json!({ "function": function, "pageId": page }),
    )
}

/// Asserts a successful `evaluate_script` that returned exactly `json_text`.
pub fn assert_returned(result: &ToolResult, json_text: &str) {
    assert!(!result.is_error, "evaluate_script failed: {}", result.text);
    assert_eq!(result.text, returned(json_text));
}
