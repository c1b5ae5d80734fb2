//! `--experimentalIncludeAllPages`: a background page (an extension's) or a webview (an app's)
//! is a page like any other, as in the reference; without the flag it is left to run unseen.
//! Against the scripted browser, since Chromium shows such targets only with an extension of
//! manifest version 2 or a packaged app loaded, which current builds refuse.

use crate::support::fake::Rig;
use serde_json::{json, Value};

const BACKGROUND: &str = "BACKGROUND-SESSION";

/// The pages `list_pages` answers once a background page has attached.
fn listed_after_a_background_page(args: &[&str]) -> String {
    let mut rig = Rig::started(args);
    let attached = json!({
        "sessionId": BACKGROUND,
        "targetInfo": {"targetId": "BG", "type": "background_page", "title": "Helper",
            "url": "chrome-extension://abc/background.html", "attached": true,
            "canAccessOpener": false},
        "waitingForDebugger": true,
    });
    rig.browser.event(None, "Target.attachedToTarget", attached);
    rig.deliver();
    // The page's set-up, whatever it is, answered plainly.
    for request in rig.browser.unanswered() {
        if request.session.as_deref() == Some(BACKGROUND) {
            rig.browser.answer(request.id, json!({}));
        }
    }
    rig.deliver();
    rig.call(5, "list_pages", json!({}));
    if let Some(targets) = rig.browser.pending("Target.getTargets") {
        rig.browser.answer(targets.id, json!({"targetInfos": []}));
    }
    rig.deliver();
    let out = rig.output();
    let answer: &Value = out
        .iter()
        .find(|m| m["id"] == 5)
        .expect("list_pages answered");
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn background_pages_are_pages_only_with_the_flag() {
    let with =
        listed_after_a_background_page(&["--experimentalIncludeAllPages", "--categoryExtensions"]);
    assert!(
        with.contains("2: Helper (chrome-extension://abc/background.html)"),
        "{with}"
    );
    let without = listed_after_a_background_page(&[]);
    assert!(!without.contains("background.html"), "{without}");
    assert!(without.contains("1: about:blank"), "{without}");
}
