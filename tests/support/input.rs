//! What the input tests (`browser/input/`) share: pages
//! of `tests/fixtures/input/` and calls that must not stall.

use serde_json::{json, Value};

use super::{Fixtures, Mcp, ToolResult};

/// Opens a fixture page and returns its snapshot text.
pub fn open(mcp: &Mcp, fx: &Fixtures, path: &str) -> String {
    mcp.call_ok("navigate_page", json!({"url": fx.url(path)}));
    mcp.call_ok("take_snapshot", json!({})).text
}

/// A call that must not stall: a stalled input action answers its time limit's error (a
/// stopwatch would also fail calls that are only slow on a loaded machine).
pub fn unstalled(mcp: &Mcp, tool: &str, args: Value) -> ToolResult {
    let r = mcp.call(tool, args);
    assert!(
        !r.text.contains("did not finish within"),
        "{tool} stalled: {}",
        r.text
    );
    r
}
