//! Drag and drop with the mouse: press on the source, move to the target in a few steps,
//! release there. Between the moves and the release the page gets a couple of frames to take
//! in the drag start and `dragover`: the browser only drops when the target's answer to
//! `dragover` is in, and on a busy machine a fixed pause is not always enough.

use serde_json::json;

use super::dispatch;
use super::element::{self, Element};
use crate::app::{App, Done};
use crate::browser;

/// Pointer moves between the source and the target.
const STEPS: u32 = 5;

pub fn drag(app: &mut App, session: String, source: Element, target: Element, done: Done<()>) {
    let s = session.clone();
    element::aim(
        app,
        &session,
        &source,
        true,
        Box::new(move |app, r| match r {
            Ok(from) => press(app, s, from, target, done),
            Err(e) => done(app, Err(e)),
        }),
    );
}

fn press(app: &mut App, session: String, from: (f64, f64), target: Element, done: Done<()>) {
    let (sx, sy) = from;
    let s = session.clone();
    dispatch::sequence(
        app,
        &session,
        vec![dispatch::move_to(sx, sy), dispatch::press(sx, sy, 1)],
        Box::new(move |app, r| match r {
            Ok(()) => aim_target(app, s, from, target, done),
            Err(e) => done(app, Err(e)),
        }),
    );
}

fn aim_target(app: &mut App, session: String, from: (f64, f64), target: Element, done: Done<()>) {
    let s = session.clone();
    element::aim(
        app,
        &session,
        &target,
        false,
        Box::new(move |app, r| match r {
            Ok(to) => travel(app, s, from, to, done),
            Err(e) => {
                // Never leave the button held down.
                let (method, params) = dispatch::release(from.0, from.1, 1);
                browser::fire(app, Some(&s), method, params);
                done(app, Err(e))
            }
        }),
    );
}

fn travel(app: &mut App, session: String, from: (f64, f64), to: (f64, f64), done: Done<()>) {
    let (sx, sy) = from;
    let (tx, ty) = to;
    let moves = (1..=STEPS)
        .map(|i| {
            let f = f64::from(i) / f64::from(STEPS);
            dispatch::drag_to(sx + (tx - sx) * f, sy + (ty - sy) * f)
        })
        .collect();
    let s = session.clone();
    dispatch::sequence(
        app,
        &session,
        moves,
        Box::new(move |app, r| match r {
            Ok(()) => hover_then_drop(app, s, to, done),
            Err(e) => done(app, Err(e)),
        }),
    );
}

/// Frames, one more move over the target (its `dragover` answer now counts), frames, release.
fn hover_then_drop(app: &mut App, session: String, to: (f64, f64), done: Done<()>) {
    let (tx, ty) = to;
    let s = session.clone();
    frames(
        app,
        &session,
        Box::new(move |app, _| {
            let s2 = s.clone();
            dispatch::sequence(
                app,
                &s,
                vec![dispatch::drag_to(tx, ty)],
                Box::new(move |app, r| {
                    if let Err(e) = r {
                        return done(app, Err(e));
                    }
                    let s3 = s2.clone();
                    frames(
                        app,
                        &s2,
                        Box::new(move |app, _| {
                            dispatch::sequence(app, &s3, vec![dispatch::release(tx, ty, 1)], done)
                        }),
                    );
                }),
            );
        }),
    );
}

/// Resolves after the page rendered two frames (or 100 ms, for a page that renders none):
/// by then it has handled the input sent before.
fn frames(app: &mut App, session: &str, done: Done<()>) {
    let expression = "new Promise(resolve => {
  requestAnimationFrame(() => requestAnimationFrame(() => resolve(true)));
  setTimeout(() => resolve(true), 100);
})";
    browser::send_raw(
        app,
        Some(session),
        "Runtime.evaluate",
        json!({"expression": expression, "awaitPromise": true, "returnByValue": true}),
        Box::new(move |app, r| done(app, r.map(|_| ()))),
    );
}
