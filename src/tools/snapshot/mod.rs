//! `take_snapshot` and what builds on snapshots: element uids resolved to live elements,
//! and `wait_for`'s text wait.

use crate::browser::PageId;
use crate::tools::args::Schema;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};

use super::args::{max, Shared};
use super::response::{finish, Response};
use super::{fail, Tool};
use crate::settings::Category;
pub mod model;

use crate::browser::{self, frames, pages};
use crate::cdp::generated::{accessibility, dom, page as cdp_page, runtime};
use crate::cdp::Command;
use crate::error::Error;
use crate::pagetools::page_code;
use crate::tools::call;
use crate::tools::ctx::PerPage;
use crate::tools::files::{self, Roots};
use crate::tools::CallId;
use crate::tools::{Ctx, Done};
use model::{FrameTree, SnapshotInput};

pub const TOOLS: &[Tool] = &[Tool {
    name: "take_snapshot",
    description: "Text snapshot of the page's accessibility tree; each element has a uid for other tools. Prefer it to screenshots for reading a page.",
    args: Schema {
        properties: || {
        json!({
            "verbose": {"type": "boolean", "description": "All nodes, not only interesting ones"},
            "filePath": {"type": "string", "maxLength": max::PATH, "description": "Save it here"},
        })
    },
        required: &[],
    },
    // It can write a file (filePath), so, as in the reference, not read-only.
    read_only: false,
    page_scoped: true,
    category: Category::Debugging,
    run: take_snapshot,
}];

#[derive(Deserialize)]
struct SnapshotArgs {
    verbose: Option<bool>,
    #[serde(flatten)]
    shared: Shared,
}

fn take_snapshot(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = crate::tools::call::args::<SnapshotArgs>(cx, call, args) else {
        return;
    };
    let verbose = args.verbose.unwrap_or(false);
    let requested = args.shared.page();
    let file_path = args.shared.file_path;
    // A page that never answers (a dialog opened meanwhile, a renderer stuck in a loop) must
    // not hold the call forever.
    call::limit_by_default(cx, call, |ms| {
        format!("take_snapshot timed out after {ms} ms: the page did not answer.")
    });
    call::on_page(cx, call, requested, move |cx, page| {
        if super::dialogs::refuse(cx, call, page) {
            return;
        }
        capture(
            cx,
            page,
            verbose,
            Box::new(move |cx, r| {
                if let Err(e) = r {
                    return fail(cx, call, e);
                }
                let mut resp = Response::for_page(page);
                let Some(snap) = cx.snapshots.latest(page) else {
                    return fail(cx, call, "The page closed during the snapshot.");
                };
                match file_path {
                    Some(path) => {
                        match files::write_at(&Roots::of(cx), &path, snap.text.as_bytes()) {
                            Ok(_) => {
                                resp.line(model::format_saved(&path));
                            }
                            Err(f) => {
                                let could_not =
                                    |e: &std::io::Error| format!("Could not write {path}: {e}");
                                return fail(cx, call, f.text(could_not));
                            }
                        }
                    }
                    None => {
                        resp.snapshot = Some(model::format_section(snap));
                        resp.structured.insert("snapshot".into(), snap.to_json());
                    }
                }
                finish(cx, call, resp);
            }),
        );
    });
}

/// A generated command whose answer is kept as JSON: the snapshot model reads accessibility
/// trees and documents as the browser sent them.
#[derive(serde::Serialize)]
#[serde(transparent)]
pub(crate) struct AsJson<C>(pub C);

impl<C: Command> Command for AsJson<C> {
    const METHOD: &'static str = C::METHOD;
    type Returns = Value;
}

/// One frame's accessibility tree and where it came from.
struct FrameNodes {
    frame: String,
    /// The target (page or out-of-process iframe) whose session the tree came from.
    target: String,
    session: String,
    /// Its `<iframe>` in the parent frame: (parent frame id, backend node id).
    owner: Option<(String, i64)>,
    nodes: Vec<Value>,
}

/// An `<iframe>` element still to fetch the document of.
struct PendingIframe {
    /// The session and target that hold the element.
    session: String,
    target: String,
    parent_frame: String,
    backend: i64,
}

/// What one snapshot is built from, gathered over a few CDP round trips.
struct Gathered {
    page: PageId,
    verbose: bool,
    /// One accessibility tree per frame; the main frame comes first.
    frames: Vec<FrameNodes>,
    pending_iframes: Vec<PendingIframe>,
}

impl Gathered {
    /// Adds a frame's tree, and its `<iframe>` elements to fetch.
    fn add(&mut self, f: FrameNodes) {
        let iframes = model::iframe_backend_ids(&f.nodes).into_iter();
        self.pending_iframes
            .extend(iframes.map(|backend| PendingIframe {
                session: f.session.clone(),
                target: f.target.clone(),
                parent_frame: f.frame.clone(),
                backend,
            }));
        self.frames.push(f);
    }
}

/// Takes a fresh snapshot of the page and keeps it as the page's latest. Iframes are
/// included, same-process and out-of-process ones; elements a page tool returned that the
/// tree leaves out are placed under their nearest ancestor.
pub fn capture(cx: &mut Ctx, page: PageId, verbose: bool, done: Done<()>) {
    let session = match pages::session_of(&cx.browser.pages, page) {
        Ok(s) => s,
        Err(e) => return done(cx, Err(e)),
    };
    let s = session.clone();
    let request = AsJson(accessibility::GetFullAXTreeParams::default());
    browser::send(cx, Some(&s), request, move |cx, r| {
        let tree = match r {
            Ok(t) => t,
            Err(e) => return done(cx, Err(e)),
        };
        let main = match cx.browser.pages.get(page) {
            Some(p) => p.target_id.clone(),
            None => return done(cx, Err(Error::PageGone(format!("Page {page} was closed.")))),
        };
        let mut g = Gathered {
            page,
            verbose,
            frames: Vec::new(),
            pending_iframes: Vec::new(),
        };
        g.add(FrameNodes {
            frame: main.clone(),
            target: main,
            session,
            owner: None,
            nodes: take_nodes(tree),
        });
        next_iframe(cx, g, done);
    });
}

fn take_nodes(mut tree: Value) -> Vec<Value> {
    match tree["nodes"].take() {
        Value::Array(nodes) => nodes,
        _ => Vec::new(),
    }
}

/// Fetches the tree of the next `<iframe>`'s document — from the frame's own session when
/// it is out of process, else from its parent's — then goes on with the rest. A frame whose
/// tree cannot be had (gone, crashed, not attached yet) is left out.
fn next_iframe(cx: &mut Ctx, mut g: Gathered, done: Done<()>) {
    let Some(iframe) = g.pending_iframes.pop() else {
        return with_loaders(cx, g, Vec::new(), 0, done);
    };
    let describe = dom::DescribeNodeParams {
        backend_node_id: Some(iframe.backend),
        ..Default::default()
    };
    let parent_session = iframe.session.clone();
    browser::send(cx, Some(&parent_session), describe, move |cx, r| {
        let Some(frame) = r.ok().and_then(|a| a.node.frame_id) else {
            return next_iframe(cx, g, done);
        };
        let (session, target, frame_id) = match frames::frame_session(cx, g.page, &frame) {
            Some(s) => (s, frame.clone(), None),
            None => (
                iframe.session.clone(),
                iframe.target.clone(),
                Some(frame.clone()),
            ),
        };
        let request = AsJson(accessibility::GetFullAXTreeParams {
            frame_id,
            ..Default::default()
        });
        let s = session.clone();
        browser::send(cx, Some(&s), request, move |cx, r| {
            if let Ok(tree) = r {
                g.add(FrameNodes {
                    frame,
                    target,
                    session,
                    owner: Some((iframe.parent_frame, iframe.backend)),
                    nodes: take_nodes(tree),
                });
            }
            next_iframe(cx, g, done)
        });
    });
}

/// Child frames need their loader ids (part of a uid's identity): one Page.getFrameTree
/// per session the frames came from.
fn with_loaders(
    cx: &mut Ctx,
    g: Gathered,
    mut loaders: Vec<(String, String)>,
    asked: usize,
    done: Done<()>,
) {
    let mut sessions: Vec<&str> = Vec::new();
    if g.frames.len() > 1 {
        for f in &g.frames {
            if !sessions.contains(&f.session.as_str()) {
                sessions.push(&f.session);
            }
        }
    }
    let Some(session) = sessions.get(asked).map(|s| s.to_string()) else {
        return with_extras(cx, g, loaders, done);
    };
    browser::send(
        cx,
        Some(&session),
        cdp_page::GetFrameTreeParams {},
        move |cx, r| {
            if let Ok(a) = r {
                let mut stack = vec![a.frame_tree];
                while let Some(t) = stack.pop() {
                    loaders.push((t.frame.id, t.frame.loader_id));
                    stack.extend(t.child_frames.into_iter().flatten());
                }
            }
            with_loaders(cx, g, loaders, asked + 1, done)
        },
    );
}

fn with_extras(cx: &mut Ctx, g: Gathered, loaders: Vec<(String, String)>, done: Done<()>) {
    if cx.browser.pages.get(g.page).is_none() {
        let gone = Error::PageGone(format!("Page {} was closed.", g.page));
        return done(cx, Err(gone));
    }
    let extras = cx.snapshots.page(g.page).extra_elements.clone();
    let Some(session) = g.frames.first().map(|f| f.session.clone()) else {
        return done(cx, Err(Error::Page(model::EmptyTree.to_string())));
    };
    if extras.is_empty() {
        return build(cx, g, loaders, Vec::new(), done);
    }
    let request = AsJson(dom::GetDocumentParams {
        depth: Some(-1),
        pierce: Some(true),
    });
    browser::send(cx, Some(&session), request, move |cx, r| {
        let elements = match r {
            Ok(doc) => {
                let index = model::DomIndex::from_document(&doc);
                extras
                    .iter()
                    .filter_map(|b| index.extra_element(*b))
                    .collect()
            }
            Err(_) => Vec::new(),
        };
        build(cx, g, loaders, elements, done)
    });
}

fn build(
    cx: &mut Ctx,
    g: Gathered,
    loaders: Vec<(String, String)>,
    extras: Vec<model::ExtraElement>,
    done: Done<()>,
) {
    // One snapshot counter for the whole server, as the reference numbers them.
    cx.snapshots.counter += 1;
    let id = cx.snapshots.counter;
    let Some(p) = cx.browser.pages.get(g.page) else {
        return done(
            cx,
            Err(Error::PageGone(format!("Page {} was closed.", g.page))),
        );
    };
    let loader_of = |frame: &str| -> String {
        if frame == p.target_id {
            return p.loader_id.clone();
        }
        loaders
            .iter()
            .find(|(f, _)| f == frame)
            .map(|(_, l)| l.clone())
            .unwrap_or_default()
    };
    let loader_ids: Vec<String> = g.frames.iter().map(|f| loader_of(&f.frame)).collect();
    let frames: Vec<FrameTree> = g
        .frames
        .iter()
        .zip(&loader_ids)
        .map(|(f, loader)| FrameTree {
            target_id: &f.target,
            frame_id: &f.frame,
            loader_id: loader,
            nodes: &f.nodes,
            owner: f.owner.as_ref().map(|(parent, backend)| model::FrameOwner {
                frame_id: parent,
                backend_node_id: *backend,
            }),
        })
        .collect();
    let input = SnapshotInput {
        frames: &frames,
        extras: &extras,
        verbose: g.verbose,
        selected_backend_node_id: None,
    };
    let state = cx.snapshots.pages.entry(g.page);
    match model::build(&input, id, &mut state.uids) {
        Ok(s) => {
            state.latest = Some(s);
            done(cx, Ok(()))
        }
        Err(e) => done(cx, Err(Error::Page(e.to_string()))),
    }
}

/// Remembers DOM elements a page tool returned, so snapshots show them even where the
/// accessibility tree leaves them out (until the next document).
pub fn set_extra_elements(cx: &mut Ctx, page: PageId, backend_ids: Vec<i64>) {
    if cx.browser.pages.get(page).is_some() {
        cx.snapshots.page(page).extra_elements = backend_ids;
    }
}

/// What snapshots keep: per page, the latest snapshot and the uid memory that keeps uids
/// stable between snapshots of one document; the server-wide count that numbers them.
#[derive(Default)]
pub struct Snapshots {
    pages: PerPage<PageSnapshots>,
    counter: u64,
}

#[derive(Default)]
pub struct PageSnapshots {
    pub latest: Option<model::Snapshot>,
    uids: model::UidMap,
    /// DOM elements (backend ids) a page tool returned: snapshots show them (this document).
    extra_elements: Vec<i64>,
}

impl Snapshots {
    /// The page's latest snapshot, if it has one for its current document.
    pub fn latest(&self, page: PageId) -> Option<&model::Snapshot> {
        self.pages.get(page).and_then(|p| p.latest.as_ref())
    }

    fn page(&mut self, page: PageId) -> &mut PageSnapshots {
        self.pages.entry(page)
    }

    /// A new document (or a crash): its snapshot and returned elements are void. The uid
    /// memory stays: the loader id is part of its key.
    pub fn new_document(&mut self, page: PageId) {
        let p = self.pages.entry(page);
        p.latest = None;
        p.extra_elements.clear();
    }

    pub fn remove(&mut self, page: PageId) {
        self.pages.remove(page);
    }
}

/// Resolves element uids from the page's latest snapshot to remote object ids, in order,
/// for page code run in the main frame's session: an element of an out-of-process iframe
/// lives in another session, where that code does not run.
pub fn resolve_uids(cx: &mut Ctx, page: PageId, uids: Vec<String>, done: Done<Vec<String>>) {
    let main = pages::session_of(&cx.browser.pages, page).ok();
    let wanted = uids.clone();
    resolve_elements(
        cx,
        page,
        uids,
        Box::new(move |cx, r| {
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
        }),
    );
}

/// A live element behind a uid: its remote object, in the session of the target (page or
/// out-of-process iframe) that holds it.
pub struct Resolved {
    pub session: String,
    pub object_id: String,
}

/// Resolves element uids from the page's latest snapshot to live elements, in order.
pub fn resolve_elements(cx: &mut Ctx, page: PageId, uids: Vec<String>, done: Done<Vec<Resolved>>) {
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
            Ok(e) if e.role == "StaticText" => {
                targets.push((e.target_id.to_owned(), -e.backend_node_id))
            }
            Ok(e) => targets.push((e.target_id.to_owned(), e.backend_node_id)),
            Err(e) => return done(cx, Err(Error::Invalid(e.message(uid, page)))),
        }
    }
    let mut wanted = Vec::with_capacity(uids.len());
    for ((target, backend), uid) in targets.into_iter().zip(uids) {
        // A frame that is gone took its elements along.
        let session = frames::session_for_target(cx, page, &target).unwrap_or_default();
        wanted.push((session, backend, uid));
    }
    resolve_next(cx, wanted, Vec::new(), done);
}

fn resolve_next(
    cx: &mut Ctx,
    mut wanted: Vec<(String, i64, String)>,
    mut objects: Vec<Resolved>,
    done: Done<Vec<Resolved>>,
) {
    if wanted.is_empty() {
        return done(cx, Ok(objects));
    }
    // A negative id marks a text node whose parent element is wanted.
    let (session, entry, uid) = wanted.remove(0);
    let (backend, text_node) = (entry.abs(), entry < 0);
    let gone = move || {
        Error::Invalid(format!(
            "Element with uid {uid} no longer exists on the page."
        ))
    };
    if session.is_empty() {
        return done(cx, Err(gone()));
    }
    let s2 = session.clone();
    let request = dom::ResolveNodeParams {
        backend_node_id: Some(backend),
        ..Default::default()
    };
    browser::send(cx, Some(&session), request, move |cx, r| {
        let Some(id) = r.ok().and_then(|a| a.object.object_id) else {
            return done(cx, Err(gone()));
        };
        if !text_node {
            objects.push(Resolved {
                session: s2,
                object_id: id,
            });
            return resolve_next(cx, wanted, objects, done);
        }
        let parent = runtime::CallFunctionOnParams {
            object_id: Some(id.clone()),
            function_declaration: "function() { return this.parentElement || (this.getRootNode && this.getRootNode().host) || this; }".into(),
            ..Default::default()
        };
        let s3 = s2.clone();
        browser::send(cx, Some(&s2), parent, move |cx, r| {
            let object_id = r.ok().and_then(|a| a.result.object_id).unwrap_or(id);
            objects.push(Resolved {
                session: s3,
                object_id,
            });
            resolve_next(cx, wanted, objects, done)
        });
    });
}

/// `wait_for`: resolves when any of `texts` is on the page, then answers with a snapshot.
pub fn wait_for_text(
    cx: &mut Ctx,
    call: CallId,
    page: PageId,
    texts: Vec<String>,
    timeout: Duration,
) {
    let session = match pages::session_of(&cx.browser.pages, page) {
        Ok(s) => s,
        Err(e) => return fail(cx, call, e),
    };
    let list = serde_json::to_string(&texts).unwrap_or_else(|_| "[]".into());
    let ms = timeout.as_millis();
    // Text content and accessible names (aria-label, alt, title, value) both count.
    let expression = format!(
        "new Promise((resolve, reject) => {{
  const texts = {list};
  const found = () => {{
    const body = document.body ? document.body.innerText : '';
    if (texts.some(t => body.includes(t))) return true;
    for (const el of document.querySelectorAll('[aria-label],[alt],[title],input,textarea')) {{
      const names = [el.getAttribute('aria-label'), el.getAttribute('alt'), el.getAttribute('title'), el.value];
      if (names.some(n => n && texts.some(t => n.includes(t)))) return true;
    }}
    return false;
  }};
  if (found()) return resolve(true);
  const observer = new MutationObserver(() => {{ if (found()) {{ observer.disconnect(); clearTimeout(timer); resolve(true); }} }});
  observer.observe(document, {{subtree: true, childList: true, characterData: true, attributes: true}});
  const timer = setTimeout(() => {{ observer.disconnect(); reject(new Error('Timed out after waiting {ms}ms')); }}, {ms});
}})"
    );
    let texts_json = list.clone();
    let request = runtime::EvaluateParams {
        expression,
        await_promise: Some(true),
        return_by_value: Some(true),
        ..Default::default()
    };
    browser::send(cx, Some(&session), request, move |cx, r| {
        let answer = match r {
            Ok(a) => a,
            Err(e) => return fail(cx, call, page_code::page_error(e)),
        };
        if let Some(ex) = answer.exception_details {
            let msg = ex
                .exception
                .and_then(|e| e.description)
                .and_then(|d| d.lines().next().map(str::to_owned))
                .unwrap_or_else(|| "Timed out".into());
            let msg = msg.trim_start_matches("Error: ").to_owned();
            return fail(cx, call, msg);
        }
        capture(
            cx,
            page,
            false,
            Box::new(move |cx, r| {
                let mut resp = Response::for_page(page);
                resp.line(format!("Element matching one of {texts_json} found."));
                if r.is_ok() {
                    if let Some(s) = cx.snapshots.latest(page) {
                        resp.snapshot = Some(model::format_section(s));
                    }
                }
                finish(cx, call, resp);
            }),
        );
    });
}
