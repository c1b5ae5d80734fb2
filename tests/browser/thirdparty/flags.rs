//! The flags for third-party tools against the real binary and real headless Chromium:
//! `--exposePageTools`, `--maxResultBytes`, `--toolTimeout` and the reference's
//! `--categoryExperimentalThirdParty`.
//!
//! Pages come from `tests/fixtures/thirdparty/` (its README says what each one registers) and,
//! for one-off registrations, from inline pages on the fixture server; the helpers are in
//! `support/thirdparty.rs`.

use std::collections::HashSet;

use crate::support::calls::{assert_error, tool_names, uid_of};
use crate::support::thirdparty::{
    exec, exec_ok, json_body, open, page_url, EXECUTE, LIST, LIST_CHANGED, NOTIFIED,
};
use crate::support::{started_with, Fixtures, Mcp};
use serde_json::{json, Value};

// ---------------------------------------------------------------- flags

#[test]
fn expose_page_tools_lists_them_as_mcp_tools_and_keeps_them_current() {
    let fx = Fixtures::start();
    let mcp = started_with(&["--exposePageTools"]);
    let builtin = tool_names(&mcp);
    open(&mcp, &fx, "angular-like.html");
    let di_name = listed_and_called(&mcp, &builtin);
    the_list_follows_the_page(&mcp, &fx, &builtin, &di_name);
    colliding_names_stay_unique(&mcp, &fx, &builtin);
    only_the_selected_pages_tools(&mcp, &builtin);
}

/// The page's tools are listed as MCP tools (besides `builtin`) and called; returns the name
/// `angular:di_graph` got.
fn listed_and_called(mcp: &Mcp, builtin: &[String]) -> String {
    let tools = mcp.list_tools();
    let exposed: Vec<&Value> = tools
        .iter()
        .filter(|t| !builtin.iter().any(|b| t["name"] == b.as_str()))
        .collect();
    let names: Vec<&str> = exposed.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names.len(), 3, "{names:?}");
    let unique: HashSet<&&str> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "{names:?}");
    for name in &names {
        assert!(
            !name.is_empty()
                && name.len() <= 64
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
            "not a valid MCP tool name: {name}"
        );
    }
    let di = exposed
        .iter()
        .find(|t| t["title"] == "Angular: angular:di_graph")
        .unwrap_or_else(|| panic!("{exposed:?}"));
    let di_name = di["name"].as_str().unwrap_or("");
    assert!(di_name.contains("angular_di_graph"), "{di_name}");
    let signal = exposed
        .iter()
        .find(|t| t["title"] == "Angular: angular:signal_graph")
        .unwrap_or_else(|| panic!("{exposed:?}"));
    assert_eq!(
        signal["inputSchema"]["properties"]["element"]["required"],
        json!(["uid"])
    );
    let signal_name = signal["name"].as_str().unwrap_or("").to_owned();

    // Calling them.
    let graph = mcp.call_ok(di_name, json!({}));
    assert_eq!(json_body(&graph.text)["injectors"][1]["name"], "AppCounter");
    let snapshot = mcp.call_ok("take_snapshot", json!({})).text;
    let button = uid_of(&snapshot, "button \"+1\"");
    let r = mcp.call_ok(&signal_name, json!({"element": {"uid": button}}));
    assert_eq!(json_body(&r.text)["component"], "app-counter");
    let auctions = exposed
        .iter()
        .find(|t| t["title"] == "Prebid.js DevTools: get_auctions")
        .and_then(|t| t["name"].as_str())
        .unwrap_or_else(|| panic!("{exposed:?}"));
    let bad = mcp.call(auctions, json!({"limit": 0}));
    assert!(bad.is_error && bad.text.contains("limit"), "{}", bad.text);
    di_name.to_owned()
}

/// A navigation changes the exposed tools; the old `di_name` is gone.
fn the_list_follows_the_page(mcp: &Mcp, fx: &Fixtures, builtin: &[String], di_name: &str) {
    // A change of page tools is announced and the list follows.
    mcp.drain_notifications(LIST_CHANGED);
    mcp.call_ok("navigate_page", json!({"url": page_url(fx, "sync.html")}));
    mcp.wait_notification(LIST_CHANGED, NOTIFIED);
    let names = tool_names(mcp);
    assert!(!names.iter().any(|n| n == di_name), "{names:?}");
    let add = names
        .iter()
        .find(|n| !builtin.contains(n) && n.ends_with("add"))
        .unwrap_or_else(|| panic!("{names:?}"))
        .clone();
    assert_eq!(mcp.call_ok(&add, json!({"a": 20, "b": 22})).text, "42");
    // A tool that went away is not callable any more.
    let gone = mcp.request("tools/call", json!({"name": di_name, "arguments": {}}));
    assert!(
        gone.get("error").is_some() || gone["result"]["isError"] == true,
        "{gone}"
    );
}

/// Tool names that collide once made MCP names stay unique.
fn colliding_names_stay_unique(mcp: &Mcp, fx: &Fixtures, builtin: &[String]) {
    // Duplicated and colliding names stay unique.
    let page = fx.page_url_with_html(
        "<title>Clash</title><script>
        const t = (name) => ({name, description: name, inputSchema: {type: 'object'}, execute: () => name});
        addEventListener('devtoolstooldiscovery', e => {
          e.respondWith({name: 'G', tools: [t('x:y'), t('x_y'), t('x.y')]});
          e.respondWith({name: 'H', tools: [t('x:y')]});
        });
        </script>",
    );
    mcp.drain_notifications(LIST_CHANGED);
    mcp.call_ok("navigate_page", json!({ "url": page }));
    let exposed: Vec<String> = tool_names(mcp)
        .into_iter()
        .filter(|n| !builtin.contains(n))
        .collect();
    assert_eq!(exposed.len(), 3, "{exposed:?}");
    let unique: HashSet<&String> = exposed.iter().collect();
    assert_eq!(unique.len(), 3, "{exposed:?}");
    let mut results: Vec<String> = exposed
        .iter()
        .map(|n| mcp.call_ok(n, json!({})).text)
        .collect();
    results.sort();
    assert_eq!(results, ["\"x.y\"", "\"x:y\"", "\"x_y\""]);
}

/// Selecting a page without tools leaves only the `builtin` tools.
fn only_the_selected_pages_tools(mcp: &Mcp, builtin: &[String]) {
    // Exposed tools are the selected page's: selecting a page without tools empties them.
    mcp.drain_notifications(LIST_CHANGED);
    mcp.call_ok("select_page", json!({"pageId": 1}));
    mcp.wait_notification(LIST_CHANGED, NOTIFIED);
    assert_eq!(tool_names(mcp), builtin);
}

#[test]
fn the_result_cap_and_the_tool_timeout_are_configurable() {
    let fx = Fixtures::start();
    let mcp = started_with(&["--maxResultBytes=1000", "--toolTimeout=1500"]);
    open(&mcp, &fx, "values.html");
    // Pretty while it fits; compact (and whole) when only the compact text fits the cap.
    let pretty = exec_ok(&mcp, "deep", Some(r#"{"depth":10}"#));
    assert!(
        pretty.starts_with("{\n  \"child\": {\n    \"child\""),
        "{pretty}"
    );
    assert_eq!(
        exec_ok(&mcp, "deep", Some(r#"{"depth":20}"#)),
        format!("{}\"bottom\"{}", "{\"child\":".repeat(20), "}".repeat(20))
    );
    let r = exec_ok(&mcp, "big_string", Some(r#"{"chars":5000}"#));
    assert_eq!(
        r,
        format!(
            "\"{}\n[Result truncated: showing the first 1000 of 5002 characters. Pass filePath to get the whole result.]",
            "x".repeat(999)
        )
    );
    // The text names the limit that ended it: the flag's, not the default 25 s.
    assert_error(
        &exec(&mcp, "never_settles", None),
        "Tool never_settles timed out after 1500 ms without settling.",
    );
    // The call's own timeout still wins.
    let slow = mcp.call(
        EXECUTE,
        json!({"toolName": "slow", "params": r#"{"ms":2000}"#, "timeout": 10000}),
    );
    assert_eq!(json_body(&slow.text), json!({"waited": 2000}));
}

#[test]
fn page_tools_are_not_mcp_tools_by_default_and_the_reference_flag_is_accepted() {
    let fx = Fixtures::start();
    for flags in [
        &[][..],
        &["--categoryExperimentalThirdParty=true"][..],
        &["--categoryExperimentalThirdParty"][..],
    ] {
        let mcp = started_with(flags);
        let before = tool_names(&mcp);
        assert!(before.iter().any(|n| n == LIST), "{flags:?}: {before:?}");
        assert!(before.iter().any(|n| n == EXECUTE), "{flags:?}: {before:?}");
        open(&mcp, &fx, "sync.html");
        assert_eq!(tool_names(&mcp), before, "{flags:?}");
        assert_eq!(
            exec_ok(&mcp, "add", Some(r#"{"a":1,"b":2}"#)),
            "3",
            "{flags:?}"
        );
    }
}
