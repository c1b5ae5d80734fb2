//! `drag`: drag and drop with the mouse: press on the source, move to the target in a few steps,
//! release there. Between the moves and the release the page gets a couple of frames to take
//! in the drag start and `dragover`: the browser only drops when the target's answer to
//! `dragover` is in, and on a busy machine a fixed pause is not always enough.

use crate::tools::args::Schema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::element::{self, Element};
use super::{act_and_reply, begin, dispatch, elements, reach, watch};
use crate::browser;
use crate::cdp::generated::runtime;
use crate::settings::Category;
use crate::tools::args::{max, Shared};
use crate::tools::{fail, CallId, Ctx, Done, Tool};

pub const TOOL: Tool = Tool {
    name: "drag",
    description: "Drag an element onto another, by uid.",
    args: Schema {
        properties: || {
            json!({
                "from_uid": {"type": "string", "maxLength": max::UID},
                "to_uid": {"type": "string", "maxLength": max::UID},
                "includeSnapshot": {"type": "boolean"},
            })
        },
        required: &["from_uid", "to_uid"],
    },
    read_only: false,
    page_scoped: true,
    category: Category::Input,
    run,
};

#[derive(Deserialize)]
struct Args {
    #[serde(flatten)]
    shared: Shared,
    from_uid: String,
    to_uid: String,
    #[serde(rename = "includeSnapshot", default)]
    include_snapshot: bool,
}

/// Pointer moves between the source and the target.
const STEPS: u32 = 5;

fn run(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = crate::tools::call::args::<Args>(cx, call, args) else {
        return;
    };
    let uids = vec![a.from_uid, a.to_uid];
    begin(cx, call, a.shared.page(), move |cx, page| {
        elements(cx, call, page, uids, move |cx, session, els| {
            let mut els = els.into_iter();
            let (Some(source), Some(target)) = (els.next(), els.next()) else {
                return fail(cx, call, "drag needs two elements.");
            };
            let action: watch::Action =
                Box::new(move |cx, done| drag(cx, session, source, target, done));
            let texts = (
                "Successfully dragged an element".to_owned(),
                "The element was dragged and it opened a dialog.".to_owned(),
            );
            act_and_reply(cx, call, page, action, texts, a.include_snapshot);
        });
    });
}

fn drag(cx: &mut Ctx, session: String, source: Element, target: Element, done: Done<()>) {
    let s = session.clone();
    let el = source.clone();
    element::aim(
        cx,
        &source,
        true,
        Box::new(move |cx, r| match r {
            Ok(from) => {
                let s2 = s.clone();
                let then_press: Done<()> = Box::new(move |cx, r| match r {
                    Ok(()) => press(cx, s2, from, target, done),
                    Err(e) => done(cx, Err(e)),
                });
                reach::reach(cx, s, el, from, then_press)
            }
            Err(e) => done(cx, Err(e)),
        }),
    );
}

fn press(cx: &mut Ctx, session: String, from: (f64, f64), target: Element, done: Done<()>) {
    let (sx, sy) = from;
    let s = session.clone();
    dispatch::sequence(
        cx,
        &session,
        vec![dispatch::move_to(sx, sy), dispatch::press(sx, sy, 1)],
        Box::new(move |cx, r| match r {
            Ok(()) => aim_target(cx, s, from, target, done),
            Err(e) => done(cx, Err(e)),
        }),
    );
}

fn aim_target(cx: &mut Ctx, session: String, from: (f64, f64), target: Element, done: Done<()>) {
    let s = session.clone();
    element::aim(
        cx,
        &target,
        false,
        Box::new(move |cx, r| match r {
            Ok(to) => travel(cx, s, from, to, done),
            Err(e) => {
                // Never leave the button held down.
                dispatch::fire(cx, &s, dispatch::release(from.0, from.1, 1));
                done(cx, Err(e))
            }
        }),
    );
}

fn travel(cx: &mut Ctx, session: String, from: (f64, f64), to: (f64, f64), done: Done<()>) {
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
        cx,
        &session,
        moves,
        Box::new(move |cx, r| match r {
            Ok(()) => hover_then_drop(cx, s, to, done),
            Err(e) => done(cx, Err(e)),
        }),
    );
}

/// Frames, one more move over the target (its `dragover` answer now counts), frames, release.
fn hover_then_drop(cx: &mut Ctx, session: String, to: (f64, f64), done: Done<()>) {
    let (tx, ty) = to;
    let s = session.clone();
    frames(
        cx,
        &session,
        Box::new(move |cx, _| {
            let s2 = s.clone();
            dispatch::sequence(
                cx,
                &s,
                vec![dispatch::drag_to(tx, ty)],
                Box::new(move |cx, r| {
                    if let Err(e) = r {
                        return done(cx, Err(e));
                    }
                    let s3 = s2.clone();
                    frames(
                        cx,
                        &s2,
                        Box::new(move |cx, _| {
                            dispatch::sequence(cx, &s3, vec![dispatch::release(tx, ty, 1)], done)
                        }),
                    );
                }),
            );
        }),
    );
}

/// Resolves after the page rendered two frames (or 100 ms, for a page that renders none):
/// by then it has handled the input sent before.
pub(super) fn frames(cx: &mut Ctx, session: &str, done: Done<()>) {
    let expression = "new Promise(resolve => {
  requestAnimationFrame(() => requestAnimationFrame(() => resolve(true)));
  setTimeout(() => resolve(true), 100);
})";
    let params = runtime::EvaluateParams {
        expression: expression.to_owned(),
        await_promise: Some(true),
        return_by_value: Some(true),
        ..Default::default()
    };
    browser::send(cx, Some(session), params, move |cx, r| {
        done(cx, r.map(|_| ()))
    });
}
