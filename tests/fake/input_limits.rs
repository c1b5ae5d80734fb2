//! Arguments over their bounds, against a scripted browser: a refusal does no work (nothing is
//! sent to the browser), shown without a stopwatch a loaded machine can stop. What the same
//! refusals answer on a real page is in `browser/input/limits.rs`.

use crate::support::fake::Rig;
use serde_json::json;

/// Each refused call of `browser/input/limits.rs` is answered as soon as its line is read, with no word to
/// the browser: its answer is out before the scripted browser is heard again, and the
/// browser has received nothing since its page was set up.
#[test]
fn refusals_are_answered_without_a_word_to_the_browser() {
    // A call that starts the browser, so the refusals meet one that is up.
    let mut rig = Rig::started(&["--experimentalVision"]);
    let before = rig.browser.requests().len();
    let huge = "x".repeat(1_100_000);
    let refusals = [
        ("type_text", json!({"text": "a".repeat((1 << 20) + 1)})),
        ("click_at", json!({"x": 1e39, "y": 10})),
        ("click_at", json!({"x": 10, "y": -1e39})),
        ("resize_page", json!({"width": 100_000, "height": 600})),
        ("resize_page", json!({"width": 800, "height": 16_385})),
        ("list_console_messages", json!({"serviceWorkerId": huge})),
        ("list_console_messages", json!({"types": [huge]})),
        (
            "list_console_messages",
            json!({"types": vec!["nope"; 100_000]}),
        ),
    ];
    for (id, (tool, args)) in (1..).zip(refusals) {
        rig.call(id, tool, args);
        let out = rig.output();
        assert_eq!(out.len(), 1, "{tool}: {out:?}");
        assert_eq!(out[0]["id"], id);
        let text = out[0]["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(
            text.contains("Input validation error"),
            "{tool}: {text:.500}"
        );
    }
    let sent: Vec<String> = rig.browser.requests()[before..]
        .iter()
        .map(|r| r.method.clone())
        .collect();
    assert!(sent.is_empty(), "sent to the browser: {sent:?}");
}
