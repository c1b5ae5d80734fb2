//! MCP 2026-07-28 beside the handshake versions: `server/discover` with no handshake, the
//! per-request `_meta` envelope and its errors (-32602, -32022), `resultType` on results,
//! `tools/list` caching hints, `subscriptions/listen` (acknowledged, tagged, cancelled, ended on
//! shutdown), no `ping` in the new mode, `initialize` switching back, cancellation, file roots.

mod common;

use std::time::{Duration, Instant};

use common::thirdparty::{page_url, EXECUTE, LIST_CHANGED, NOTIFIED};
use common::{Fixtures, Mcp};
use serde_json::{json, Value};

const VERSION: &str = "2026-07-28";
const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "devtools-mcp-tests", "version": "0.0.0"},
    })
}

fn with_envelope(mut params: Value) -> Value {
    params["_meta"] = envelope();
    params
}

/// A modern request's whole response.
fn modern(mcp: &Mcp, method: &str, params: Value) -> Value {
    mcp.request(method, with_envelope(params))
}

/// A modern request's result; panics on an error.
fn modern_ok(mcp: &Mcp, method: &str, params: Value) -> Value {
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

fn error_code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {response}"))
}

fn call_text(mcp: &Mcp, tool: &str, args: Value) -> (bool, String) {
    let result = modern_ok(mcp, "tools/call", json!({"name": tool, "arguments": args}));
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    (result["isError"] == true, text.to_owned())
}

/// Opens a subscription to tool list changes; returns its id once acknowledged.
fn listen(mcp: &Mcp) -> u64 {
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

/// Runs `late_tool` until the page has registered it (it does one second after load).
fn until_late_tool_runs(mcp: &Mcp) {
    let deadline = Instant::now() + NOTIFIED;
    loop {
        let (is_error, text) = call_text(mcp, EXECUTE, json!({"toolName": "late_tool"}));
        if !is_error {
            assert_eq!(text, "\"late\"");
            return;
        }
        assert!(Instant::now() < deadline, "late_tool never ran: {text}");
    }
}

#[test]
fn list_changes_go_only_to_subscriptions() {
    let fx = Fixtures::start();
    let mcp = Mcp::start(&[]);
    let url = page_url(&fx, "late.html");
    // No subscription: the page's late tools arrive unannounced.
    call_text(&mcp, "new_page", json!({"url": url}));
    until_late_tool_runs(&mcp);
    assert!(mcp.notification_history(LIST_CHANGED).is_empty());
    // Subscribed: each change comes tagged with the subscription.
    let subscription = listen(&mcp);
    call_text(&mcp, "navigate_page", json!({"type": "reload"}));
    let note = mcp.wait_notification(LIST_CHANGED, NOTIFIED);
    assert_eq!(
        note["params"]["_meta"][SUBSCRIPTION_ID], subscription,
        "{note}"
    );
    until_late_tool_runs(&mcp);
    // Cancelled: the stream ends without an answer, and nothing more comes.
    mcp.cancel(subscription, "done");
    mcp.drain_notifications(LIST_CHANGED);
    call_text(&mcp, "navigate_page", json!({"type": "reload"}));
    until_late_tool_runs(&mcp);
    modern_ok(&mcp, "tools/list", json!({}));
    assert!(mcp.drain_notifications(LIST_CHANGED).is_empty());
}

#[test]
fn calls_are_complete_cancellable_and_use_no_client_roots() {
    // The server's temp directory is a folder of this test's, so "outside it" does not depend
    // on where the repository lies (a clone under /tmp is inside the usual temp directory).
    let scratch = std::env::temp_dir().join(format!("mcp2026-roots-{}", std::process::id()));
    let tmp = scratch.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mcp = Mcp::start_with_env(&[], &[("TMPDIR", tmp.to_str().unwrap())]);
    let (is_error, text) = call_text(&mcp, "list_pages", json!({}));
    assert!(!is_error && text.contains("## Pages"), "{text}");
    // Cancelled: no answer, while a later call that takes longer answers.
    let slow = |ms: u64| {
        let function = format!("() => new Promise(r => setTimeout(() => r({ms}), {ms}))");
        let params = json!({"name": "evaluate_script", "arguments": {"function": function}});
        mcp.request_async("tools/call", with_envelope(params))
    };
    let cancelled = slow(1000);
    mcp.cancel(cancelled, "not needed");
    let later = slow(2000);
    let answer = mcp.wait_response(later);
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    // Answers come in order, and the cancelled call would have settled first.
    assert!(!mcp.answered(cancelled), "the cancelled call answered");
    // No roots/list is ever asked; a file outside --filesystemRoot and the temp dir is refused.
    let outside = scratch.join("mcp2026.png");
    let (is_error, text) = call_text(
        &mcp,
        "take_screenshot",
        json!({"filePath": outside.to_string_lossy()}),
    );
    assert!(is_error && text.contains("Access denied"), "{text}");
    let inside = tmp.join("mcp2026.png");
    let (is_error, text) = call_text(
        &mcp,
        "take_screenshot",
        json!({"filePath": inside.to_string_lossy()}),
    );
    assert!(!is_error, "{text}");
    assert!(inside.exists() && !outside.exists());
    assert!(mcp.notification_history("roots/list").is_empty());
    let _ = std::fs::remove_dir_all(&scratch);
}
