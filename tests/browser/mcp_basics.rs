//! The MCP lifecycle with a browser: stdout carries only protocol messages whatever the page
//! does (the rest of the lifecycle is in `binary/mcp_basics.rs`).

use std::time::Duration;

use crate::binary::mcp_basics::PROMPT;
use crate::support::{started, Fixtures};
use serde_json::json;

#[test]
fn stdout_carries_only_protocol_messages() {
    let fx = Fixtures::start();
    // A page that is noisy in every way a browser can be: console output, an uncaught error,
    // a failed request.
    let noisy = fx.page_url_with_html(
        "<title>noisy</title><script>console.log('log line'); console.error('error line');\
         fetch('/missing.json').catch(() => {}); setTimeout(() => { throw new Error('uncaught'); });\
         </script><p>noisy page</p>",
    );
    let mcp = started();
    mcp.list_tools();
    mcp.call_ok("new_page", json!({"url": noisy}));
    mcp.call_ok("list_pages", json!({}));
    mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => { console.log('from evaluate'); return 1 + 1; }"}),
    );
    mcp.call_err(
        "evaluate_script",
        json!({"function": "() => { throw new Error('boom'); }"}),
    );
    mcp.request("no/such/method", json!({}));
    mcp.send_line("not json");
    mcp.wait_null_id_response(PROMPT);
    mcp.close_stdin_and_wait(Duration::from_secs(5));
    assert!(
        mcp.wait_stdout_closed(Duration::from_secs(5)),
        "stdout still open after the server exited (a child holds it?)"
    );
    mcp.assert_stdout_clean();
}
