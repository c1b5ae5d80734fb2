//! `drag`: drag and drop with the mouse: press on the source, move to the target in a few steps,
//! release there. When the page starts a drag (an HTML drag and drop), the browser hands it to
//! us instead of running it (`Input.setInterceptDrags`), and we deliver its `dragenter`,
//! `dragover` and `drop` to the target ourselves, each once the page has answered the one
//! before: left to the browser, a release can overtake the page's late answer to `dragover`,
//! and a busy page then sees no `drop` although the drag was reported done. A drag the page
//! drives itself from mouse events gets the moves and the release, each taken in in turn.

use std::time::Duration;

use super::action::{self, said, Aim, Arguments, Gesture, Input, Target};
use super::dispatch;
use super::element::{self, Element};
use super::reach;
use super::watch::Outcome;
use crate::browser::{self, waiters, Flow, PageId};
use crate::cdp::generated::input::{
    DispatchDragEventParams, DispatchDragEventType, DragData, DragInterceptedEvent,
    SetInterceptDragsParams,
};
use crate::error::Error;
use crate::settings::Category;
use crate::tools::args::{self, max, tool_args};
use crate::tools::ctx::{Ctx, Done, Once};
use crate::tools::tool::Tool;

pub(super) const TOOL: Tool = Tool {
    name: "drag",
    description: "Drag an element onto another, by uid.",
    args: args::schema::<Args>(),
    read_only: false,
    category: Category::Input,
    run: action::run::<Args>,
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

/// How long the page's drag start may take to reach us once the moves are in; the call's time
/// limit ends the wait sooner. (Whether a drag started is settled earlier, see [`Drag::travel`].)
const DRAG_START: Duration = Duration::from_secs(600);

impl Arguments for Args {
    fn page(&self) -> Option<PageId> {
        self.page
    }
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
                data: DragData::default(),
                done,
            };
            // Drags the page starts are handed to us from now on, until the gesture ends.
            let intercept = SetInterceptDragsParams { enabled: true };
            let (session, on) = (drag.session.clone(), drag.session.clone());
            browser::send(cx, Some(&on), intercept, move |cx, r| match r {
                Ok(_) => reach::reach(cx, session, source, drag.then(Step::AtSource)),
                Err(e) => drag.finish(cx, Err(e)),
            });
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
/// `done` hears that the page has taken in the whole gesture: for a drag the page started, the
/// browser's answer to the `drop` (the target answered `dragover` before it was sent); else
/// the release's.
struct Drag {
    /// The page's session, which pointer events go through.
    session: String,
    target: Element,
    /// The source's centre, where the button went down.
    from: (f64, f64),
    /// The target's centre, where it goes up.
    to: (f64, f64),
    /// What the page's drag carries, once it started one.
    data: DragData,
    done: Done<()>,
}

enum Step {
    /// The mouse is over the source's centre (see `reach`), at this point of the page.
    AtSource(Result<(f64, f64), Error>),
    /// The mouse moved there and the button went down.
    Pressed(Result<(), Error>),
    /// The target's centre (not hit tested: what is dragged may be over it now).
    TargetAimed(Result<(f64, f64), Error>),
    /// The moves onto the target are in: the page started a drag with this data, or none.
    Travelled(Result<Option<DragData>, Error>),
    /// The page answered the drag entering the target, then moving over it.
    Entered(Result<(), Error>),
    Over(Result<(), Error>),
    /// The page took the drop (or, the target having refused it, the drag's end).
    Dropped(Result<(), Error>),
    /// No drag started: the page drew two frames since the moves.
    Drawn,
    /// One more move over the target, then two frames drawn.
    OverTarget(Result<(), Error>),
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
            Step::Travelled(Ok(Some(data))) => self.deliver(cx, data),
            Step::Entered(Ok(())) => {
                self.drag_event(cx, DispatchDragEventType::DragOver, Step::Over)
            }
            Step::Over(Ok(())) => self.drag_event(cx, DispatchDragEventType::Drop, Step::Dropped),
            Step::Dropped(Ok(())) => self.release(cx),
            // Whether the wait for frames went well or not, the gesture goes on.
            Step::Travelled(Ok(None)) => self.wait_drawn(cx, |_| Step::Drawn),
            Step::Drawn => self.move_over_target(cx),
            Step::OverTarget(Ok(())) => self.wait_drawn(cx, |_| Step::DrawnOverTarget),
            Step::DrawnOverTarget => self.release(cx),
            Step::AtSource(Err(e))
            | Step::Pressed(Err(e))
            | Step::TargetAimed(Err(e))
            | Step::Travelled(Err(e))
            | Step::Entered(Err(e))
            | Step::Over(Err(e))
            | Step::Dropped(Err(e))
            | Step::OverTarget(Err(e)) => {
                // Never leave the button held down.
                let (x, y) = self.from;
                dispatch::fire(cx, &self.session, dispatch::release(x, y, 1));
                self.finish(cx, Err(e))
            }
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

    /// Moves from the source to the target in [`STEPS`] moves, the button held. A drag the
    /// page starts on the way comes as `Input.dragIntercepted`; once the moves are answered
    /// and the page has drawn two frames since, one that has not come was not started (the
    /// page drives the drag itself, or cancelled it).
    fn travel(self, cx: &mut Ctx) {
        let session = self.session.clone();
        let ((sx, sy), (tx, ty)) = (self.from, self.to);
        let moves = (1..=STEPS)
            .map(|i| {
                let f = f64::from(i) / f64::from(STEPS);
                dispatch::drag_to(sx + (tx - sx) * f, sy + (ty - sy) * f)
            })
            .collect();
        let started = Once::new(self.then(Step::Travelled));
        let intercepted = started.clone();
        let message = "The page's drag did not start in time.".to_owned();
        let wait = waiters::wait(
            cx,
            &session,
            |_: &DragInterceptedEvent| true,
            DRAG_START,
            message,
            Box::new(move |cx, r: Result<DragInterceptedEvent, Error>| {
                intercepted.call(cx, r.map(|e| Some(e.data)))
            }),
        );
        let drawn_session = session.clone();
        let moved: Done<()> = Box::new(move |cx, r| {
            if let Err(e) = r {
                waiters::cancel(cx, wait);
                return started.call(cx, Err(e));
            }
            dispatch::drawn(
                cx,
                &drawn_session,
                Box::new(move |cx, _| {
                    waiters::cancel(cx, wait);
                    started.call(cx, Ok(None))
                }),
            )
        });
        dispatch::sequence(cx, &session, moves, moved);
    }

    /// The page's drag, delivered to the target: it enters, moves over it, and is dropped.
    fn deliver(mut self, cx: &mut Ctx, data: DragData) {
        self.data = data;
        self.drag_event(cx, DispatchDragEventType::DragEnter, Step::Entered)
    }

    /// Sends the next drag event; `Input.dispatchDragEvent` answers once the page has.
    fn drag_event(
        self,
        cx: &mut Ctx,
        kind: DispatchDragEventType,
        step: fn(Result<(), Error>) -> Step,
    ) {
        let (x, y) = self.to;
        let event = DispatchDragEventParams {
            r#type: kind,
            x,
            y,
            data: self.data.clone(),
            modifiers: Some(0),
        };
        let session = self.session.clone();
        browser::send(cx, Some(&session), event, move |cx, r| {
            self.next(cx, step(r.map(drop)))
        });
    }

    fn move_over_target(self, cx: &mut Ctx) {
        let (x, y) = self.to;
        let session = self.session.clone();
        let moved = vec![dispatch::drag_to(x, y)];
        dispatch::sequence(cx, &session, moved, self.then(Step::OverTarget));
    }

    /// The button goes up over the target, and the gesture is over once the page took it in.
    fn release(self, cx: &mut Ctx) {
        let (x, y) = self.to;
        let session = self.session.clone();
        let release = vec![dispatch::release(x, y, 1)];
        let done: Done<()> = Box::new(move |cx, r| self.finish(cx, r));
        dispatch::sequence(cx, &session, release, done)
    }

    fn wait_drawn(self, cx: &mut Ctx, step: fn(Result<(), Error>) -> Step) {
        let session = self.session.clone();
        dispatch::drawn(cx, &session, self.then(step));
    }

    /// Drags go back to the browser, and the call hears how the gesture went.
    fn finish(self, cx: &mut Ctx, r: Result<(), Error>) {
        let intercept = SetInterceptDragsParams { enabled: false };
        browser::fire(cx, Some(&self.session), intercept);
        (self.done)(cx, r)
    }
}
