//! Element uids from the page's latest snapshot resolved to live elements: each uid's
//! backend node resolved in the session that holds it (the page's, or an out-of-process
//! iframe's), a text line's uid standing for the element that holds the text.
//! [`Resolve::next`] is the whole story.

use super::model;
use crate::browser::{self, frames, pages, Flow, PageId};
use crate::cdp::generated::{dom, runtime};
use crate::error::Error;
use crate::tools::ctx::{Ctx, Done};

/// A live element behind a uid: its remote object, in the session of the target (page or
/// out-of-process iframe) that holds it.
pub(crate) struct Resolved {
    pub session: String,
    pub object_id: String,
}

/// Resolves element uids from the page's latest snapshot to remote object ids, in order,
/// for page code run in the main frame's session: an element of an out-of-process iframe
/// lives in another session, where that code does not run.
pub(crate) fn resolve_uids(cx: &mut Ctx, page: PageId, uids: Vec<String>, done: Done<Vec<String>>) {
    let main = pages::session_of(&cx.browser.pages, page).ok();
    let wanted = uids.clone();
    let in_main = move |cx: &mut Ctx, r: Result<Vec<Resolved>, Error>| {
        let objects = r.and_then(|els| {
            let in_main = |(uid, e): (&String, Resolved)| {
                if Some(&e.session) == main.as_ref() {
                    return Ok(e.object_id);
                }
                Err(Error::Invalid(format!("Element with uid {uid} is inside a cross-site iframe; page code runs in the main frame and cannot take it.")))
            };
            wanted.iter().zip(els).map(in_main).collect()
        });
        done(cx, objects)
    };
    resolve_elements(cx, page, uids, Box::new(in_main));
}

/// Resolves element uids from the page's latest snapshot to live elements, in order.
pub(crate) fn resolve_elements(
    cx: &mut Ctx,
    page: PageId,
    uids: Vec<String>,
    done: Done<Vec<Resolved>>,
) {
    if uids.is_empty() {
        return done(cx, Ok(Vec::new()));
    }
    if cx.browser.pages.get(page).is_none() {
        return done(cx, Err(pages::no_such_page(page)));
    }
    let Some(snap) = cx.snapshots.latest(page) else {
        return done(cx, Err(Error::Invalid(model::no_snapshot_message(page))));
    };
    let mut targets = Vec::with_capacity(uids.len());
    for uid in &uids {
        match snap.resolve(uid) {
            // A text line's uid stands for the element that holds the text.
            Ok(e) => targets.push((
                e.target_id.to_owned(),
                e.backend_node_id,
                e.role == "StaticText",
            )),
            Err(e) => return done(cx, Err(Error::Invalid(e.message(uid, page)))),
        }
    }
    let mut wanted = Vec::with_capacity(uids.len());
    for ((target, backend, text), uid) in targets.into_iter().zip(uids) {
        // A frame that is gone took its elements along.
        let session = frames::session_for_target(cx, page, &target).unwrap_or_default();
        wanted.push(Wanted {
            session,
            backend,
            text,
            uid,
        });
    }
    wanted.reverse();
    let resolve = Resolve {
        wanted,
        current: None,
        node: None,
        objects: Vec::new(),
        done,
    };
    resolve.next_element(cx)
}

/// One uid to resolve.
struct Wanted {
    /// The session that holds its element (empty: its frame is gone).
    session: String,
    backend: i64,
    /// A text node: the element that holds it is wanted.
    text: bool,
    uid: String,
}

/// The uids being resolved, one at a time.
struct Resolve {
    /// Still to resolve, the next one last.
    wanted: Vec<Wanted>,
    current: Option<Wanted>,
    /// The current uid's node, while the element holding it is asked for.
    node: Option<String>,
    objects: Vec<Resolved>,
    done: Done<Vec<Resolved>>,
}

enum Step {
    /// The node behind the current uid, as a remote object (`None`: it no longer exists).
    Node(Result<Option<String>, Error>),
    /// The element holding that text node (`None`: keep the node itself).
    Holder(Result<Option<String>, Error>),
}

/// The element that holds a text node: its parent element, or the host of the shadow root
/// it is in.
const HOLDER: &str = "function() { return this.parentElement || (this.getRootNode && this.getRootNode().host) || this; }";

impl Flow<Ctx> for Resolve {
    type Step = Step;

    fn next(mut self, cx: &mut Ctx, step: Step) {
        let Some(current) = self.current.take() else {
            return (self.done)(cx, Err(Error::Page("uid resolution lost its place".into())));
        };
        match step {
            Step::Node(Ok(Some(node))) if current.text => self.holder(cx, current, node),
            Step::Node(Ok(Some(node))) => self.resolved(cx, current, node),
            Step::Node(_) => (self.done)(cx, Err(gone(&current.uid))),
            Step::Holder(r) => {
                // The node itself, when its holder cannot be had.
                match r.ok().flatten().or(self.node.take()) {
                    Some(element) => self.resolved(cx, current, element),
                    None => (self.done)(cx, Err(gone(&current.uid))),
                }
            }
        }
    }
}

fn gone(uid: &str) -> Error {
    Error::Invalid(format!(
        "Element with uid {uid} no longer exists on the page."
    ))
}

impl Resolve {
    fn next_element(mut self, cx: &mut Ctx) {
        let Some(wanted) = self.wanted.pop() else {
            return (self.done)(cx, Ok(self.objects));
        };
        if wanted.session.is_empty() {
            return (self.done)(cx, Err(gone(&wanted.uid)));
        }
        let request = dom::ResolveNodeParams {
            backend_node_id: Some(wanted.backend),
            ..Default::default()
        };
        let session = wanted.session.clone();
        self.current = Some(wanted);
        let node =
            |r: Result<dom::ResolveNodeReturns, Error>| Step::Node(r.map(|a| a.object.object_id));
        browser::send_then(cx, Some(&session), request, self, node);
    }

    fn holder(mut self, cx: &mut Ctx, current: Wanted, node: String) {
        let parent = runtime::CallFunctionOnParams {
            object_id: Some(node.clone()),
            function_declaration: HOLDER.into(),
            ..Default::default()
        };
        let session = current.session.clone();
        self.current = Some(current);
        self.node = Some(node);
        let holder = |r: Result<runtime::CallFunctionOnReturns, Error>| {
            Step::Holder(r.map(|a| a.result.object_id))
        };
        browser::send_then(cx, Some(&session), parent, self, holder);
    }

    fn resolved(mut self, cx: &mut Ctx, current: Wanted, object_id: String) {
        self.objects.push(Resolved {
            session: current.session,
            object_id,
        });
        self.next_element(cx)
    }
}
