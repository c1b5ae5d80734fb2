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
    read_only: true,
    page_scoped: true,
    run: take_snapshot,
}];

fn take_snapshot(app: &mut App, call: u64, args: Value) {
    let verbose = args["verbose"].as_bool().unwrap_or(false);
    let file_path = args["filePath"].as_str().map(str::to_owned);
    pages::with_page(
        app,
        page_arg(&args),
        Box::new(move |app, r| {
            let page = match r {
                Ok(p) => p,
                Err(e) => return fail(app, call, e),
            };
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
                            Err(e) => {
                                return fail(app, call, format!("Could not write {path}: {e}"))
                            }
                        },
                        None => resp.snapshot = Some(snapshot::format_section(snap)),
                    }
                    finish(app, call, resp);
                }),
            );
        }),
    );
}

/// Takes a fresh snapshot of the page and keeps it as the page's latest.
pub fn capture(app: &mut App, page: u32, verbose: bool, done: Done<()>) {
    let session = match pages::session_of(app, page) {
        Ok(s) => s,
        Err(e) => return done(app, Err(e)),
    };
    browser::send_raw(
        app,
        Some(&session),
        "Accessibility.getFullAXTree",
        json!({}),
        Box::new(move |app, r| {
            let tree = match r {
                Ok(t) => t,
                Err(e) => return done(app, Err(e)),
            };
            let nodes = tree["nodes"].as_array().cloned().unwrap_or_default();
            let Some(p) = app.browser.pages.get_mut(page) else {
                return done(
                    app,
                    Err(Error::PageGone(format!("Page {page} was closed."))),
                );
            };
            p.snapshot_seq += 1;
            let frames = [FrameTree {
                target_id: &p.target_id,
                frame_id: &p.target_id,
                loader_id: &p.loader_id,
                nodes: &nodes,
                owner: None,
            }];
            let input = SnapshotInput {
                frames: &frames,
                extras: &[],
                verbose,
                selected_backend_node_id: None,
            };
            match snapshot::build(&input, p.snapshot_seq, &mut p.uids) {
                Ok(s) => {
                    p.snapshot = Some(s);
                    done(app, Ok(()))
                }
                Err(e) => done(app, Err(Error::Page(e.to_string()))),
            }
        }),
    );
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
    let backend = backend_ids.remove(0);
    let uid = uids.remove(0);
    let s2 = session.clone();
    browser::send_raw(
        app,
        Some(&session),
        "DOM.resolveNode",
        json!({"backendNodeId": backend}),
        Box::new(move |app, r| {
            match r
                .ok()
                .and_then(|v| v["object"]["objectId"].as_str().map(str::to_owned))
            {
                Some(id) => {
                    objects.push(id);
                    resolve_next(app, s2, backend_ids, uids, objects, done)
                }
                None => done(
                    app,
                    Err(Error::Invalid(format!(
                        "Element with uid {uid} no longer exists on the page."
                    ))),
                ),
            }
        }),
    );
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
