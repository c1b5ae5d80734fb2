//! `--slim` and the reference's `--category<Name>` flags on real pages in headless Chromium:
//! the three slim tools, and page tools left out with the third-party category (what the
//! flags list and refuse is in `binary/slim_and_categories.rs`).

use crate::support::calls::tool_names as names;
use crate::support::{started_with, Fixtures};
use serde_json::json;

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
    let url = crate::support::thirdparty::page_url(&fx, "sync.html");
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
        "--experimentalStructuredContent",
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
