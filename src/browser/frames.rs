//! Out-of-process (cross-site) iframes. Each page session auto-attaches to its iframe targets
//! (flat sessions, paused before their first script); the page owns the sessions of its
//! frames, nested ones included, until they detach, crash or the page goes. A frame's
//! target id is its frame id.

use std::time::{Duration, Instant};

use super::host::{Done, Flow, Host, RawEvent};
use super::pages::{auto_attach, FrameSession, Page, PageId};
use super::{fire, send};
use crate::cdp::generated::{dom, inspector, runtime, target};
use crate::error::Error;
use crate::log::log;

/// The page that owns `session`, when it is one of its frames' sessions.
pub(crate) fn page_of_frame<H: Host>(cx: &mut H, session: &str) -> Option<PageId> {
    let pages = &cx.browser().pages;
    let page = pages.iter().find(|p| frame(p, session).is_some())?;
    Some(page.id)
}

fn frame<'a>(page: &'a Page, session: &str) -> Option<&'a FrameSession> {
    page.frames.iter().find(|f| f.session == session)
}

/// The page whose session, or one of whose frames' sessions, is `session`.
fn owner<H: Host>(cx: &mut H, session: &str) -> Option<PageId> {
    let pages = &cx.browser().pages;
    let page = pages
        .iter()
        .find(|p| p.session == session || frame(p, session).is_some())?;
    Some(page.id)
}

/// Events on a page's or a frame's session that concern its child frames. Returns whether
/// the event was one of those.
pub(crate) fn on_child_event<H: Host>(cx: &mut H, session: &str, event: &RawEvent) -> bool {
    if let Some(e) = event.decode::<target::AttachedToTargetEvent>() {
        attached(cx, session, e);
    } else if let Some(e) = event.decode::<target::DetachedFromTargetEvent>() {
        detached(cx, &e.session_id);
    } else {
        return false;
    }
    true
}

/// Events on a frame's own session that change what the browser layer keeps of it.
pub(crate) fn on_frame_event<H: Host>(cx: &mut H, session: &str, event: &RawEvent) {
    if event.is::<inspector::TargetCrashedEvent>() {
        crashed(cx, session);
    }
}

fn attached<H: Host>(cx: &mut H, parent: &str, e: target::AttachedToTargetEvent) {
    let session = e.session_id;
    let resume = runtime::RunIfWaitingForDebuggerParams {};
    let page = owner(cx, parent);
    let (Some(page), "iframe") = (page, e.target_info.r#type.as_str()) else {
        // Workers and the like: let them run; we do not drive them.
        fire(cx, Some(&session), resume);
        return;
    };
    // The frame attached again before its old session said it detached: that session and
    // the frames inside it are gone now, not when (or if) their detach arrives.
    let stale = cx.browser().pages.get(page).and_then(|p| {
        let old = p
            .frames
            .iter()
            .find(|f| f.target_id == e.target_info.target_id);
        old.map(|f| f.session.clone())
    });
    if let Some(old) = stale {
        detached(cx, &old);
    }
    let Some(p) = cx.browser().pages.get_mut(page) else {
        return;
    };
    p.frames.push(FrameSession {
        target_id: e.target_info.target_id,
        session: session.clone(),
        parent_session: parent.to_owned(),
        crashed: false,
    });
    let s = Some(session.as_str());
    fire(cx, s, runtime::EnableParams {});
    auto_attach(cx, &session);
    cx.frame_attached(page, &session);
    send(cx, s, resume, move |_, r| {
        if let Err(e) = r {
            log!("frame of page {page}: {e}");
        }
    });
}

/// A frame's session is gone (the frame was removed, navigated to another process or its
/// page went): so are the sessions of the frames inside it.
fn detached<H: Host>(cx: &mut H, session: &str) {
    let Some(page) = page_of_frame(cx, session) else {
        return;
    };
    let mut gone = vec![session.to_owned()];
    let mut i = 0;
    while i < gone.len() {
        let parent = gone[i].clone();
        if let Some(p) = cx.browser().pages.get_mut(page) {
            let children = p.frames.iter().filter(|f| f.parent_session == parent);
            gone.extend(children.map(|f| f.session.clone()));
            p.frames.retain(|f| f.session != parent);
        }
        i += 1;
    }
    for s in gone {
        let err = Error::PageGone("The iframe is gone.".into());
        super::fail_session(cx, &s, err);
    }
}

fn crashed<H: Host>(cx: &mut H, session: &str) {
    let page = page_of_frame(cx, session);
    let Some(p) = page.and_then(|id| cx.browser().pages.get_mut(id)) else {
        return;
    };
    // Both the frame's session and the browser's tell of it: once is enough.
    if let Some(f) = p
        .frames
        .iter_mut()
        .find(|f| f.session == session && !f.crashed)
    {
        log!("an iframe of page {} crashed", p.id);
        f.crashed = true;
    }
    super::fail_session(cx, session, Error::Crashed);
}

/// A frame target crashed (as the browser's own session tells it).
pub(crate) fn target_crashed<H: Host>(cx: &mut H, target_id: &str) -> bool {
    let session = cx
        .browser()
        .pages
        .iter()
        .flat_map(|p| p.frames.iter())
        .find(|f| f.target_id == target_id)
        .map(|f| f.session.clone());
    match session {
        Some(s) => {
            crashed(cx, &s);
            true
        }
        None => false,
    }
}

/// Whether `session` is a frame whose renderer crashed.
pub(crate) fn is_crashed<H: Host>(cx: &mut H, session: &str) -> bool {
    let pages = &cx.browser().pages;
    pages
        .iter()
        .any(|p| frame(p, session).is_some_and(|f| f.crashed))
}

/// The session that holds `target_id`'s DOM on `page`: the page's own, or one of its
/// frames'. `None` when that frame is gone.
pub(crate) fn session_for_target<H: Host>(
    cx: &mut H,
    page: PageId,
    target_id: &str,
) -> Option<String> {
    let p = cx.browser().pages.get(page)?;
    if p.target_id == target_id {
        return Some(p.session.clone());
    }
    p.frames
        .iter()
        .find(|f| f.target_id == target_id)
        .map(|f| f.session.clone())
}

/// The session of frame `frame_id` of `page`, when it is an out-of-process frame.
pub(crate) fn frame_session<H: Host>(cx: &mut H, page: PageId, frame_id: &str) -> Option<String> {
    let p = cx.browser().pages.get(page)?;
    let f = p.frames.iter().find(|f| f.target_id == frame_id)?;
    Some(f.session.clone())
}

/// Whether `session` is one of the out-of-process iframes' (not a page's).
pub(crate) fn is_frame<H: Host>(cx: &mut H, session: &str) -> bool {
    cx.browser()
        .pages
        .iter()
        .any(|p| frame(p, session).is_some())
}

/// Where `session`'s viewport sits in the page's viewport: (0, 0) for the page's own
/// session; for a frame, the top left of its `<iframe>`'s content box in the parent, added
/// up to the page. No round trip for the page's own session. The box is read by the
/// parent frame's script, in that frame's CSS pixels, like the element's own boxes.
pub(crate) fn offset<H: Host>(cx: &mut H, session: &str, done: Done<H, (f64, f64)>) {
    let offset = Offset {
        parent: String::new(),
        boxes: Vec::new(),
        done,
    };
    offset.up(cx, session);
}

/// The walk from a frame up to the page, one `<iframe>` at a time (see [`offset`]).
struct Offset<H: Host> {
    /// The session of the frame that holds the `<iframe>` measured now.
    parent: String,
    /// The top left of each `<iframe>`'s content box in its parent, innermost first.
    boxes: Vec<(f64, f64)>,
    done: Done<H, (f64, f64)>,
}

enum OffsetStep {
    /// The `<iframe>` that holds the frame, as a node (its backend id) of its parent's
    /// document.
    Owner(Result<i64, Error>),
    /// That node as a remote object of the parent's (none: the `<iframe>` is gone).
    Resolved(Option<String>),
    /// The top left of its content box in the parent's viewport.
    Box(Result<serde_json::Value, Error>),
}

impl OffsetStep {
    fn owner(r: Result<dom::GetFrameOwnerReturns, Error>) -> OffsetStep {
        OffsetStep::Owner(r.map(|a| a.backend_node_id))
    }

    fn resolved(r: Result<dom::ResolveNodeReturns, Error>) -> OffsetStep {
        OffsetStep::Resolved(r.ok().and_then(|a| a.object.object_id))
    }

    fn measured(r: Result<runtime::CallFunctionOnReturns, Error>) -> OffsetStep {
        OffsetStep::Box(r.map(|a| a.result.value.unwrap_or_default()))
    }
}

impl<H: Host> Flow<H> for Offset<H> {
    type Step = OffsetStep;

    fn next(self, cx: &mut H, step: OffsetStep) {
        match step {
            OffsetStep::Owner(Ok(backend)) => self.resolve(cx, backend),
            OffsetStep::Resolved(Some(owner)) => self.measure(cx, owner),
            OffsetStep::Resolved(None) => {
                (self.done)(cx, Err(Error::Page("The iframe is gone.".into())))
            }
            OffsetStep::Box(Ok(value)) => self.measured(cx, value),
            OffsetStep::Owner(Err(e)) | OffsetStep::Box(Err(e)) => (self.done)(cx, Err(e)),
        }
    }
}

impl<H: Host> Offset<H> {
    /// Goes on from `session`: at the page's own session the walk is over.
    fn up(mut self, cx: &mut H, session: &str) {
        let parent = cx
            .browser()
            .pages
            .iter()
            .find_map(|p| frame(p, session))
            .map(|f| (f.target_id.clone(), f.parent_session.clone()));
        let Some((frame_id, parent)) = parent else {
            // Added up from the page inwards.
            let sum =
                (self.boxes.iter().rev()).fold((0.0, 0.0), |(ax, ay), (x, y)| (ax + x, ay + y));
            return (self.done)(cx, Ok(sum));
        };
        self.parent = parent;
        let owner = dom::GetFrameOwnerParams { frame_id };
        let parent = self.parent.clone();
        send(cx, Some(&parent), owner, self.then(OffsetStep::owner));
    }

    fn resolve(self, cx: &mut H, backend: i64) {
        let resolve = dom::ResolveNodeParams {
            backend_node_id: Some(backend),
            ..Default::default()
        };
        let parent = self.parent.clone();
        send(cx, Some(&parent), resolve, self.then(OffsetStep::resolved));
    }

    fn measure(self, cx: &mut H, owner: String) {
        let params = runtime::CallFunctionOnParams {
            function_declaration: CONTENT_BOX.to_owned(),
            object_id: Some(owner),
            return_by_value: Some(true),
            ..Default::default()
        };
        let parent = self.parent.clone();
        send(cx, Some(&parent), params, self.then(OffsetStep::measured));
    }

    /// The `<iframe>`'s box is known: on to the frame that holds it.
    fn measured(mut self, cx: &mut H, value: serde_json::Value) {
        let (x, y) = (
            value[0].as_f64().unwrap_or(0.0),
            value[1].as_f64().unwrap_or(0.0),
        );
        self.boxes.push((x, y));
        let parent = std::mem::take(&mut self.parent);
        self.up(cx, &parent);
    }
}

/// The top left of an `<iframe>`'s content box in its frame's viewport.
const CONTENT_BOX: &str = "function() {
  const r = this.getBoundingClientRect();
  const style = getComputedStyle(this);
  return [r.left + this.clientLeft + parseFloat(style.paddingLeft), r.top + this.clientTop + parseFloat(style.paddingTop)];
}";

/// Finds the innermost focused element, through same-process frames; answers it when it
/// is a frame's owner (the focus is inside that frame), else null.
const FOCUSED_FRAME: &str = "(() => {
  let a = document.activeElement;
  while (a && a.contentDocument && a.contentDocument.activeElement) a = a.contentDocument.activeElement;
  return a && (a.localName === 'iframe' || a.localName === 'frame') ? a : null;
})()";

/// Whether the page's own document has its focus inside one of its frames: its active
/// element owns a frame.
const FOCUS_IN_FRAME: &str = "(() => {
  const a = document.activeElement;
  return !!a && (a.localName === 'iframe' || a.localName === 'frame');
})()";

/// How long [`until_focus_in_frame`] waits for the page's document to see the focus move.
const FOCUS_MOVE: Duration = Duration::from_secs(1);
/// How often it asks.
const FOCUS_POLL: Duration = Duration::from_millis(5);

/// Runs `done` once the main document of `page` sees that the focus is inside one of its
/// frames, or after [`FOCUS_MOVE`] (a page script may move the focus elsewhere at will).
///
/// An element focused by a frame's own script tells the browser on a channel of its own,
/// and the browser then tells the page's main document. Keys sent before that arrived could
/// be lost: the page focus the browser gives a tab on its first key event made a main
/// document that knew no focused frame take the focus itself, and the frame dropped the
/// keys after the first.
pub(crate) fn until_focus_in_frame<H: Host>(cx: &mut H, page: PageId, done: Done<H, ()>) {
    let Some(session) = cx.browser().pages.get(page).map(|p| p.session.clone()) else {
        return done(cx, Ok(()));
    };
    let wait = FocusMove {
        session,
        until: Instant::now() + FOCUS_MOVE,
        done,
    };
    wait.ask(cx);
}

/// The wait of [`until_focus_in_frame`].
struct FocusMove<H: Host> {
    /// The page's own session.
    session: String,
    until: Instant,
    done: Done<H, ()>,
}

impl<H: Host> Flow<H> for FocusMove<H> {
    /// Whether the page's document sees the focus in a frame (an error counts as yes: the
    /// keys go out and say what became of them).
    type Step = bool;

    fn next(self, cx: &mut H, in_frame: bool) {
        if in_frame || Instant::now() >= self.until {
            return (self.done)(cx, Ok(()));
        }
        cx.after(FOCUS_POLL, move |cx| self.ask(cx));
    }
}

impl<H: Host> FocusMove<H> {
    fn ask(self, cx: &mut H) {
        let ask = runtime::EvaluateParams {
            expression: FOCUS_IN_FRAME.to_owned(),
            return_by_value: Some(true),
            ..Default::default()
        };
        let session = self.session.clone();
        send(
            cx,
            Some(&session),
            ask,
            self.then(|r: Result<runtime::EvaluateReturns, Error>| {
                r.map_or(true, |a| {
                    a.result.value != Some(serde_json::Value::Bool(false))
                })
            }),
        );
    }
}

/// Notes that an input action (a click, a fill) focused `element` (a remote object) of
/// `session`, a page's or one of its frames'.
pub(crate) fn focused<H: Host>(cx: &mut H, session: &str, element: &str) {
    let page = owner(cx, session);
    if let Some(p) = page.and_then(|id| cx.browser().pages.get_mut(id)) {
        p.focused = Some((session.to_owned(), element.to_owned()));
    }
}

/// The session whose document has the keyboard focus: the page's, or, when the focus is in
/// an out-of-process iframe, that frame's. No round trip for a page without such frames.
///
/// Key events go where the browser thinks the focus is, and a click in such a frame (sent,
/// like all pointer events, through the page) leaves the focus there only for a moment.
/// So when our last click or fill was in a frame that still lives, that element is focused
/// again from the frame's own script first. Otherwise the page is asked which frame holds
/// its focused element.
pub(crate) fn focused_session<H: Host>(cx: &mut H, page: PageId, done: Done<H, String>) {
    let Some(p) = cx.browser().pages.get(page) else {
        return done(cx, Err(Error::PageGone(format!("Page {page} was closed."))));
    };
    let main = p.session.clone();
    if p.frames.is_empty() {
        return done(cx, Ok(main));
    }
    let (session, element) = match p.focused.clone() {
        Some((s, _)) if s == main => return done(cx, Ok(main)),
        Some((s, element)) if frame(p, &s).is_some() => (s, Some(element)),
        _ => (main, None),
    };
    let focus = Focus {
        page,
        session,
        done,
    };
    match element {
        Some(element) => focus.refocus(cx, element),
        None => focus.descend(cx),
    }
}

/// The walk to the session with the keyboard focus (see [`focused_session`]).
struct Focus<H: Host> {
    page: PageId,
    /// Where the walk is: the page's session, then each frame the focus is inside.
    session: String,
    done: Done<H, String>,
}

enum FocusStep {
    /// The focused element of `session`'s document (a remote object) when it owns a frame:
    /// the focus is inside that frame.
    Found(Option<String>),
    /// That owner described: the id of the frame it holds.
    Described(Option<String>),
    /// The walk ended in a frame: that frame's focused element, a remote object.
    Active(Option<String>),
    /// The frame's element was focused again from the frame's own script.
    Refocused,
}

impl FocusStep {
    fn found(r: Result<runtime::EvaluateReturns, Error>) -> FocusStep {
        FocusStep::Found(r.ok().and_then(|a| a.result.object_id))
    }

    fn described(r: Result<dom::DescribeNodeReturns, Error>) -> FocusStep {
        FocusStep::Described(r.ok().and_then(|a| a.node.frame_id))
    }

    fn active(r: Result<runtime::EvaluateReturns, Error>) -> FocusStep {
        FocusStep::Active(r.ok().and_then(|a| a.result.object_id))
    }
}

impl<H: Host> Flow<H> for Focus<H> {
    type Step = FocusStep;

    fn next(mut self, cx: &mut H, step: FocusStep) {
        match step {
            FocusStep::Found(Some(owner)) => self.describe(cx, owner),
            FocusStep::Found(None) => self.focus_frame(cx),
            FocusStep::Described(frame) => {
                match frame.and_then(|f| frame_session(cx, self.page, &f)) {
                    Some(inner) => {
                        self.session = inner;
                        self.descend(cx)
                    }
                    None => self.focus_frame(cx),
                }
            }
            FocusStep::Active(Some(element)) => self.refocus(cx, element),
            FocusStep::Active(None) => (self.done)(cx, Ok(self.session)),
            FocusStep::Refocused => (self.done)(cx, Ok(self.session)),
        }
    }
}

const REFOCUS: &str =
    "function() { if (document.activeElement === this) this.blur(); this.focus(); }";

impl<H: Host> Focus<H> {
    /// Focuses `element` of the frame from the frame's own script (blurred first when it
    /// still has the focus, so the frame tells the browser again), then answers the frame's
    /// session.
    fn refocus(self, cx: &mut H, element: String) {
        let focus = runtime::CallFunctionOnParams {
            function_declaration: REFOCUS.to_owned(),
            object_id: Some(element),
            ..Default::default()
        };
        let session = self.session.clone();
        // An element that is gone leaves the keys to whatever has the focus in that frame.
        send(
            cx,
            Some(&session),
            focus,
            self.then(|_| FocusStep::Refocused),
        );
    }

    /// Asks `session`'s document whether its focused element owns a frame.
    fn descend(self, cx: &mut H) {
        let find = runtime::EvaluateParams {
            expression: FOCUSED_FRAME.to_owned(),
            ..Default::default()
        };
        let session = self.session.clone();
        send(cx, Some(&session), find, self.then(FocusStep::found));
    }

    fn describe(self, cx: &mut H, owner: String) {
        let describe = dom::DescribeNodeParams {
            object_id: Some(owner),
            ..Default::default()
        };
        let session = self.session.clone();
        send(
            cx,
            Some(&session),
            describe,
            self.then(FocusStep::described),
        );
    }

    /// The walk ended in `session`: a frame's is refocused (see [`focused_session`]).
    fn focus_frame(self, cx: &mut H) {
        let main = cx.browser().pages.get(self.page).map(|p| p.session.clone());
        if main.as_deref() == Some(self.session.as_str()) {
            return (self.done)(cx, Ok(self.session));
        }
        let active = runtime::EvaluateParams {
            expression: "document.activeElement".to_owned(),
            ..Default::default()
        };
        let session = self.session.clone();
        send(cx, Some(&session), active, self.then(FocusStep::active));
    }
}
