//! An input tool's call, from its page to its answer: [`InputCall::next`] is the whole story,
//! the same for every input tool. What differs is the tool's [`Input`]: what it aims at, the
//! gesture it sends there (a flow of the tool's own), and what its answer says.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::element::{self, Element};
use super::reply;
use super::watch::{self, Outcome, Progress};
use crate::browser::{frames, pages, Flow, PageId};
use crate::error::Error;
use crate::tools::call::{self, CallId};
use crate::tools::ctx::{Ctx, Done};
use crate::tools::response::{self, Response};
use crate::tools::{dialogs, snapshot};

/// What an input is aimed at, found before it is sent.
pub(super) enum Aim {
    /// The page: its own session takes the events (a point of the viewport, or elements
    /// the input finds as it goes).
    Page,
    /// The elements of these uids of the page's latest snapshot, resolved first.
    Elements(Vec<String>),
    /// Whatever has the keyboard focus: key events go to that document's session.
    Focus,
}

/// Where an input goes, once found.
pub(super) struct Target {
    pub page: PageId,
    /// The session its events go through: the page's (pointer events reach frames through
    /// it too), or for keys the session whose document has the focus.
    pub session: String,
    /// The elements of [`Aim::Elements`], in order.
    pub elements: Vec<Element>,
}

/// The gesture an input sends at its target: started once the page is watched, it calls
/// its continuation when the page has taken in all of its events.
pub(super) type Gesture = Box<dyn FnOnce(&mut Ctx, Done<()>)>;

/// An input tool, as [`InputCall`] runs it.
pub(super) trait Input: 'static {
    /// What the input is aimed at.
    fn aim(&self) -> Aim;
    /// The gesture to send at `target`.
    fn gesture(&mut self, target: Target) -> Gesture;
    /// The answer's line for what the input caused, and whether a snapshot may follow it.
    fn answer(&self, outcome: &Outcome) -> (String, bool);
    /// The call's error, in the input's terms (how much of a text was typed).
    fn error(&self, e: Error) -> Error {
        e
    }
    /// Whether to wait, briefly, for the navigation or DOM change the input caused.
    fn settles(&self) -> bool {
        true
    }
    /// How far a long gesture has got (see [`Progress`]).
    fn progress(&self) -> Progress {
        Progress::default()
    }
}

/// An input tool whose arguments are its [`Input`] as they stand (click, hover, drag…).
pub(super) trait Arguments: Input + DeserializeOwned {
    /// The page the call names (`pageId`), if any.
    fn page(&self) -> Option<PageId>;
}

/// The `run` of a tool whose arguments are its input: parsed, then run as an [`InputCall`].
pub(super) fn run<A: Arguments>(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<A>(cx, call, args) else {
        return;
    };
    let page = args.page();
    InputCall::new(call, args).start(cx, page);
}

/// The line for an input whose answer says either `done`, when its events went through, or
/// `interrupted`, when a dialog opened before they did.
pub(super) fn said(outcome: &Outcome, done: &str, interrupted: &str) -> String {
    if outcome.dialog && !outcome.completed {
        interrupted.to_owned()
    } else {
        done.to_owned()
    }
}

/// An input tool's call: the page, its target, the gesture watched, the answer.
pub(super) struct InputCall<I> {
    call: CallId,
    input: I,
    page: PageId,
    /// The answer, while a snapshot for it is taken.
    response: Option<Response>,
}

pub(super) enum Step {
    /// The page the input goes to (the browser started, a page opened if there was none).
    Page(Result<PageId, Error>),
    /// The elements the input is aimed at, resolved from their uids.
    Resolved(Result<Vec<Element>, Error>),
    /// The session whose document has the keyboard focus.
    Focused(Result<String, Error>),
    /// The gesture was sent, and what it set off is over (or a dialog opened).
    Watched(Result<Outcome, Error>),
    /// A snapshot for the answer was taken.
    Snapshotted(Result<(), Error>),
}

impl<I: Input> InputCall<I> {
    pub(super) fn new(call: CallId, input: I) -> InputCall<I> {
        InputCall {
            call,
            input,
            page: PageId::NONE,
            response: None,
        }
    }

    /// Starts the call on page `requested` (the selected page when `None`), within the
    /// server's time limit for calls.
    pub(super) fn start(self, cx: &mut Ctx, requested: Option<PageId>) {
        call::limit_by_default(cx, self.call, |ms| {
            format!("The input action did not finish within {ms} ms.")
        });
        let call = self.call;
        call::page(cx, call, requested, self.then(Step::Page));
    }
}

impl<I: Input> Flow<Ctx> for InputCall<I> {
    type Step = Step;

    fn next(self, cx: &mut Ctx, step: Step) {
        match step {
            Step::Page(Ok(page)) => self.find_target(cx, page),
            Step::Resolved(Ok(elements)) => self.at_elements(cx, elements),
            Step::Focused(Ok(session)) => self.act(cx, session, Vec::new()),
            Step::Watched(Ok(outcome)) => self.reply(cx, outcome),
            Step::Snapshotted(Ok(())) => self.finish(cx),
            Step::Page(Err(e))
            | Step::Resolved(Err(e))
            | Step::Focused(Err(e))
            | Step::Watched(Err(e))
            | Step::Snapshotted(Err(e)) => self.fail(cx, e),
        }
    }
}

impl<I: Input> InputCall<I> {
    /// An open dialog refuses the input (the page would not take it anyway); otherwise its
    /// target is found.
    fn find_target(mut self, cx: &mut Ctx, page: PageId) {
        self.page = page;
        if dialogs::refuse(cx, self.call, page) {
            return;
        }
        match self.input.aim() {
            Aim::Page => match pages::session_of(&cx.browser.pages, page) {
                Ok(session) => self.act(cx, session, Vec::new()),
                Err(e) => self.fail(cx, e),
            },
            Aim::Elements(uids) => element::resolve(cx, page, uids, self.then(Step::Resolved)),
            Aim::Focus => frames::focused_session(cx, page, self.then(Step::Focused)),
        }
    }

    /// The elements' events go through the page's session (pointer events reach its frames
    /// through it too).
    fn at_elements(self, cx: &mut Ctx, elements: Vec<Element>) {
        match pages::session_of(&cx.browser.pages, self.page) {
            Ok(session) => self.act(cx, session, elements),
            Err(e) => self.fail(cx, e),
        }
    }

    /// Watches the page, then sends the gesture.
    fn act(mut self, cx: &mut Ctx, session: String, elements: Vec<Element>) {
        let (call, page) = (self.call, self.page);
        let target = Target {
            page,
            session,
            elements,
        };
        let gesture = self.input.gesture(target);
        let (settles, progress) = (self.input.settles(), self.input.progress());
        match watch::start(cx, page, settles, progress, self.then(Step::Watched)) {
            Ok(taken_in) => gesture(cx, taken_in),
            Err(e) => call::fail(cx, call, e),
        }
    }

    /// The answer: the input's line and what it caused, and a fresh snapshot when asked for
    /// and the page can give one (not while a dialog blocks it).
    fn reply(mut self, cx: &mut Ctx, outcome: Outcome) {
        let (line, with_snapshot) = self.input.answer(&outcome);
        let response = reply::response(cx, self.page, line, outcome);
        if !with_snapshot || reply::blocked(cx, self.page) {
            return response::finish(cx, self.call, response);
        }
        self.response = Some(response);
        snapshot::capture(cx, self.page, false, self.then(Step::Snapshotted));
    }

    fn fail(self, cx: &mut Ctx, e: Error) {
        let e = self.input.error(e);
        call::fail(cx, self.call, e)
    }

    fn finish(mut self, cx: &mut Ctx) {
        let Some(mut response) = self.response.take() else {
            // Only a step out of order could get here; the call still gets its answer.
            let lost = "The input's answer was lost while its snapshot was taken.";
            return call::fail(cx, self.call, lost);
        };
        if let Some(s) = cx.snapshots.latest(self.page) {
            response.snapshot = Some(snapshot::model::format_section(s));
        }
        response::finish(cx, self.call, response);
    }
}
