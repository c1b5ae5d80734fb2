//! Pointer input into an out-of-process iframe, against a scripted browser: the order that
//! broke `frames::hover_and_drag_reach_elements_two_frames_deep` on a loaded machine. The
//! browser answers the mouse move, but routed it by what the frames last drew, and the frame
//! had not drawn yet: the move did not reach its element. The server must move again, once
//! the frame has drawn, until the frame says a move reached the element, and only then go on;
//! a frame that never says so fails the input (`browser::frames` shows that on Chromium).

use std::time::Duration;

use crate::support::fake::{Rig, SESSION};
use crate::support::wire::Request;
use serde_json::{json, Value};

const FRAME_SESSION: &str = "F1";
const FRAME: &str = "FRAME1";

fn ax(id: &str, role: &str, name: &str, children: &[&str], backend: i64) -> Value {
    json!({"nodeId": id, "ignored": false, "role": {"type": "role", "value": role},
        "name": {"type": "computedString", "value": name}, "childIds": children,
        "backendDOMNodeId": backend})
}

fn function_of(r: &Request) -> &str {
    r.params["functionDeclaration"].as_str().unwrap_or_default()
}

/// Chromium's answer to what hovering an element in the frame asks, with the frame saying
/// a move reached the element from the `hovered_from`th time it is asked (never with 0).
fn answer(r: &Request, hovered_asks: &mut u32, hovered_from: u32) -> Value {
    let in_frame = r.session.as_deref() == Some(FRAME_SESSION);
    let value = |v: Value| json!({"result": {"type": "object", "value": v}});
    match r.method.as_str() {
        "Accessibility.getFullAXTree" if in_frame => json!({"nodes": [
            ax("1", "RootWebArea", "", &["2"], 1),
            ax("2", "button", "Drop here", &[], 7),
        ]}),
        "Accessibility.getFullAXTree" => json!({"nodes": [
            ax("1", "RootWebArea", "", &["2"], 1),
            ax("2", "Iframe", "", &[], 5),
        ]}),
        "DOM.describeNode" => json!({"node": {"nodeId": 0, "backendNodeId": 5, "nodeType": 1,
            "nodeName": "IFRAME", "localName": "iframe", "nodeValue": "", "frameId": FRAME}}),
        "DOM.resolveNode" => {
            json!({"object": {"type": "object", "objectId": format!("obj-{}", r.id)}})
        }
        "DOM.getFrameOwner" => json!({"backendNodeId": 5}),
        "Runtime.callFunctionOn" => {
            let f = function_of(r);
            if f.contains("mousemove") {
                *hovered_asks += 1;
                let seen = hovered_from > 0 && *hovered_asks >= hovered_from;
                json!({"result": {"type": "boolean", "value": seen}})
            } else if f.contains("getClientRects") {
                value(
                    json!({"quads": [[10, 10, 90, 10, 90, 40, 10, 40]], "width": 300, "height": 150}),
                )
            } else if f.contains("elementFromPoint") {
                value(json!({"ok": true}))
            } else if f.contains("paddingLeft") {
                value(json!([100, 50]))
            } else {
                value(Value::Null)
            }
        }
        "Runtime.evaluate" => json!({"result": {"type": "boolean", "value": true}}),
        _ => json!({}),
    }
}

/// Plays the browser until the call `id` is answered; gives the answer's text and every
/// request the server sent meanwhile.
fn play(rig: &mut Rig, id: u64, hovered_from: u32) -> (String, Vec<Request>) {
    let first = rig.browser.requests().len();
    let mut asks = 0;
    for _ in 0..200 {
        for r in rig.browser.unanswered() {
            if r.method == "Page.getFrameTree" {
                // Loader ids are not what this test is about.
                rig.browser.answer_error(r.id, -32000, "not scripted");
            } else {
                rig.browser
                    .answer(r.id, answer(&r, &mut asks, hovered_from));
            }
        }
        rig.deliver();
        // What an action waits out after its input (a navigation it may have started).
        rig.time_passes(Duration::from_millis(600));
        let out = rig.output();
        if let Some(a) = out.iter().find(|m| m["id"] == id) {
            let text = a["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default();
            return (text.to_owned(), rig.browser.requests()[first..].to_vec());
        }
    }
    panic!("call {id} was never answered");
}

/// A server with one page whose cross-site frame has attached, and a snapshot's uid of the
/// frame's button.
fn with_frame() -> (Rig, String) {
    let mut rig = Rig::started(&[]);
    let frame = json!({"sessionId": FRAME_SESSION, "waitingForDebugger": true,
        "targetInfo": {"targetId": FRAME, "type": "iframe", "title": "", "url": "",
            "attached": true, "canAccessOpener": false}});
    rig.browser
        .event(Some(SESSION), "Target.attachedToTarget", frame);
    rig.deliver();
    rig.call(1, "take_snapshot", json!({}));
    let (snapshot, _) = play(&mut rig, 1, 1);
    let line = snapshot
        .lines()
        .find(|l| l.contains("button \"Drop here\""))
        .unwrap_or_else(|| panic!("the frame's button is not in the snapshot: {snapshot}"));
    let uid = line.split_whitespace().next().unwrap_or_default();
    (rig, uid.trim_start_matches("uid=").to_owned())
}

/// The mouse events the server sent, as (type, x, y), in order.
fn mouse(requests: &[Request]) -> Vec<(String, f64, f64)> {
    requests
        .iter()
        .filter(|r| r.method == "Input.dispatchMouseEvent")
        .map(|r| {
            let p = &r.params;
            let n = |k: &str| p[k].as_f64().unwrap_or(f64::NAN);
            (
                p["type"].as_str().unwrap_or_default().to_owned(),
                n("x"),
                n("y"),
            )
        })
        .collect()
}

/// What the server did, in order: each mouse event by its type, each look at whether the
/// frame's element is hovered, each wait for the frame to draw.
fn order(sent: &[Request]) -> Vec<String> {
    sent.iter()
        .filter_map(|r| match r.method.as_str() {
            "Input.dispatchMouseEvent" => r.params["type"].as_str().map(str::to_owned),
            "Runtime.callFunctionOn" if function_of(r).contains("mousemove") => {
                Some("seen?".to_owned())
            }
            "Runtime.evaluate"
                if r.params["expression"]
                    .as_str()
                    .is_some_and(|e| e.contains("requestAnimationFrame")) =>
            {
                Some("drawn".to_owned())
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_hover_the_frame_did_not_see_is_moved_again_once_the_frame_has_drawn() {
    let (mut rig, uid) = with_frame();
    rig.call(2, "hover", json!({"uid": uid}));
    // The frame sees the element hovered only at the third look.
    let (text, sent) = play(&mut rig, 2, 3);
    assert!(
        text.starts_with("Successfully hovered over the element"),
        "{text}"
    );
    // Every move goes to the element's centre in its frame (50, 25), moved by the frame's
    // place in the page (100, 50).
    let moves = mouse(&sent);
    assert!(
        moves.iter().all(|m| (m.1, m.2) == (150.0, 75.0)),
        "{moves:?}"
    );
    // The frame listens for the mouse before each move.
    let expected = [
        "seen?",
        "mouseMoved",
        "drawn",
        "seen?",
        "mouseMoved",
        "drawn",
        "seen?",
        "mouseMoved",
        "mouseMoved",
    ];
    assert_eq!(order(&sent), expected);
}

#[test]
fn a_click_in_a_frame_presses_only_once_the_frame_sees_the_mouse() {
    let (mut rig, uid) = with_frame();
    rig.call(2, "click", json!({"uid": uid}));
    let (text, sent) = play(&mut rig, 2, 2);
    assert!(
        text.starts_with("Successfully clicked on the element"),
        "{text}"
    );
    let expected = [
        "seen?",
        "mouseMoved",
        "drawn",
        "seen?",
        "mouseMoved",
        "mouseMoved",
        "mousePressed",
        "mouseReleased",
    ];
    assert_eq!(order(&sent), expected);
}
