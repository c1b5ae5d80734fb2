//! `--slim` and the reference's `--category<Name>` flags against the real binary: which tools
//! `tools/list` offers, what calling a hidden one answers (as the reference's MCP SDK does), and
//! the three slim tools on a real page in headless Chromium.

mod common;

use common::{started_with, Fixtures, Mcp};
use serde_json::{json, Value};

fn names(mcp: &Mcp) -> Vec<String> {
    mcp.list_tools()
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect()
}

/// A `tools/call` that must be refused with a JSON-RPC error: its message.
fn refused(mcp: &Mcp, tool: &str) -> String {
    let response = mcp.request("tools/call", json!({"name": tool, "arguments": {}}));
    assert_eq!(response["error"]["code"], -32602, "{tool}: {response}");
    response["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn category_flags_hide_their_tools_and_calls_to_them_are_refused() {
    let all = names(&started_with(&[]));
    let mcp = started_with(&[
        "--categoryEmulation=false",
        "--no-category-network",
        "--categoryExperimentalThirdParty",
        "false",
        "--categoryPerformance=false",
    ]);
    let hidden = [
        "emulate",
        "resize_page",
        "list_network_requests",
        "get_network_request",
        "list_3p_developer_tools",
        "execute_3p_developer_tool",
        "performance_start_trace",
        "performance_stop_trace",
        "performance_analyze_insight",
    ];
    let expected: Vec<String> = all
        .iter()
        .filter(|n| !hidden.contains(&n.as_str()))
        .cloned()
        .collect();
    assert_eq!(names(&mcp), expected);
    assert!(expected.iter().any(|n| n == "click"), "{expected:?}");
    assert_eq!(refused(&mcp, "emulate"), "Tool emulate disabled");
    assert_eq!(
        refused(&mcp, "list_network_requests"),
        "Tool list_network_requests disabled"
    );
    // Input off: every input tool goes, the rest stay.
    let input_off = names(&started_with(&["--categoryInput=false"]));
    for tool in [
        "click",
        "click_at",
        "fill",
        "fill_form",
        "press_key",
        "upload_file",
    ] {
        assert!(
            !input_off.iter().any(|n| n == tool),
            "{tool}: {input_off:?}"
        );
    }
    assert!(
        input_off.iter().any(|n| n == "take_snapshot"),
        "{input_off:?}"
    );
}

#[test]
fn slim_offers_its_three_tools_instead_of_the_others() {
    let mcp = started_with(&["--slim"]);
    assert_eq!(names(&mcp), ["screenshot", "navigate", "evaluate"]);
    let tools = mcp.list_tools();
    let schema = |name: &str| -> Value {
        let tool = tools.iter().find(|t| t["name"] == name);
        tool.map(|t| t["inputSchema"].clone()).unwrap_or_default()
    };
    assert_eq!(schema("navigate")["required"], json!(["url"]));
    assert_eq!(schema("evaluate")["required"], json!(["script"]));
    assert_eq!(schema("screenshot")["properties"], json!({}));
    assert_eq!(refused(&mcp, "list_pages"), "Tool list_pages not found");
    assert_eq!(
        refused(&mcp, "take_screenshot"),
        "Tool take_screenshot not found"
    );
    // And the other way round.
    let regular = started_with(&[]);
    assert_eq!(refused(&regular, "navigate"), "Tool navigate not found");
    // Categories apply in slim mode too.
    let no_debugging = started_with(&["--slim", "--categoryDebugging=false"]);
    assert_eq!(names(&no_debugging), ["navigate"]);
    assert_eq!(refused(&no_debugging, "evaluate"), "Tool evaluate disabled");
}

#[test]
fn slim_tools_navigate_evaluate_and_screenshot_a_real_page() {
    let fx = Fixtures::start();
    let mcp = started_with(&["--slim"]);
    let url = fx.url("/pages/hello.html");
    let nav = mcp.call_ok("navigate", json!({"url": url}));
    assert_eq!(nav.text, format!("Navigated to {url}."));
    let said = |script: &str| mcp.call("evaluate", json!({"script": script}));
    let title = said("document.title");
    assert!(!title.is_error, "{title:?}");
    assert_eq!(title.text, "\"Hello fixture\"");
    assert_eq!(
        said("Promise.resolve({a: [1, 'x']})").text,
        r#"{"a":[1,"x"]}"#
    );
    assert_eq!(said("undefined").text, "");
    let thrown = said("throw new Error('boom')");
    assert!(thrown.is_error, "{thrown:?}");
    assert_eq!(thrown.text, "Error: boom");

    let shot = mcp.call_ok("screenshot", json!({}));
    assert!(shot.text.ends_with("/screenshot.png"), "{}", shot.text);
    let png = std::fs::read(&shot.text).unwrap_or_else(|e| panic!("{}: {e}", shot.text));
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n"),
        "not a PNG: {} bytes",
        png.len()
    );
    if let Some(dir) = std::path::Path::new(&shot.text).parent() {
        let _ = std::fs::remove_dir_all(dir);
    }

    let bad = mcp.call("navigate", json!({"url": "nope"}));
    assert!(bad.is_error, "{bad:?}");
    assert_eq!(
        bad.text,
        "Error: Invalid URL: \"nope\". URLs must be valid according to the URL standard."
    );
    let browser_page = mcp.call("navigate", json!({"url": "chrome://settings"}));
    assert_eq!(
        browser_page.text,
        "Error: Navigating to chrome: URLs is not allowed."
    );
}

#[test]
fn with_third_party_tools_off_answers_and_the_list_leave_the_pages_tools_out() {
    let fx = Fixtures::start();
    let url = common::thirdparty::page_url(&fx, "sync.html");
    let group = "Sync: Tools answered synchronously.";
    // On (the default): new_page's answer lists the page's tools, and so does tools/list.
    let on = started_with(&["--exposePageTools"]);
    let builtin = on.list_tools().len();
    let opened = on.call_ok("new_page", json!({"url": url}));
    assert!(opened.text.contains(group), "{}", opened.text);
    assert!(on.list_tools().len() > builtin);
    // Off: neither.
    let off = started_with(&[
        "--exposePageTools",
        "--categoryExperimentalThirdParty=false",
    ]);
    let builtin = names(&off);
    let opened = off.call_ok("new_page", json!({"url": url}));
    assert!(!opened.text.contains(group), "{}", opened.text);
    let structured = opened.structured.unwrap_or_default();
    assert!(
        structured.get("thirdPartyDeveloperTools").is_none(),
        "{structured}"
    );
    assert_eq!(names(&off), builtin);
}
