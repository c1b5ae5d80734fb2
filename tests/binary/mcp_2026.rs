//! MCP 2026-07-28 beside the handshake versions: `server/discover` with no handshake, the
//! per-request `_meta` envelope and its errors (-32602, -32022), `resultType` on results,
//! `tools/list` caching hints, `subscriptions/listen` (acknowledged, tagged, cancelled, ended on
//! shutdown), no `ping` in the new mode, `initialize` switching back (cancellation and file
//! roots, which need a browser, are in `browser/mcp_2026.rs`).

use std::time::Duration;

use crate::support::calls::error_code;
use crate::support::modern::{
    listen, modern, modern_ok, with_envelope, ACKNOWLEDGED, SUBSCRIPTION_ID, VERSION,
};
use crate::support::Mcp;
use serde_json::{json, Value};

#[test]
fn discover_answers_with_no_handshake_and_at_any_time() {
    let mcp = Mcp::start(&[]);
    let found = modern_ok(&mcp, "server/discover", json!({}));
    assert_eq!(found["supportedVersions"], json!([VERSION]), "{found}");
    assert_eq!(found["capabilities"]["tools"]["listChanged"], true);
    assert!(found["ttlMs"].as_u64().is_some(), "{found}");
    assert_eq!(found["cacheScope"], "public");
    // Again, after other requests and after a handshake.
    modern_ok(&mcp, "tools/list", json!({}));
    mcp.initialize();
    let again = modern_ok(&mcp, "server/discover", json!({}));
    assert_eq!(again["supportedVersions"], json!([VERSION]));
}

#[test]
fn an_incomplete_envelope_is_invalid_params() {
    let mcp = Mcp::start(&[]);
    let meta = |version: Value, caps: Option<Value>| {
        let mut m = json!({"io.modelcontextprotocol/protocolVersion": version});
        if let Some(c) = caps {
            m["io.modelcontextprotocol/clientCapabilities"] = c;
        }
        json!({"_meta": m})
    };
    for params in [
        meta(json!(VERSION), None),
        meta(json!(VERSION), Some(json!("all"))),
        meta(json!(20260728), Some(json!({}))),
    ] {
        let response = mcp.request("server/discover", params.clone());
        assert_eq!(error_code(&response), -32602, "{params}: {response}");
    }
    // Once the connection speaks the new version, a request without the envelope lacks it.
    modern_ok(&mcp, "server/discover", json!({}));
    for method in ["tools/list", "ping"] {
        let response = mcp.request(method, json!({}));
        assert_eq!(error_code(&response), -32602, "{method}: {response}");
        let message = response["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("protocolVersion"), "{response}");
    }
}

#[test]
fn an_unsupported_version_is_refused_naming_ours() {
    let mcp = Mcp::start(&[]);
    for requested in ["1900-01-01", "2025-11-25", "2027-01-01"] {
        let mut params = with_envelope(json!({}));
        params["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!(requested);
        let response = mcp.request("tools/list", params);
        assert_eq!(error_code(&response), -32022, "{response}");
        let data = &response["error"]["data"];
        assert_eq!(data["requested"], requested, "{response}");
        let supported = data["supported"].as_array().cloned().unwrap_or_default();
        assert!(supported.contains(&json!(VERSION)), "{response}");
        assert!(supported.contains(&json!("2025-11-25")), "{response}");
    }
}

#[test]
fn tools_list_is_cacheable_complete_and_in_a_fixed_order() {
    let mcp = Mcp::start(&[]);
    // The handshake versions' list first: no new fields there.
    let legacy = mcp.request_ok("tools/list", json!({}));
    assert!(legacy.get("resultType").is_none() && legacy.get("ttlMs").is_none());
    let first = modern_ok(&mcp, "tools/list", json!({}));
    let second = modern_ok(&mcp, "tools/list", json!({}));
    assert_eq!(first, second);
    assert_eq!(first["tools"], legacy["tools"]);
    assert!(first["ttlMs"].as_u64().is_some_and(|t| t > 0), "{first}");
    assert_eq!(first["cacheScope"], "public");
    // Exposed page tools change with the page: stale at once, and private.
    let exposing = Mcp::start(&["--exposePageTools"]);
    let list = modern_ok(&exposing, "tools/list", json!({}));
    assert_eq!(
        (&list["ttlMs"], &list["cacheScope"]),
        (&json!(0), &json!("private"))
    );
}

#[test]
fn ping_and_set_level_do_not_exist_in_the_new_version() {
    let mcp = Mcp::start(&[]);
    for method in ["ping", "logging/setLevel", "resources/list"] {
        let response = modern(&mcp, method, json!({"level": "info"}));
        assert_eq!(error_code(&response), -32601, "{method}: {response}");
    }
}

#[test]
fn initialize_switches_back_and_ends_the_subscriptions() {
    let mcp = Mcp::start(&[]);
    let subscription = listen(&mcp);
    let init = mcp.initialize();
    assert_eq!(init["protocolVersion"], "2025-06-18");
    let closed = mcp.wait_response(subscription);
    assert_eq!(closed["result"]["resultType"], "complete", "{closed}");
    assert_eq!(closed["result"]["_meta"][SUBSCRIPTION_ID], subscription);
    // The handshake's requests, as before.
    assert_eq!(mcp.request_ok("ping", json!({})), json!({}));
    let tools = mcp.request_ok("tools/list", json!({}));
    assert!(tools.get("resultType").is_none(), "{tools}");
}

#[test]
fn shutdown_ends_each_stream_with_its_answer() {
    let mcp = Mcp::start(&[]);
    let first = listen(&mcp);
    let params = with_envelope(json!({"notifications": {"promptsListChanged": true}}));
    let second = mcp.request_async("subscriptions/listen", params);
    let ack = mcp.wait_notification(ACKNOWLEDGED, Duration::from_secs(5));
    // Only what exists is honoured.
    assert_eq!(ack["params"]["notifications"], json!({}), "{ack}");
    let bad = modern(&mcp, "subscriptions/listen", json!({}));
    assert_eq!(error_code(&bad), -32602, "{bad}");
    mcp.close_stdin();
    for id in [first, second] {
        let closed = mcp.wait_response(id);
        assert_eq!(closed["result"]["resultType"], "complete", "{closed}");
        assert_eq!(closed["result"]["_meta"][SUBSCRIPTION_ID], id, "{closed}");
    }
}
