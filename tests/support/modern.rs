//! MCP 2026-07-28 as a client speaks it: the per-request `_meta` envelope, results checked for
//! `resultType` and `serverInfo`, subscriptions to list changes (`binary/mcp_2026.rs` and
//! `browser/mcp_2026.rs`).

use std::time::Duration;

use serde_json::{json, Value};

use super::Mcp;

/// The protocol version that needs no handshake.
pub const VERSION: &str = "2026-07-28";
pub const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// The `_meta` every MCP 2026-07-28 request carries.
pub fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "devtools-mcp-tests", "version": "0.0.0"},
    })
}

/// `params` with the envelope.
pub fn with_envelope(mut params: Value) -> Value {
    params["_meta"] = envelope();
    params
}

/// A modern request's whole response.
pub fn modern(mcp: &Mcp, method: &str, params: Value) -> Value {
    mcp.request(method, with_envelope(params))
}

/// A modern request's result; panics on an error.
pub fn modern_ok(mcp: &Mcp, method: &str, params: Value) -> Value {
    let response = modern(mcp, method, params);
    match response.get("result") {
        Some(result) if response.get("error").is_none() => {
            assert_eq!(result["resultType"], "complete", "{response}");
            assert_eq!(result["_meta"][SERVER_INFO]["name"], "devtools-mcp");
            result.clone()
        }
        _ => panic!("{method} failed: {response}"),
    }
}

/// A modern `tools/call`: whether it is an error, and its text.
pub fn call_text(mcp: &Mcp, tool: &str, args: Value) -> (bool, String) {
    let result = modern_ok(mcp, "tools/call", json!({"name": tool, "arguments": args}));
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    (result["isError"] == true, text.to_owned())
}

/// Opens a subscription to tool list changes; returns its id once acknowledged.
pub fn listen(mcp: &Mcp) -> u64 {
    let params = with_envelope(json!({"notifications": {"toolsListChanged": true}}));
    let id = mcp.request_async("subscriptions/listen", params);
    let ack = mcp.wait_notification(ACKNOWLEDGED, Duration::from_secs(5));
    assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_ID], id, "{ack}");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
    id
}
