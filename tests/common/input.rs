//! What the input tests (`input_forms.rs`, `input_clicks.rs`, `input_dialogs.rs`) share: pages
//! of `tests/fixtures/input/` and calls that must not stall.

use std::time::Instant;

use serde_json::{json, Value};

use super::{Fixtures, Mcp, ToolResult, PROMPT};

/// Opens a fixture page and returns its snapshot text.
pub fn open(mcp: &Mcp, fx: &Fixtures, path: &str) -> String {
    mcp.call_ok("navigate_page", json!({"url": fx.url(path)}));
    mcp.call_ok("take_snapshot", json!({})).text
}

/// A call that must answer quickly.
pub fn timed(mcp: &Mcp, tool: &str, args: Value) -> ToolResult {
    let started = Instant::now();
    let r = mcp.call(tool, args);
    let took = started.elapsed();
    assert!(took < PROMPT, "{tool} took {took:?}: {}", r.text);
    r
}
