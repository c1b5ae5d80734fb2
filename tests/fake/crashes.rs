//! A page's crash is reported twice by the browser, on the page's session
//! (`Inspector.targetCrashed`) and on its own (`Target.targetCrashed`), in either order and
//! not always together: the second report may come after the document that recovered the page
//! has committed. It is the same crash, and must not crash the new document.

use crate::support::fake::{Rig, SESSION, TARGET};
use serde_json::{json, Value};

const INSPECTOR: &str = "Inspector.targetCrashed";
const TARGET_CRASHED: &str = "Target.targetCrashed";

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

/// One report of a crash: on the page's session, or on the browser's.
fn report(rig: &mut Rig, method: &str) {
    match method {
        INSPECTOR => rig.browser.event(Some(SESSION), INSPECTOR, json!({})),
        _ => rig.browser.event(
            None,
            TARGET_CRASHED,
            json!({"targetId": TARGET, "status": "killed", "errorCode": 9}),
        ),
    }
    rig.deliver();
}

/// The main frame commits a new document, with its default execution context `context`.
fn new_document(rig: &mut Rig, context: u64) {
    let frame = json!({"frame": {"id": TARGET, "loaderId": format!("L{context}"),
        "url": "http://127.0.0.1/", "domainAndRegistry": "", "securityOrigin": "http://127.0.0.1",
        "mimeType": "text/html", "secureContextType": "Secure",
        "crossOriginIsolatedContextType": "NotIsolated", "gatedAPIFeatures": []},
        "type": "Navigation"});
    rig.browser
        .event(Some(SESSION), "Page.frameNavigated", frame);
    let created = json!({"context": {"id": context, "origin": "http://127.0.0.1", "name": "",
        "uniqueId": format!("{context}.1"),
        "auxData": {"isDefault": true, "type": "default", "frameId": TARGET}}});
    rig.browser
        .event(Some(SESSION), "Runtime.executionContextCreated", created);
    rig.deliver();
}

/// `evaluate_script` `() => n` as call `id`: run on the page (answered `n`) unless the page
/// is crashed; its answer's text either way.
fn evaluate(rig: &mut Rig, id: u64, n: u32) -> String {
    let function = format!("() => {n}");
    rig.evaluate(id, &function);
    if let Some(script) = rig.find_script_request(&function) {
        rig.script_returns(script, &n.to_string());
    }
    let out = rig.output();
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["id"], id);
    text(&out[0]).to_owned()
}

fn crashed(text: &str) -> bool {
    text.contains("The page crashed")
}

#[test]
fn the_second_report_of_a_crash_after_the_page_recovered_is_the_same_crash() {
    for (first, second) in [(INSPECTOR, TARGET_CRASHED), (TARGET_CRASHED, INSPECTOR)] {
        let mut rig = Rig::started(&[]);
        report(&mut rig, first);
        let answer = evaluate(&mut rig, 1, 1);
        assert!(crashed(&answer), "{first}: {answer}");

        new_document(&mut rig, 2);
        let answer = evaluate(&mut rig, 2, 2);
        assert!(answer.contains("```json\n2\n```"), "{first}: {answer}");

        report(&mut rig, second);
        let answer = evaluate(&mut rig, 3, 3);
        assert!(
            answer.contains("```json\n3\n```"),
            "the late report of the old crash crashed the new document ({first} first): {answer}"
        );

        // A new crash of the new document is one.
        report(&mut rig, first);
        let answer = evaluate(&mut rig, 4, 4);
        assert!(crashed(&answer), "{first}: {answer}");
    }
}

#[test]
fn both_reports_together_are_one_crash_and_the_next_crash_is_reported() {
    let mut rig = Rig::started(&[]);
    report(&mut rig, INSPECTOR);
    report(&mut rig, TARGET_CRASHED);
    assert!(crashed(&evaluate(&mut rig, 1, 1)));
    new_document(&mut rig, 2);
    assert!(evaluate(&mut rig, 2, 2).contains("```json\n2\n```"));
    // Reported first on the browser's session this time.
    report(&mut rig, TARGET_CRASHED);
    assert!(crashed(&evaluate(&mut rig, 3, 3)));
}
