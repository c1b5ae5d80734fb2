//! WebMCP in a browser without the domain (an older or differently built browser reached with
//! --browserUrl): the server against a scripted browser (`support/fake.rs`) that answers
//! `WebMCP.enable` with Chromium's error for an unknown method. WebMCP answers say WebMCP is
//! unavailable; the server's other tools do not notice.

use crate::support::fake::Rig;
use serde_json::{json, Value};

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

const UNAVAILABLE: &str =
    "WebMCP is not available in this browser (it needs Chromium with --enable-features=WebMCP).";

#[test]
fn a_browser_without_webmcp_gets_answers_that_say_so() {
    let mut rig = Rig::new(&["--categoryExperimentalWebmcp"]);
    rig.call(1, "list_webmcp_tools", json!({}));
    rig.boot();
    // Answered before the browser said anything about WebMCP: nothing is known yet.
    let out = rig.output();
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(text(&out[0]), "## WebMCP tools\nNo WebMCP tools available.");
    let enable = rig
        .browser
        .pending("WebMCP.enable")
        .expect("WebMCP.enable sent");
    rig.browser
        .answer_error(enable.id, -32601, "'WebMCP.enable' wasn't found");
    rig.deliver();

    rig.call(2, "list_webmcp_tools", json!({}));
    let out = rig.output();
    assert_eq!(text(&out[0]), format!("## WebMCP tools\n{UNAVAILABLE}"));
    rig.call(3, "execute_webmcp_tool", json!({"toolName": "anything"}));
    let out = rig.output();
    assert_eq!(out[0]["result"]["isError"], true, "{out:?}");
    assert_eq!(text(&out[0]), format!("Error: {UNAVAILABLE}"));
    assert_eq!(rig.sent("WebMCP.invokeTool"), 0);

    // Other tools carry on.
    rig.evaluate(4, "() => 1 + 1");
    let script = rig.script_request("() => 1 + 1");
    rig.script_returns(script, "2");
    let out = rig.output();
    assert!(text(&out[0]).contains("```json\n2\n```"), "{out:?}");
}
