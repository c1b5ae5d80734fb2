//! Request and response bodies that are too large or binary to show inline
//! go to files, against real Chromium.
//!
//! Pages live in `tests/fixtures/console_network/`; the routes a test needs (an echo endpoint,
//! error statuses, large and binary bodies) are added to the fixture server per test. Expected
//! texts are the ones chrome-devtools-mcp 1.11 prints for the same pages, except where
//! devtools-mcp says more on purpose (the reason of an unhandled rejection, a request's timing).

use std::path::{Path, PathBuf};

use crate::support::console_network::{reqid, until};
use crate::support::{started, Fixtures, Mcp, Response};
use serde_json::json;

// ---------------------------------------------------------------- network bodies

#[test]
fn large_and_binary_bodies_go_to_files() {
    let fx = Fixtures::start();
    fx.echo_route("/api/echo");
    let large = format!("{}END", "0123456789".repeat(5000));
    fx.route_response("/large", Response::text(large.clone()));
    let binary: Vec<u8> = (0..=255u8).collect();
    fx.route_response(
        "/binary",
        Response::bytes("application/octet-stream", binary.clone()),
    );
    let mcp = started();
    mcp.call_ok(
        "new_page",
        json!({"url": fx.url("/console_network/network.html")}),
    );
    for path in ["/large", "/binary"] {
        mcp.call_ok(
            "evaluate_script",
            json!({"function": format!("() => getStatus('{path}')")}),
        );
    }
    mcp.call_ok(
        "evaluate_script",
        json!({"function": format!("() => postJson('/api/echo', {{big: '{}'}})", "x".repeat(20_000))}),
    );
    let list = until(&mcp, "list_network_requests", json!({}), |t| {
        t.contains("/api/echo [200]")
    });
    let t = list.text.as_str();
    response_bodies_inline(&mcp, t, &large);
    let dir = response_bodies_to_files(&mcp, t, &large, &binary);
    request_bodies(&mcp, t, &dir);
}

/// The large and the binary response body, inline.
fn response_bodies_inline(mcp: &Mcp, t: &str, large: &str) {
    let inline = mcp.call_ok("get_network_request", json!({"reqid": reqid(t, "/large")}));
    let body = inline
        .text
        .split("### Response Body\n")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .unwrap_or_default();
    assert_eq!(body, format!("{}... <truncated>", &large[..10_000]));
    let bin = mcp.call_ok("get_network_request", json!({"reqid": reqid(t, "/binary")}));
    assert!(
        bin.text.contains("### Response Body\n<binary data>"),
        "{}",
        bin.text
    );
}

/// The large and the binary response body, saved to files; returns the folder they are in.
fn response_bodies_to_files(mcp: &Mcp, t: &str, large: &str, binary: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("devtools-mcp-cn-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let wanted = dir.join("nested").join("large.txt");
    let saved = mcp.call_ok(
        "get_network_request",
        json!({"reqid": reqid(t, "/large"), "responseFilePath": wanted.to_string_lossy()}),
    );
    let written = dir.join("nested").join("large.network-response");
    assert!(
        saved.text.contains(&format!(
            "### Response Body\nSaved to {}.",
            written.display()
        )),
        "{}",
        saved.text
    );
    assert_eq!(std::fs::read_to_string(&written).unwrap_or_default(), large);
    let saved = mcp.call_ok(
        "get_network_request",
        json!({"reqid": reqid(t, "/binary"), "responseFilePath": dir.join("bin").to_string_lossy()}),
    );
    assert!(
        saved.text.contains("bin.network-response."),
        "{}",
        saved.text
    );
    assert_eq!(
        std::fs::read(dir.join("bin.network-response")).unwrap_or_default(),
        binary
    );
    dir
}

/// The large request body, inline and saved to a file in `dir` (removed afterwards).
fn request_bodies(mcp: &Mcp, t: &str, dir: &Path) {
    let echo = reqid(t, "/api/echo");
    let inline = mcp.call_ok("get_network_request", json!({"reqid": echo}));
    assert!(
        inline.text.contains("### Request Body\n{\"big\":\"xxxx"),
        "{}",
        inline.text
    );
    assert!(
        inline
            .text
            .contains("... <truncated>\n### Response Headers"),
        "{}",
        inline.text
    );
    let saved = mcp.call_ok(
        "get_network_request",
        json!({"reqid": echo, "requestFilePath": dir.join("post.json").to_string_lossy()}),
    );
    let post = dir.join("post.network-request");
    assert!(
        saved
            .text
            .contains(&format!("### Request Body\nSaved to {}.", post.display())),
        "{}",
        saved.text
    );
    assert_eq!(
        std::fs::read_to_string(&post).unwrap_or_default(),
        format!("{{\"big\":\"{}\"}}", "x".repeat(20_000))
    );
    let _ = std::fs::remove_dir_all(dir);
}
