//! `list_3p_developer_tools` against the real binary and real headless Chromium: bad
//! registrations listed with their reasons, and the list text of chrome-devtools-mcp 1.11 (the
//! reference; its answers are kept in `tests/fixtures/reference/` and compared by
//! `reference_texts.rs`), also as the section that `new_page`, `navigate_page` and
//! `select_page` append (the reference appends it after `navigate_page` only).
//!
//! Pages come from `tests/fixtures/thirdparty/` (its README says what each one registers) and,
//! for one-off registrations, from inline pages on the fixture server; the helpers are in
//! `support/thirdparty.rs`.

use crate::support::thirdparty::{
    assert_not_found, exec, exec_ok, json_body, list, open, page_url, section, SECTION,
};
use crate::support::{started, started_with, Fixtures, Mcp};
use serde_json::json;

// ---------------------------------------------------------------- bad registrations

#[test]
fn invalid_registrations_are_listed_with_reasons_while_valid_tools_work() {
    let fx = Fixtures::start();
    let mcp = started_with(&["--experimentalStructuredContent"]);
    open(&mcp, &fx, "invalid.html");
    let text = list(&mcp).text;
    assert!(
        text.starts_with(
            "## Third-party developer tools\nMixed: Valid group, some invalid tools.\nAvailable tools:\n\
name=\"good_tool\", description=\"A valid tool.\", inputSchema={\"type\":\"object\",\"properties\":{}}\n\
name=\"another_good_tool\", description=\"A valid tool.\", inputSchema={\"type\":\"object\",\"properties\":{}}\n\
name=\"no_description\", description=\"\", inputSchema={\"type\":\"object\",\"properties\":{}}\n\
Empty: No tools yet.\nAvailable tools:\n"
        ),
        "{text}"
    );
    assert!(!text.contains("undefined\n"), "{text}");
    let reasons: Vec<&str> = text
        .split("Registrations that were left out:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no reasons:\n{text}"))
        .lines()
        .collect();
    assert_eq!(reasons.len(), 19, "{text}");
    for expected in [
        "respondWith() was given undefined instead of a tool group object",
        "respondWith() was given string instead of a tool group object",
        "a tool group has no name",
        "'NoTools' has no tools array (got undefined)",
        "'ToolsNotArray' has no tools array (got object)",
        "'BadDescription' has a description that is not a string",
        "tools getter exploded",
        "'no_execute' in group 'Mixed' has no execute function (got undefined)",
        "'execute_not_function' in group 'Mixed' has no execute function (got string)",
        "'no_schema' in group 'Mixed': inputSchema must be an object (got undefined)",
        "'schema_is_array' in group 'Mixed': inputSchema must be an object",
        "'schema_is_string' in group 'Mixed': inputSchema must be an object",
        "'schema_circular' in group 'Mixed': inputSchema cannot be converted to JSON",
        "'schema_bigint' in group 'Mixed': inputSchema cannot be converted to JSON",
        "'bad_description' in group 'Mixed' has a description that is not a string",
        "tools[10] in group 'Mixed' is not an object (got null)",
    ] {
        assert!(
            reasons.iter().any(|r| r.contains(expected)),
            "no reason containing {expected:?} in:\n{text}"
        );
    }
    assert!(reasons.iter().all(|r| r.starts_with("- ")), "{text}");
    // Structured: the valid groups only.
    let structured = list(&mcp).structured.unwrap_or_default();
    let groups: Vec<&str> = structured["thirdPartyDeveloperTools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|g| g["name"].as_str())
        .collect();
    assert_eq!(groups, ["Mixed", "Empty"]);

    assert_eq!(exec_ok(&mcp, "good_tool", None), "\"good_tool\"");
    assert_eq!(
        exec_ok(&mcp, "another_good_tool", None),
        "\"another_good_tool\""
    );
    assert_eq!(exec_ok(&mcp, "no_description", None), "\"fine\"");
    for left_out in ["no_execute", "schema_is_array", "lost_1", "bad_description"] {
        assert_not_found(&exec(&mcp, left_out, None), left_out);
    }
}

#[test]
fn a_schema_that_does_not_compile_is_left_out_with_its_reason() {
    let fx = Fixtures::start();
    let mcp = started();
    let page = open(&mcp, &fx, "schemas.html");
    let tools = section(&page.text);
    assert!(tools.contains("name=\"configure\""), "{tools}");
    assert!(!tools.contains("name=\"bad_type\""), "{tools}");
    assert!(!tools.contains("name=\"bad_pattern\""), "{tools}");
    for bad in ["bad_type", "bad_pattern"] {
        assert!(
            tools.lines().any(|l| l.starts_with("- ")
                && l.contains(bad)
                && l.contains("not a valid JSON Schema")),
            "no reason for {bad}:\n{tools}"
        );
        assert_not_found(&exec(&mcp, bad, None), bad);
    }
    let params = r#"{"name":"n","config":{"level":2}}"#;
    assert_eq!(
        json_body(&exec_ok(&mcp, "configure", Some(params))),
        json!({"name": "n", "config": {"level": 2}})
    );
}

#[test]
fn a_throwing_listener_does_not_stop_the_others() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "throwing.html");
    let text = list(&mcp).text;
    assert!(
        text.contains("Survivor: Registered after a throwing listener."),
        "{text}"
    );
    assert!(
        text.contains("a devtoolstooldiscovery listener threw: listener exploded"),
        "{text}"
    );
    assert!(
        text.contains("a devtoolstooldiscovery listener threw: a thrown string"),
        "{text}"
    );
    assert_eq!(exec_ok(&mcp, "survivor_tool", None), "\"alive\"");
}

#[test]
fn a_duplicate_tool_name_runs_the_first_registration_and_both_are_listed() {
    let fx = Fixtures::start();
    let mcp = started();
    open(&mcp, &fx, "duplicates.html");
    let text = list(&mcp).text;
    let first = text.find("First: Registered first.\nAvailable tools:\nname=\"get_version\", description=\"Returns \"from First\".\"");
    let second = text.find("Second: Registered second.\nAvailable tools:\nname=\"get_version\", description=\"Returns \"from Second\".\"");
    assert!(
        first.is_some() && second.is_some() && first < second,
        "{text}"
    );
    assert!(
        text.contains("\"get_version\" is registered by several groups (First, Second); the first, First, is the one that runs."),
        "{text}"
    );
    assert_eq!(exec_ok(&mcp, "get_version", None), "\"from First\"");
    assert_eq!(exec_ok(&mcp, "second_only", None), "2");
}

// ---------------------------------------------------------------- the list

#[test]
fn the_list_has_the_reference_format_and_structured_content() {
    let fx = Fixtures::start();
    let mcp = started_with(&["--experimentalStructuredContent"]);
    open(&mcp, &fx, "sync.html");
    let listed = list(&mcp);
    assert_eq!(
        listed.text,
        "## Third-party developer tools\n\
Sync: Tools answered synchronously.\n\
Available tools:\n\
name=\"add\", description=\"Adds two numbers.\", inputSchema={\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},\"b\":{\"type\":\"number\"}},\"required\":[\"a\",\"b\"]}\n\
name=\"get_status\", description=\"Returns the status text and the page title.\", inputSchema={\"type\":\"object\",\"properties\":{}}"
    );
    let structured = listed.structured.expect("structuredContent");
    assert_eq!(
        structured["thirdPartyDeveloperTools"],
        json!([{
            "name": "Sync",
            "description": "Tools answered synchronously.",
            "tools": [
                {"name": "add", "description": "Adds two numbers.", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}},
                {"name": "get_status", "description": "Returns the status text and the page title.", "inputSchema": {"type": "object", "properties": {}}},
            ],
        }])
    );

    // Shaped like Angular: no group description (never "undefined"), names with a colon,
    // an element property shown as {uid}.
    mcp.call_ok(
        "navigate_page",
        json!({"url": page_url(&fx, "angular-like.html")}),
    );
    let text = list(&mcp).text;
    assert!(
        text.starts_with(
            "## Third-party developer tools\nAngular\nAvailable tools:\n\
name=\"angular:di_graph\", description=\"Returns the dependency injection graph.\", inputSchema={\"type\":\"object\",\"properties\":{}}\n\
name=\"angular:signal_graph\", description=\"Returns the signal graph of the component that owns an element.\", \
inputSchema={\"type\":\"object\",\"properties\":{\"element\":{\"x-mcp-type\":\"HTMLElement\",\"description\":\"An element of the component.\",\
\"properties\":{\"uid\":{\"type\":\"string\"}},\"required\":[\"uid\"]}},\"required\":[\"element\"]}\n\
Prebid.js DevTools: Inspect Prebid.js auctions.\nAvailable tools:\n\
name=\"get_auctions\", description=\"Lists the auctions.\", inputSchema={\"type\":\"object\",\"properties\":{\"limit\":{\"type\":\"integer\",\"minimum\":1}}}"
        ),
        "{text}"
    );
    assert!(!text.contains("undefined"), "{text}");
    let graph = json_body(&exec_ok(&mcp, "angular:di_graph", None));
    assert_eq!(graph["injectors"][0]["name"], "Root", "{graph}");
    assert_eq!(
        json_body(&exec_ok(&mcp, "get_auctions", Some(r#"{"limit":3}"#))),
        json!({"auctions": [], "limit": 3})
    );
}

#[test]
fn the_section_follows_new_page_navigate_page_and_select_page() {
    let fx = Fixtures::start();
    let mcp = started_with(&["--experimentalStructuredContent"]);
    let sync_section = list_section_of(&mcp, &fx, "sync.html");
    assert!(sync_section.starts_with(SECTION), "{sync_section}");

    // new_page: after the pages.
    let opened = open(&mcp, &fx, "duplicates.html");
    assert!(opened.text.starts_with("## Pages\n"), "{}", opened.text);
    assert!(
        section(&opened.text).contains("First: Registered first."),
        "{}",
        opened.text
    );
    // select_page: the selected page's tools.
    let selected = mcp.call_ok("select_page", json!({"pageId": 2}));
    assert_eq!(section(&selected.text), sync_section, "{}", selected.text);
    // navigate_page.
    let nav = mcp.call_ok("navigate_page", json!({"type": "reload"}));
    assert!(
        nav.text
            .starts_with("Successfully reloaded the page.\n## Pages\n"),
        "{}",
        nav.text
    );
    assert_eq!(section(&nav.text), sync_section);
    // list_pages never runs page code, so it shows no tools.
    let pages = mcp.call_ok("list_pages", json!({}));
    assert!(!pages.text.contains(SECTION), "{}", pages.text);

    // A page without tools: nothing appended to navigation answers, and the list says so.
    for file in ["no-tools.html", "empty-listener.html"] {
        let nav = mcp.call_ok("navigate_page", json!({"url": page_url(&fx, file)}));
        assert!(!nav.text.contains(SECTION), "{file}: {}", nav.text);
        let listed = list(&mcp);
        assert_eq!(
            listed.text,
            "## Third-party developer tools\nThis page exposes no third-party developer tools.",
            "{file}"
        );
        assert_eq!(
            listed.structured.expect("structuredContent")["thirdPartyDeveloperTools"],
            json!([])
        );
    }
    let empty = mcp.call_ok("select_page", json!({"pageId": 3}));
    assert!(section(&empty.text).contains("First: "), "{}", empty.text);
}

/// The section `list_3p_developer_tools` shows for a freshly opened fixture page.
fn list_section_of(mcp: &Mcp, fx: &Fixtures, file: &str) -> String {
    open(mcp, fx, file);
    list(mcp).text
}
