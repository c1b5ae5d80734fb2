//! `--slim` and the reference's `--category<Name>` flags against the real binary: which tools
//! `tools/list` offers and what calling a hidden one answers (as the reference's MCP SDK does).
//! The slim tools on a real page are in `browser/slim_and_categories.rs`.

use crate::support::calls::tool_names as names;
use crate::support::{started_with, Mcp};
use serde_json::{json, Value};

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
    let input_off = names(&started_with(&[
        "--categoryInput=false",
        "--experimentalVision",
    ]));
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
