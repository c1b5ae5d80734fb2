//! The mouse over an element of an out-of-process iframe. The browser routes a mouse event by
//! what the frames last drew, so until a frame that just loaded has drawn (late on a busy
//! machine), an event at its element's point reaches the frame around it instead: a hover is
//! lost, a click lands on the `<iframe>`. So the mouse is moved to the point until the
//! element's own frame says it is under the mouse, waiting for the frame to draw in between.

use super::dispatch;
use super::element::Element;
use crate::browser;
use crate::cdp::generated::runtime;
use crate::tools::{Ctx, Done};

/// Moves before the mouse is taken to be where the frame has drawn. Past them the action goes
/// on as it would have anyway (a page may keep an element from ever being hovered).
const MOVES: u32 = 20;

const HOVERED: &str = "function() { return this.matches(':hover'); }";

/// For an element of an out-of-process iframe, moves the mouse (through the page's `session`)
/// to `point` until the frame reports the element hovered (see above); the action's own
/// events follow. Nothing for an element of the page itself: the page's drawing is what the
/// browser routes by, and its actions cost no extra round trip.
pub fn reach(cx: &mut Ctx, session: String, el: Element, point: (f64, f64), done: Done<()>) {
    if !browser::frames::is_frame(cx, &el.session) {
        return done(cx, Ok(()));
    }
    again(cx, session, el, point, MOVES, done);
}

fn again(cx: &mut Ctx, session: String, el: Element, point: (f64, f64), left: u32, done: Done<()>) {
    let moved = vec![dispatch::move_to(point.0, point.1)];
    dispatch::sequence(
        cx,
        &session.clone(),
        moved,
        Box::new(move |cx, r| {
            if let Err(e) = r {
                return done(cx, Err(e));
            }
            let ask = runtime::CallFunctionOnParams {
                function_declaration: HOVERED.to_owned(),
                object_id: Some(el.object_id.clone()),
                return_by_value: Some(true),
                ..Default::default()
            };
            browser::send(cx, Some(&el.session.clone()), ask, move |cx, r| {
                let hovered = matches!(&r, Ok(a) if a.result.value == Some(true.into()));
                // An element that is gone is reported by the action that follows.
                if hovered || r.is_err() || left <= 1 {
                    return done(cx, Ok(()));
                }
                let frame = el.session.clone();
                super::drag::frames(
                    cx,
                    &frame,
                    Box::new(move |cx, _| again(cx, session, el, point, left - 1, done)),
                );
            });
        }),
    );
}
