//! `drag`: drag and drop with the mouse: press on the source, move to the target in a few steps,
//! release there. Between the moves and the release the page gets a couple of frames to take
//! in the drag start and `dragover`: the browser only drops when the target's answer to
//! `dragover` is in, and on a busy machine a fixed pause is not always enough.

use serde_json::Value;

use super::action::{said, Aim, Gesture, Input, InputCall, Target};
use super::dispatch;
use super::element::{self, Element};
use super::reach;
use super::watch::Outcome;
use crate::browser::{Flow, PageId};
use crate::error::Error;
use crate::settings::Category;
use crate::tools::args::{self, max, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::{Ctx, Done};
use crate::tools::tool::Tool;

pub(super) const TOOL: Tool = Tool {
    name: "drag",
    description: "Drag an element onto another, by uid.",
    args: args::schema::<Args>(),
    read_only: false,
    category: Category::Input,
    run,
};

tool_args! {
    struct Args {
        "from_uid" from_uid: String = {"type": "string", "maxLength": max::UID},
        "to_uid" to_uid: String = {"type": "string", "maxLength": max::UID},
        "includeSnapshot" include_snapshot: Option<bool> = {"type": "boolean"},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

/// Pointer moves between the source and the target.
const STEPS: u32 = 5;

fn run(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<Args>(cx, call, args) else {
        return;
    };
    let page = args.page;
    InputCall::new(call, args).start(cx, page);
}

impl Input for Args {
    fn aim(&self) -> Aim {
        Aim::Elements(vec![self.from_uid.clone(), self.to_uid.clone()])
    }

    fn gesture(&mut self, target: Target) -> Gesture {
        Box::new(move |cx, done| {
            let mut elements = target.elements.into_iter();
            let (Some(source), Some(onto)) = (elements.next(), elements.next()) else {
                return done(cx, Err(Error::Invalid("drag needs two elements.".into())));
            };
            let drag = Drag {
                session: target.session,
                target: onto,
                from: (0.0, 0.0),
                to: (0.0, 0.0),
                done,
            };
            reach::reach(cx, drag.session.clone(), source, drag.then(Step::AtSource));
        })
    }

    fn answer(&self, outcome: &Outcome) -> (String, bool) {
        let line = said(
            outcome,
            "Successfully dragged an element",
            "The element was dragged and it opened a dialog.",
        );
        (line, self.include_snapshot == Some(true))
    }
}

/// One drag, from the source's centre to the target's.
///
/// `done` hears of the release's answer: the browser took in the button going up. Whether
/// the page then gets a `drop` is the browser's to decide from the target's answer to
/// `dragover`, which the waits for two drawn frames are there to let in; they give up after
/// 100 ms on a page that draws nothing, so on a busy page the release can come first, and
/// the drag answer success although the page saw no `drop`.
struct Drag {
    /// The page's session, which pointer events go through.
    session: String,
    target: Element,
    /// The source's centre, where the button went down.
    from: (f64, f64),
    /// The target's centre, where it goes up.
    to: (f64, f64),
    done: Done<()>,
}

enum Step {
    /// The mouse is over the source's centre (see `reach`), at this point of the page.
    AtSource(Result<(f64, f64), Error>),
    /// The mouse moved there and the button went down.
    Pressed(Result<(), Error>),
    /// The target's centre (not hit tested: what is dragged may be over it now).
    TargetAimed(Result<(f64, f64), Error>),
    /// The mouse travelled onto the target with the button held.
    Travelled(Result<(), Error>),
    /// The page drew two frames since: it took in the drag start and the moves.
    Drawn,
    /// One more move over the target, so that its answer to `dragover` counts.
    OverTarget(Result<(), Error>),
    /// The page drew two frames since that move.
    DrawnOverTarget,
}

impl Flow<Ctx> for Drag {
    type Step = Step;

    fn next(mut self, cx: &mut Ctx, step: Step) {
        match step {
            Step::AtSource(Ok(from)) => {
                self.from = from;
                self.press(cx)
            }
            Step::Pressed(Ok(())) => {
                let target = self.target.clone();
                element::aim(cx, &target, false, self.then(Step::TargetAimed))
            }
            Step::TargetAimed(Ok(to)) => {
                self.to = to;
                self.travel(cx)
            }
            Step::TargetAimed(Err(e)) => {
                // Never leave the button held down.
                let (x, y) = self.from;
                dispatch::fire(cx, &self.session, dispatch::release(x, y, 1));
                (self.done)(cx, Err(e))
            }
            // Whether the wait for frames went well or not, the gesture goes on.
            Step::Travelled(Ok(())) => self.wait_drawn(cx, |_| Step::Drawn),
            Step::Drawn => self.move_over_target(cx),
            Step::OverTarget(Ok(())) => self.wait_drawn(cx, |_| Step::DrawnOverTarget),
            Step::DrawnOverTarget => {
                let (x, y) = self.to;
                let release = vec![dispatch::release(x, y, 1)];
                dispatch::sequence(cx, &self.session, release, self.done)
            }
            Step::AtSource(Err(e))
            | Step::Pressed(Err(e))
            | Step::Travelled(Err(e))
            | Step::OverTarget(Err(e)) => (self.done)(cx, Err(e)),
        }
    }
}

impl Drag {
    fn press(self, cx: &mut Ctx) {
        let (x, y) = self.from;
        let events = vec![dispatch::move_to(x, y), dispatch::press(x, y, 1)];
        let session = self.session.clone();
        dispatch::sequence(cx, &session, events, self.then(Step::Pressed));
    }

    /// Moves from the source to the target in [`STEPS`] moves, the button held.
    fn travel(self, cx: &mut Ctx) {
        let ((sx, sy), (tx, ty)) = (self.from, self.to);
        let moves = (1..=STEPS)
            .map(|i| {
                let f = f64::from(i) / f64::from(STEPS);
                dispatch::drag_to(sx + (tx - sx) * f, sy + (ty - sy) * f)
            })
            .collect();
        let session = self.session.clone();
        dispatch::sequence(cx, &session, moves, self.then(Step::Travelled));
    }

    fn move_over_target(self, cx: &mut Ctx) {
        let (x, y) = self.to;
        let session = self.session.clone();
        let moved = vec![dispatch::drag_to(x, y)];
        dispatch::sequence(cx, &session, moved, self.then(Step::OverTarget));
    }

    fn wait_drawn(self, cx: &mut Ctx, step: fn(Result<(), Error>) -> Step) {
        let session = self.session.clone();
        dispatch::drawn(cx, &session, self.then(step));
    }
}
