//! `take_snapshot` and what builds on snapshots: element uids resolved to live elements,
//! and `wait_for`'s text wait.

use std::time::Duration;

use serde_json::{json, Value};

use super::response::{finish, Response};
use super::{fail, page_arg, Tool};
use crate::app::{App, Done};
use crate::browser::snapshot::{self, FrameTree, SnapshotInput};
use crate::browser::{self, pages};
use crate::error::Error;
use crate::mcp::server;

pub const TOOLS: &[Tool] = &[Tool {
    name: "take_snapshot",
    description: "Take a text snapshot of the page's accessibility tree. Each element has a uid that other tools (click, fill, evaluate_script args, page tools taking elements) use to target it. Prefer this over screenshots to read a page.",
    properties: || {
        json!({
            "verbose": {"type": "boolean", "description": "Include every node of the accessibility tree, not only the interesting ones (default false)."},
            "filePath": {"type": "string", "description": "Write the snapshot to this file instead of returning it inline."},
        })
    },
    required: &[],
    // It can write a file (filePath), so, as in the reference, not read-only.
    read_only: false,
    page_scoped: true,
    run: take_snapshot,
}];

fn take_snapshot(app: &mut App, call: u64, args: Value) {
    let verbose = args["verbose"].as_bool().unwrap_or(false);
    let file_path = args["filePath"].as_str().map(str::to_owned);
    // A page that never answers (a dialog opened meanwhile, a renderer stuck in a loop) must
    // not hold the call forever.
    server::limit_by_default(app, call, |ms| {
        format!("take_snapshot timed out after {ms} ms: the page did not answer.")
    });
    super::on_page(app, call, page_arg(&args), move |app, page| {
        if super::refuse_if_dialog(app, call, page) {
            return;
        }
        capture(
            app,
            page,
            verbose,
            Box::new(move |app, r| {
                if let Err(e) = r {
                    return fail(app, call, e);
                }
                let mut resp = Response::for_page(page);
                let Some(snap) = app
                    .browser
                    .pages
                    .get(page)
                    .and_then(|p| p.snapshot.as_ref())
                else {
                    return fail(app, call, "The page closed during the snapshot.");
                };
                match file_path {
                    Some(path) => match std::fs::write(&path, &snap.text) {
                        Ok(()) => {
                            resp.line(snapshot::format_saved(&path));
                        }
                        Err(e) => return fail(app, call, format!("Could not write {path}: {e}")),
                    },
                    None => {
                        resp.snapshot = Some(snapshot::format_section(snap));
                        resp.structured.insert("snapshot".into(), snap.to_json());
                    }
                }
                finish(app, call, resp);
            }),
        );
    });
}

/// One frame's tree: its id, its owner `<iframe>` (parent frame id, backend node id), nodes.
type FrameNodes = (String, Option<(String, i64)>, Vec<Value>);

/// What one snapshot is built from, gathered over a few CDP round trips.
struct Gathered {
    page: u32,
    session: String,
    verbose: bool,
    /// One accessibility tree per frame: (frame id, owner `<iframe>` in its parent frame
    /// as (parent frame id, backend node id), nodes). The main frame comes first.
    frames: Vec<FrameNodes>,
    /// `<iframe>` elements still to fetch: (parent frame id, backend node id).
    pending_iframes: Vec<(String, i64)>,
}

/// Takes a fresh snapshot of the page and keeps it as the page's latest. Same-process
/// iframes are included; elements a page tool returned that the tree leaves out are placed
/// under their nearest ancestor.
pub fn capture(app: &mut App, page: u32, verbose: bool, done: Done<()>) {
    let session = match pages::session_of(app, page) {
        Ok(s) => s,
        Err(e) => return done(app, Err(e)),
    };
    let s = session.clone();
    browser::send_raw(
        app,
        Some(&s),
        "Accessibility.getFullAXTree",
        json!({}),
        Box::new(move |app, r| {
            let tree = match r {
                Ok(t) => t,
                Err(e) => return done(app, Err(e)),
            };
            let nodes = take_nodes(tree);
            let main = match app.browser.pages.get(page) {
                Some(p) => p.target_id.clone(),
                None => {
                    return done(
                        app,
                        Err(Error::PageGone(format!("Page {page} was closed."))),
                    )
                }
            };
            let pending_iframes = snapshot::iframe_backend_ids(&nodes)
                .into_iter()
                .map(|b| (main.clone(), b))
                .collect();
            let g = Gathered {
                page,
                session,
                verbose,
                frames: vec![(main, None, nodes)],
                pending_iframes,
            };
            next_iframe(app, g, done);
        }),
    );
}

fn take_nodes(mut tree: Value) -> Vec<Value> {
    match tree["nodes"].take() {
        Value::Array(nodes) => nodes,
        _ => Vec::new(),
    }
}

/// Fetches the tree of the next `<iframe>`'s document (an out-of-process frame has no tree
/// on this session and is left out), then goes on with the rest.
fn next_iframe(app: &mut App, mut g: Gathered, done: Done<()>) {
    let Some((parent, backend)) = g.pending_iframes.pop() else {
        return with_loaders(app, g, done);
    };
    let session = g.session.clone();
    browser::send_raw(
        app,
        Some(&session),
        "DOM.describeNode",
        json!({"backendNodeId": backend}),
        Box::new(move |app, r| {
            let frame = r
                .ok()
                .and_then(|v| v["node"]["frameId"].as_str().map(str::to_owned));
            let Some(frame) = frame else {
                return next_iframe(app, g, done);
            };
            let s2 = g.session.clone();
            browser::send_raw(
                app,
                Some(&s2),
                "Accessibility.getFullAXTree",
                json!({"frameId": frame}),
                Box::new(move |app, r| {
                    if let Ok(tree) = r {
                        let nodes = take_nodes(tree);
                        g.pending_iframes.extend(
                            snapshot::iframe_backend_ids(&nodes)
                                .into_iter()
                                .map(|b| (frame.clone(), b)),
                        );
                        g.frames.push((frame, Some((parent, backend)), nodes));
                    }
                    next_iframe(app, g, done)
                }),
            );
        }),
    );
}

/// Child frames need their loader ids (part of a uid's identity): one Page.getFrameTree.
fn with_loaders(app: &mut App, g: Gathered, done: Done<()>) {
    if g.frames.len() == 1 {
        return with_extras(app, g, Vec::new(), done);
    }
    let session = g.session.clone();
    browser::send_raw(
        app,
        Some(&session),
        "Page.getFrameTree",
        json!({}),
        Box::new(move |app, r| {
            let mut loaders = Vec::new();
            if let Ok(v) = r {
                let mut stack = vec![&v["frameTree"]];
                while let Some(t) = stack.pop() {
                    if let (Some(id), Some(loader)) =
                        (t["frame"]["id"].as_str(), t["frame"]["loaderId"].as_str())
                    {
                        loaders.push((id.to_owned(), loader.to_owned()));
                    }
                    stack.extend(t["childFrames"].as_array().into_iter().flatten());
                }
            }
            with_extras(app, g, loaders, done)
        }),
    );
}

fn with_extras(app: &mut App, g: Gathered, loaders: Vec<(String, String)>, done: Done<()>) {
    let extras = match app.browser.pages.get(g.page) {
        Some(p) => p.extra_elements.clone(),
        None => {
            return done(
                app,
                Err(Error::PageGone(format!("Page {} was closed.", g.page))),
            )
        }
    };
    if extras.is_empty() {
        return build(app, g, loaders, Vec::new(), done);
    }
    let session = g.session.clone();
    browser::send_raw(
        app,
        Some(&session),
        "DOM.getDocument",
        json!({"depth": -1, "pierce": true}),
        Box::new(move |app, r| {
            let elements = match r {
                Ok(doc) => {
                    let index = snapshot::DomIndex::from_document(&doc);
                    extras
                        .iter()
                        .filter_map(|b| index.extra_element(*b))
                        .collect()
                }
                Err(_) => Vec::new(),
            };
            build(app, g, loaders, elements, done)
        }),
    );
}

fn build(
    app: &mut App,
    g: Gathered,
    loaders: Vec<(String, String)>,
    extras: Vec<snapshot::ExtraElement>,
    done: Done<()>,
) {
    // One snapshot counter for the whole server, as the reference numbers them.
    app.browser.pages.snapshot_counter += 1;
    let id = app.browser.pages.snapshot_counter;
    let Some(p) = app.browser.pages.get_mut(g.page) else {
        return done(
            app,
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
    let loader_ids: Vec<String> = g.frames.iter().map(|(f, _, _)| loader_of(f)).collect();
    let frames: Vec<FrameTree> = g
        .frames
        .iter()
        .zip(&loader_ids)
        .map(|((frame, owner, nodes), loader)| FrameTree {
            target_id: &p.target_id,
            frame_id: frame,
            loader_id: loader,
            nodes,
            owner: owner
                .as_ref()
                .map(|(parent, backend)| snapshot::FrameOwner {
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
    match snapshot::build(&input, id, &mut p.uids) {
        Ok(s) => {
            p.snapshot = Some(s);
            done(app, Ok(()))
        }
        Err(e) => done(app, Err(Error::Page(e.to_string()))),
    }
}

/// Remembers DOM elements a page tool returned, so snapshots show them even where the
/// accessibility tree leaves them out (until the next document).
pub fn set_extra_elements(app: &mut App, page: u32, backend_ids: Vec<i64>) {
    if let Some(p) = app.browser.pages.get_mut(page) {
        p.extra_elements = backend_ids;
    }
}

/// Resolves element uids from the page's latest snapshot to remote object ids, in order.
pub fn resolve_uids(app: &mut App, page: u32, uids: Vec<String>, done: Done<Vec<String>>) {
    if uids.is_empty() {
        return done(app, Ok(Vec::new()));
    }
    let Some(p) = app.browser.pages.get(page) else {
        return done(app, Err(pages::no_such_page(page)));
    };
    let Some(snap) = &p.snapshot else {
        return done(
            app,
            Err(Error::Invalid(snapshot::no_snapshot_message(page))),
        );
    };
    let mut backend_ids = Vec::with_capacity(uids.len());
    for uid in &uids {
        match snap.resolve(uid) {
            // A text line's uid stands for the element that holds the text.
            Ok(e) if e.role == "StaticText" => backend_ids.push(-e.backend_node_id),
            Ok(e) => backend_ids.push(e.backend_node_id),
            Err(e) => return done(app, Err(Error::Invalid(e.message(uid, page)))),
        }
    }
    let session = p.session.clone();
    resolve_next(app, session, backend_ids, uids, Vec::new(), done);
}

fn resolve_next(
    app: &mut App,
    session: String,
    mut backend_ids: Vec<i64>,
    mut uids: Vec<String>,
    mut objects: Vec<String>,
    done: Done<Vec<String>>,
) {
    if backend_ids.is_empty() {
        return done(app, Ok(objects));
    }
    // A negative id marks a text node whose parent element is wanted.
    let entry = backend_ids.remove(0);
    let (backend, text_node) = (entry.abs(), entry < 0);
    let uid = uids.remove(0);
    let gone = move || {
        Error::Invalid(format!(
            "Element with uid {uid} no longer exists on the page."
        ))
    };
    let s2 = session.clone();
    browser::send_raw(
        app,
        Some(&session),
        "DOM.resolveNode",
        json!({"backendNodeId": backend}),
        Box::new(move |app, r| {
            let Some(id) = r.ok().and_then(|v| object_id(&v["object"])) else {
                return done(app, Err(gone()));
            };
            if !text_node {
                objects.push(id);
                return resolve_next(app, s2, backend_ids, uids, objects, done);
            }
            let s3 = s2.clone();
            browser::send_raw(
                app,
                Some(&s2),
                "Runtime.callFunctionOn",
                json!({
                    "objectId": id,
                    "functionDeclaration": "function() { return this.parentElement || (this.getRootNode && this.getRootNode().host) || this; }",
                }),
                Box::new(move |app, r| {
                    objects.push(r.ok().and_then(|v| object_id(&v["result"])).unwrap_or(id));
                    resolve_next(app, s3, backend_ids, uids, objects, done)
                }),
            );
        }),
    );
}

fn object_id(remote_object: &Value) -> Option<String> {
    remote_object["objectId"].as_str().map(str::to_owned)
}

/// `wait_for`: resolves when any of `texts` is on the page, then answers with a snapshot.
pub fn wait_for_text(app: &mut App, call: u64, page: u32, texts: Vec<String>, timeout: Duration) {
    let session = match pages::session_of(app, page) {
        Ok(s) => s,
        Err(e) => return fail(app, call, e),
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
    browser::send_raw(
        app,
        Some(&session),
        "Runtime.evaluate",
        json!({"expression": expression, "awaitPromise": true, "returnByValue": true}),
        Box::new(move |app, r| {
            let v = match r {
                Ok(v) => v,
                Err(e) => return fail(app, call, super::script::page_error(e)),
            };
            if let Some(ex) = v.get("exceptionDetails") {
                let msg = ex["exception"]["description"]
                    .as_str()
                    .and_then(|d| d.lines().next())
                    .unwrap_or("Timed out")
                    .trim_start_matches("Error: ")
                    .to_owned();
                return fail(app, call, msg);
            }
            capture(
                app,
                page,
                false,
                Box::new(move |app, r| {
                    let mut resp = Response::for_page(page);
                    resp.line(format!("Element matching one of {texts_json} found."));
                    if r.is_ok() {
                        if let Some(s) = app
                            .browser
                            .pages
                            .get(page)
                            .and_then(|p| p.snapshot.as_ref())
                        {
                            resp.snapshot = Some(snapshot::format_section(s));
                        }
                    }
                    finish(app, call, resp);
                }),
            );
        }),
    );
}
