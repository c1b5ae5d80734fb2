//! The mouse over an element: aimed at (its centre, hit tested), then reached across frames.
//! The browser routes a mouse event by what the frames last drew, so until an out-of-process
//! iframe that just loaded has drawn (late on a busy machine), an event at its element's
//! point reaches the frame around it instead: a hover is lost, a click lands on the
//! `<iframe>`. So for an element of such a frame the mouse is moved to the point until the
//! element's own frame sees a move reach the element, waiting for the frame to draw in
//! between; a frame that never does fails the action, which would otherwise report an input
//! the element never saw. (`:hover` is no such sign: the headless shell does not update it
//! in out-of-process frames.)

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use super::dispatch;
use super::element::{self, Element};
use crate::browser::{self, Flow, Host};
use crate::cdp::generated::runtime;
use crate::error::Error;
use crate::tools::ctx::{Ctx, Done};

/// How long a frame may take to draw where the mouse is, from the first move: on a busy
/// machine a frame that just loaded can take seconds. Well inside the 10 s an input's page
/// has to take it in, so that the answer names what went wrong.
const DRAW_TIME: Duration = Duration::from_secs(5);

/// Resolves true at the first mouse move that reaches the element in its frame, false when
/// none has within half a second (the move sent after it went elsewhere, or is late).
const SEES_MOVE: &str = "function() {
  const el = this, doc = this.ownerDocument;
  return new Promise(resolve => {
    const seen = e => { if (e.composedPath().includes(el)) done(true); };
    const done = v => { doc.removeEventListener('mousemove', seen, true); clearTimeout(t); resolve(v); };
    const t = setTimeout(() => done(false), 500);
    doc.addEventListener('mousemove', seen, true);
  });
}";

/// Aims at `el` (hit tested) and, for an element of an out-of-process iframe, moves the mouse
/// (through the page's `session`) to its centre until the frame sees it there; answers the
/// centre, in the page's viewport, for the action's own events. An element of the page
/// itself costs no extra round trip: the page's drawing is what the browser routes by.
pub(super) fn reach(cx: &mut Ctx, session: String, el: Element, done: Done<(f64, f64)>) {
    let target = el.clone();
    let reach = Reach {
        session,
        el,
        point: (0.0, 0.0),
        expired: None,
        done,
    };
    element::aim(cx, &target, true, reach.then(Step::Aimed));
}

struct Reach {
    /// The page's session, which pointer events go through.
    session: String,
    el: Element,
    /// The element's centre in the page's viewport.
    point: (f64, f64),
    /// Set once [`DRAW_TIME`] has passed since the first move.
    expired: Option<Rc<Cell<bool>>>,
    done: Done<(f64, f64)>,
}

enum Step {
    /// The element's centre, checked to be what a pointer there reaches.
    Aimed(Result<(f64, f64), Error>),
    /// Whether the frame saw the move reach the element.
    Seen(Result<bool, Error>),
    /// The page drew two frames since.
    Drawn,
}

impl Flow<Ctx> for Reach {
    type Step = Step;

    fn next(mut self, cx: &mut Ctx, step: Step) {
        match step {
            Step::Aimed(Ok(point)) => {
                self.point = point;
                if !browser::frames::is_frame(cx, &self.el.session) {
                    return (self.done)(cx, Ok(point));
                }
                self.move_mouse(cx)
            }
            Step::Seen(seen) => {
                // An element that is gone is reported by the action that follows.
                if seen.unwrap_or(true) {
                    return (self.done)(cx, Ok(self.point));
                }
                if self.expired.as_ref().is_some_and(|e| e.get()) {
                    let why = "The mouse is over its point, but its frame never saw the mouse \
                               there (something over the frame takes the pointer, or the frame \
                               has not drawn yet).";
                    return (self.done)(cx, Err(element::failed(&self.el.uid, why)));
                }
                let frame = self.el.session.clone();
                // Whether the wait went well or not, the next move tells.
                dispatch::drawn(cx, &frame, self.then(|_| Step::Drawn));
            }
            Step::Drawn => self.move_mouse(cx),
            Step::Aimed(Err(e)) => (self.done)(cx, Err(e)),
        }
    }
}

/// Whether the frame answered that the move reached the element.
fn seen(r: Result<runtime::CallFunctionOnReturns, Error>) -> Step {
    Step::Seen(r.map(|a| a.result.value == Some(true.into())))
}

impl Reach {
    /// Has the element's frame listen for the mouse, then moves it to the element's centre.
    fn move_mouse(mut self, cx: &mut Ctx) {
        if self.expired.is_none() {
            let expired = Rc::new(Cell::new(false));
            let flag = expired.clone();
            cx.after(DRAW_TIME, move |_| flag.set(true));
            self.expired = Some(expired);
        }
        let listen = runtime::CallFunctionOnParams {
            function_declaration: SEES_MOVE.to_owned(),
            object_id: Some(self.el.object_id.clone()),
            await_promise: Some(true),
            return_by_value: Some(true),
            ..Default::default()
        };
        let (x, y) = self.point;
        let (frame, session) = (self.el.session.clone(), self.session.clone());
        browser::send(cx, Some(&frame), listen, self.then(seen));
        dispatch::fire(cx, &session, dispatch::move_to(x, y));
    }
}
