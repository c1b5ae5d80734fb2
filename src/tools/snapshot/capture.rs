//! Taking a snapshot, step by step: the page's accessibility tree, then each `<iframe>`'s
//! (from the frame's own session when it is out of process, else from its parent's), the
//! child frames' loader ids, the DOM of elements a page tool returned that the tree leaves
//! out, and the snapshot built from all of it. [`Capture::next`] is the whole story.

use serde_json::Value;

use super::model::{self, FrameTree, SnapshotInput};
use crate::browser::{self, frames, pages, Flow, PageId};
use crate::cdp::generated::{accessibility, dom, page as cdp_page};
use crate::cdp::AsJson;
use crate::error::Error;
use crate::tools::ctx::{Ctx, Done};

/// Takes a fresh snapshot of the page and keeps it as the page's latest. Iframes are
/// included, same-process and out-of-process ones; elements a page tool returned that the
/// tree leaves out are placed under their nearest ancestor.
pub(crate) fn capture(cx: &mut Ctx, page: PageId, verbose: bool, done: Done<()>) {
    let session = match pages::session_of(&cx.browser.pages, page) {
        Ok(s) => s,
        Err(e) => return done(cx, Err(e)),
    };
    let capture = Capture {
        page,
        verbose,
        done,
        frames: Vec::new(),
        iframes: Vec::new(),
        iframe: None,
        loaders: Vec::new(),
        sessions: Vec::new(),
        extras: Vec::new(),
    };
    let request = AsJson(accessibility::GetFullAXTreeParams::default());
    browser::send_then(cx, Some(&session), request, capture, |r| {
        Step::MainTree(r.map(take_nodes))
    });
}

/// One snapshot being gathered.
struct Capture {
    page: PageId,
    verbose: bool,
    done: Done<()>,
    /// One accessibility tree per frame; the main frame comes first.
    frames: Vec<FrameNodes>,
    /// The `<iframe>` elements still to fetch the documents of, and the one being fetched.
    iframes: Vec<PendingIframe>,
    iframe: Option<(PendingIframe, IframeSource)>,
    /// Each frame's loader id (part of a uid's identity), and the sessions still to ask.
    loaders: Vec<(String, String)>,
    sessions: Vec<String>,
    /// The elements a page tool returned, as the snapshot began placing them.
    extras: Vec<i64>,
}

enum Step {
    /// The page's own tree.
    MainTree(Result<Vec<Value>, Error>),
    /// The frame an `<iframe>` element holds (`None`: not a frame any more).
    IframeFrame(Result<Option<String>, Error>),
    /// That frame's tree.
    IframeTree(Result<Vec<Value>, Error>),
    /// A session's frame tree, for the loader ids of its frames.
    FrameTree(Result<cdp_page::FrameTree, Error>),
    /// The whole document, to place the elements a page tool returned.
    Document(Result<Value, Error>),
}

impl Flow<Ctx> for Capture {
    type Step = Step;

    fn next(mut self, cx: &mut Ctx, step: Step) {
        match step {
            Step::MainTree(Ok(nodes)) => self.main_tree(cx, nodes),
            Step::MainTree(Err(e)) => (self.done)(cx, Err(e)),
            Step::IframeFrame(Ok(Some(frame))) => self.iframe_tree(cx, frame),
            Step::IframeTree(r) => {
                if let (Ok(nodes), Some((iframe, source))) = (r, self.iframe.take()) {
                    self.add(FrameNodes {
                        frame: source.frame,
                        target: source.target,
                        session: source.session,
                        owner: Some((iframe.parent_frame, iframe.backend)),
                        nodes,
                    });
                }
                self.next_iframe(cx)
            }
            // A frame whose tree cannot be had (gone, crashed, not attached yet) is left out.
            Step::IframeFrame(_) => self.next_iframe(cx),
            Step::FrameTree(r) => {
                if let Ok(tree) = r {
                    let mut stack = vec![tree];
                    while let Some(t) = stack.pop() {
                        self.loaders.push((t.frame.id, t.frame.loader_id));
                        stack.extend(t.child_frames.into_iter().flatten());
                    }
                }
                self.next_loaders(cx)
            }
            Step::Document(r) => {
                let elements = match r {
                    Ok(doc) => {
                        let index = model::DomIndex::from_document(&doc);
                        let extras = self.extras.iter();
                        extras.filter_map(|b| index.extra_element(*b)).collect()
                    }
                    Err(_) => Vec::new(),
                };
                self.build(cx, elements)
            }
        }
    }
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

/// Where an `<iframe>`'s tree is fetched from: its frame's own session, or its parent's.
struct IframeSource {
    frame: String,
    target: String,
    session: String,
}

fn take_nodes(mut tree: Value) -> Vec<Value> {
    match tree["nodes"].take() {
        Value::Array(nodes) => nodes,
        _ => Vec::new(),
    }
}

impl Capture {
    fn main_tree(mut self, cx: &mut Ctx, nodes: Vec<Value>) {
        let Some(p) = cx.browser.pages.get(self.page) else {
            let gone = Error::PageGone(format!("Page {} was closed.", self.page));
            return (self.done)(cx, Err(gone));
        };
        let (main, session) = (p.target_id.clone(), p.session.clone());
        self.add(FrameNodes {
            frame: main.clone(),
            target: main,
            session,
            owner: None,
            nodes,
        });
        self.next_iframe(cx)
    }

    /// Adds a frame's tree, and its `<iframe>` elements to fetch.
    fn add(&mut self, f: FrameNodes) {
        let iframes = model::iframe_backend_ids(&f.nodes).into_iter();
        self.iframes.extend(iframes.map(|backend| PendingIframe {
            session: f.session.clone(),
            target: f.target.clone(),
            parent_frame: f.frame.clone(),
            backend,
        }));
        self.frames.push(f);
    }

    /// Asks which frame the next `<iframe>` holds, or, when none is left, goes on to the
    /// loader ids.
    fn next_iframe(mut self, cx: &mut Ctx) {
        let Some(iframe) = self.iframes.pop() else {
            return self.loaders(cx);
        };
        let describe = dom::DescribeNodeParams {
            backend_node_id: Some(iframe.backend),
            ..Default::default()
        };
        let parent_session = iframe.session.clone();
        let placeholder = IframeSource {
            frame: String::new(),
            target: String::new(),
            session: String::new(),
        };
        self.iframe = Some((iframe, placeholder));
        let frame_of = |r: Result<dom::DescribeNodeReturns, Error>| {
            Step::IframeFrame(r.map(|a| a.node.frame_id))
        };
        browser::send_then(cx, Some(&parent_session), describe, self, frame_of);
    }

    /// Fetches the tree of the frame an `<iframe>` holds: from the frame's own session when
    /// it is out of process, else from its parent's, by frame id.
    fn iframe_tree(mut self, cx: &mut Ctx, frame: String) {
        let Some((iframe, _)) = self.iframe.take() else {
            return self.next_iframe(cx);
        };
        let (source, frame_id) = match frames::frame_session(cx, self.page, &frame) {
            Some(session) => {
                let target = frame.clone();
                (
                    IframeSource {
                        frame,
                        target,
                        session,
                    },
                    None,
                )
            }
            None => {
                let (session, target) = (iframe.session.clone(), iframe.target.clone());
                let frame_id = Some(frame.clone());
                (
                    IframeSource {
                        frame,
                        target,
                        session,
                    },
                    frame_id,
                )
            }
        };
        let session = source.session.clone();
        self.iframe = Some((iframe, source));
        let request = AsJson(accessibility::GetFullAXTreeParams {
            frame_id,
            ..Default::default()
        });
        let tree = |r: Result<Value, Error>| Step::IframeTree(r.map(take_nodes));
        browser::send_then(cx, Some(&session), request, self, tree);
    }

    /// Child frames need their loader ids: one `Page.getFrameTree` per session the frames
    /// came from.
    fn loaders(mut self, cx: &mut Ctx) {
        if self.frames.len() > 1 {
            for f in &self.frames {
                if !self.sessions.contains(&f.session) {
                    self.sessions.push(f.session.clone());
                }
            }
        }
        self.sessions.reverse();
        self.next_loaders(cx)
    }

    fn next_loaders(mut self, cx: &mut Ctx) {
        let Some(session) = self.sessions.pop() else {
            return self.extras(cx);
        };
        let tree = |r: Result<cdp_page::GetFrameTreeReturns, Error>| {
            Step::FrameTree(r.map(|a| a.frame_tree))
        };
        let request = cdp_page::GetFrameTreeParams {};
        browser::send_then(cx, Some(&session), request, self, tree);
    }

    /// Elements a page tool returned are placed from the whole document (when there are
    /// any).
    fn extras(mut self, cx: &mut Ctx) {
        if cx.browser.pages.get(self.page).is_none() {
            let gone = Error::PageGone(format!("Page {} was closed.", self.page));
            return (self.done)(cx, Err(gone));
        }
        let Some(session) = self.frames.first().map(|f| f.session.clone()) else {
            return (self.done)(cx, Err(Error::Page(model::EmptyTree.to_string())));
        };
        self.extras = cx.snapshots.page(self.page).extra_elements.clone();
        if self.extras.is_empty() {
            return self.build(cx, Vec::new());
        }
        let request = AsJson(dom::GetDocumentParams {
            depth: Some(-1),
            pierce: Some(true),
        });
        browser::send_then(cx, Some(&session), request, self, Step::Document);
    }

    /// Builds the snapshot from what was gathered and keeps it as the page's latest.
    fn build(self, cx: &mut Ctx, extras: Vec<model::ExtraElement>) {
        let id = cx.snapshots.next_id();
        let Some(p) = cx.browser.pages.get(self.page) else {
            let gone = Error::PageGone(format!("Page {} was closed.", self.page));
            return (self.done)(cx, Err(gone));
        };
        let loader_of = |frame: &str| -> String {
            if frame == p.target_id {
                return p.loader_id.clone();
            }
            let loader = self.loaders.iter().find(|(f, _)| f == frame);
            loader.map(|(_, l)| l.clone()).unwrap_or_default()
        };
        let loader_ids: Vec<String> = self.frames.iter().map(|f| loader_of(&f.frame)).collect();
        let frames: Vec<FrameTree> = (self.frames.iter().zip(&loader_ids))
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
            verbose: self.verbose,
            selected_backend_node_id: None,
        };
        let state = cx.snapshots.page(self.page);
        let built = model::build(&input, id, &mut state.uids);
        let result = match built {
            Ok(s) => {
                state.latest = Some(s);
                Ok(())
            }
            Err(e) => Err(Error::Page(e.to_string())),
        };
        (self.done)(cx, result)
    }
}
