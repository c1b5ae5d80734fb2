//! The mouse over an element: aimed at (its centre, hit tested), then reached across frames.
//! The browser routes a mouse event by what the frames last drew, so until an out-of-process
//! iframe that just loaded has drawn (late on a busy machine), an event at its element's
//! point reaches the frame around it instead: a hover is lost, a click lands on the
//! `<iframe>`. So for an element of such a frame the mouse is moved to the point until the
//! element's own frame says it is under the mouse, waiting for the frame to draw in between.

use super::dispatch;
use super::element::{self, Element};
use crate::browser::{self, Flow};
use crate::cdp::generated::runtime;
use crate::error::Error;
use crate::tools::ctx::{Ctx, Done};

/// Moves before the mouse is taken to be where the frame has drawn. Past them the action goes
/// on as it would have anyway (a page may keep an element from ever being hovered).
const MOVES: u32 = 20;

const HOVERED: &str = "function() { return this.matches(':hover'); }";

/// Aims at `el` (hit tested) and, for an element of an out-of-process iframe, moves the mouse
/// (through the page's `session`) to its centre until the frame reports it hovered; answers
/// the centre, in the page's viewport, for the action's own events. An element of the page
/// itself costs no extra round trip: the page's drawing is what the browser routes by.
pub(super) fn reach(cx: &mut Ctx, session: String, el: Element, done: Done<(f64, f64)>) {
    let target = el.clone();
    let reach = Reach {
        session,
        el,
        point: (0.0, 0.0),
        left: MOVES,
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
    /// Moves left before giving up on the frame's drawing.
    left: u32,
    done: Done<(f64, f64)>,
}

enum Step {
    /// The element's centre, checked to be what a pointer there reaches.
    Aimed(Result<(f64, f64), Error>),
    /// The mouse moved to the centre.
    Moved(Result<(), Error>),
    /// Whether the frame sees the element under the mouse.
    Hovered(Result<bool, Error>),
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
            Step::Moved(Ok(())) => self.ask(cx),
            Step::Hovered(hovered) => {
                // An element that is gone is reported by the action that follows.
                if hovered.unwrap_or(true) || self.left <= 1 {
                    return (self.done)(cx, Ok(self.point));
                }
                let frame = self.el.session.clone();
                // Whether the wait went well or not, the next move tells.
                dispatch::drawn(cx, &frame, self.then(|_| Step::Drawn));
            }
            Step::Drawn => {
                self.left -= 1;
                self.move_mouse(cx)
            }
            Step::Aimed(Err(e)) | Step::Moved(Err(e)) => (self.done)(cx, Err(e)),
        }
    }
}

/// Whether the frame answered that the element is hovered.
fn hovered(r: Result<runtime::CallFunctionOnReturns, Error>) -> Step {
    Step::Hovered(r.map(|a| a.result.value == Some(true.into())))
}

impl Reach {
    fn move_mouse(self, cx: &mut Ctx) {
        let (x, y) = self.point;
        let session = self.session.clone();
        let moved = vec![dispatch::move_to(x, y)];
        dispatch::sequence(cx, &session, moved, self.then(Step::Moved));
    }

    /// Asks the element's own frame whether the element is under the mouse.
    fn ask(self, cx: &mut Ctx) {
        let ask = runtime::CallFunctionOnParams {
            function_declaration: HOVERED.to_owned(),
            object_id: Some(self.el.object_id.clone()),
            return_by_value: Some(true),
            ..Default::default()
        };
        let frame = self.el.session.clone();
        browser::send(cx, Some(&frame), ask, self.then(hovered));
    }
}
