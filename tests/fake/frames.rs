//! The browser layer's book of a page's out-of-process frames, against a scripted browser:
//! a frame that attaches again before its old session detached must not leave that
//! session, or the frames inside it, behind as if they were still the page's.

use crate::support::fake::{Rig, SESSION};
use serde_json::{json, Value};

fn iframe(session: &str, target: &str) -> Value {
    json!({"sessionId": session, "waitingForDebugger": true,
        "targetInfo": {"targetId": target, "type": "iframe", "title": "", "url": "",
            "attached": true, "canAccessOpener": false}})
}

/// The methods the server sent on `session`, in order.
fn sent_on(rig: &Rig, session: &str) -> Vec<String> {
    let requests = rig.browser.requests();
    let on = requests
        .iter()
        .filter(|r| r.session.as_deref() == Some(session));
    on.map(|r| r.method.clone()).collect()
}

#[test]
fn a_frame_attached_again_drops_its_old_session_and_the_frames_inside_it() {
    let mut rig = Rig::started(&[]);
    // The page's frame F1 holds a frame F2 of its own.
    let b = &rig.browser;
    b.event(
        Some(SESSION),
        "Target.attachedToTarget",
        iframe("F1", "FRAME1"),
    );
    b.event(
        Some("F1"),
        "Target.attachedToTarget",
        iframe("F2", "FRAME2"),
    );
    rig.deliver();
    // A frame inside a frame of the page is driven: enabled, attached to its own frames.
    assert!(sent_on(&rig, "F2").contains(&"Runtime.enable".to_owned()));
    // FRAME1 attaches again (a new session) before F1's detach arrives.
    let b = &rig.browser;
    b.event(
        Some(SESSION),
        "Target.attachedToTarget",
        iframe("F1b", "FRAME1"),
    );
    // A frame that attaches under the old F2 belongs to no page of ours any more: it is let
    // run, not driven.
    b.event(
        Some("F2"),
        "Target.attachedToTarget",
        iframe("F3", "FRAME3"),
    );
    rig.deliver();
    assert_eq!(sent_on(&rig, "F3"), ["Runtime.runIfWaitingForDebugger"]);
    assert!(sent_on(&rig, "F1b").contains(&"Runtime.enable".to_owned()));
}
