//! What one realistic session costs a client in bytes, against chrome-devtools-mcp 1.11.0: open a
//! store page shaped like a real Angular app with Prebid.js ad slots (their page tools, and a
//! snapshot as heavy as a real page's), snapshot it, list and run its tools, evaluate,
//! navigate, read the console and the network, come back. Each answer's size
//! is its `result` object as compact JSON with this run's origin written as `{origin}`; the
//! reference's sizes are recorded in `tests/fixtures/reference/session_bytes.json` (captured the
//! way the other reference answers are: `tests/fixtures/reference/capture.sh
//! browser::session_bytes`). Ours must stay within 1.10× of the reference's over the session,
//! which leaves room for the page-tool list `new_page` adds on purpose and no room for sending
//! every answer twice.

use std::fs;
use std::path::PathBuf;

use crate::support::reference::capturing;
use crate::support::thirdparty::page_url;
use crate::support::{started, Fixtures, Mcp};
use serde_json::{json, Value};

const BOUND: f64 = 1.10;

fn fixture_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/reference/session_bytes.json")
}

/// The session's calls, in order.
fn calls(fx: &Fixtures) -> Vec<(&'static str, Value)> {
    let tools = page_url(fx, "storefront.html");
    let console = fx.url("/console_network/console.html");
    let network = fx.url("/console_network/network.html");
    vec![
        ("new_page", json!({ "url": tools })),
        ("take_snapshot", json!({})),
        ("list_3p_developer_tools", json!({})),
        (
            "execute_3p_developer_tool",
            json!({"toolName": "angular:di_graph", "params": "{}"}),
        ),
        (
            "execute_3p_developer_tool",
            json!({"toolName": "get_auctions", "params": "{}"}),
        ),
        (
            "evaluate_script",
            json!({"function": "() => ({title: document.title, links: document.links.length})"}),
        ),
        ("navigate_page", json!({"type": "url", "url": console})),
        ("list_console_messages", json!({})),
        ("navigate_page", json!({"type": "url", "url": network})),
        ("list_network_requests", json!({})),
        ("navigate_page", json!({"type": "url", "url": tools})),
        ("list_3p_developer_tools", json!({})),
        ("take_snapshot", json!({})),
    ]
}

/// One answer: what was called, and its size with the origin as a placeholder.
fn measured(mcp: &Mcp, fx: &Fixtures, tool: &str, args: Value) -> Value {
    let result = mcp.call(tool, args.clone());
    let origin = fx.origin();
    let normalise = |v: &Value| v.to_string().replace(&origin, "{origin}");
    let text: Vec<String> = result
        .content
        .iter()
        .filter_map(|c| c["text"].as_str())
        .map(|t| t.replace(&origin, "{origin}"))
        .collect();
    json!({
        "tool": tool,
        "arguments": serde_json::from_str::<Value>(&normalise(&args)).unwrap_or(args),
        "bytes": normalise(&result.raw).len(),
        "textBytes": text.iter().map(String::len).sum::<usize>(),
        "structuredContent": result.structured.is_some(),
        "text": text,
    })
}

#[test]
fn a_realistic_session_costs_at_most_1_10_of_the_references_bytes() {
    let fx = Fixtures::start();
    let mcp = started();
    let ours: Vec<Value> = calls(&fx)
        .into_iter()
        .map(|(tool, args)| measured(&mcp, &fx, tool, args))
        .collect();
    if capturing() {
        let fixture = json!({"scenario": "session_bytes", "calls": ours});
        let text = serde_json::to_string_pretty(&fixture).unwrap_or_default() + "\n";
        fs::write(fixture_path(), text).unwrap();
        return;
    }
    let text = fs::read_to_string(fixture_path()).unwrap();
    let recorded: Value = serde_json::from_str(&text).unwrap();
    let theirs = recorded["calls"].as_array().cloned().unwrap_or_default();
    assert_eq!(theirs.len(), ours.len(), "the session changed: re-capture");
    println!(
        "{:<28} {:>8} {:>8} {:>8} {:>8}",
        "call", "ours", "ref", "text", "ref text"
    );
    let (mut a, mut b, mut at, mut bt) = (0, 0, 0, 0);
    for (o, t) in ours.iter().zip(&theirs) {
        assert_eq!(
            o["arguments"], t["arguments"],
            "the session changed: re-capture"
        );
        assert_eq!(
            o["structuredContent"], false,
            "{o}: structuredContent by default"
        );
        if o["text"] != t["text"] {
            println!("ours:\n{}\nreference:\n{}", o["text"][0], t["text"][0]);
        }
        let n = |v: &Value, k: &str| v[k].as_u64().unwrap_or(0);
        println!(
            "{:<28} {:>8} {:>8} {:>8} {:>8}",
            o["tool"].as_str().unwrap_or_default(),
            n(o, "bytes"),
            n(t, "bytes"),
            n(o, "textBytes"),
            n(t, "textBytes")
        );
        (a, b) = (a + n(o, "bytes"), b + n(t, "bytes"));
        (at, bt) = (at + n(o, "textBytes"), bt + n(t, "textBytes"));
    }
    let ratio = a as f64 / b as f64;
    println!(
        "session: ours {a} bytes, reference {b} bytes ({ratio:.3}x); text alone {at} against {bt} ({:.3}x)",
        at as f64 / bt as f64
    );
    assert!(b > 1000, "the capture lost its answers: {b} bytes");
    assert!(
        ratio <= BOUND,
        "{a} bytes is {ratio:.3}x the reference's {b}, over {BOUND}x"
    );
}

/// With `--experimentalStructuredContent` the answers carry it, as the reference's do.
#[test]
fn structured_content_comes_with_its_flag() {
    let fx = Fixtures::start();
    let mcp = crate::support::started_with(&["--experimentalStructuredContent"]);
    let opened = mcp.call_ok(
        "new_page",
        json!({"url": page_url(&fx, "angular-like.html")}),
    );
    let structured = opened.structured.expect("structuredContent");
    assert!(structured["pages"].is_array(), "{structured}");
}
