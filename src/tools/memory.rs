//! `take_heapsnapshot`: the page's JavaScript heap written to a `.heapsnapshot` file (the
//! format DevTools' Memory panel opens).
//!
//! The browser sends a snapshot as a stream of chunk events before it answers the command;
//! each chunk goes to the file as it arrives, so the server's memory stays bounded whatever
//! the heap's size.

pub(super) mod state;

use std::path::Path;

use serde_json::Value;

use crate::browser::{self, pages, Flow, PageId, RawEvent};
use crate::cdp::generated::heap_profiler;
use crate::error::Error;
use crate::settings::Category;
use crate::tools::args::{self, max, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::Ctx;
use crate::tools::dialogs;
use crate::tools::files::{self, Roots};
use crate::tools::response::{finish, Response};
use crate::tools::tool::Tool;
use state::{Capture, Captures};

pub(super) const TOOLS: &[Tool] = &[Tool {
    name: "take_heapsnapshot",
    description:
        "Save a heap snapshot of the page's JavaScript objects to a .heapsnapshot file, to \
analyse memory use and leaks (open it in DevTools' Memory panel).",
    args: args::schema::<SnapshotArgs>(),
    category: Category::Memory,
    read_only: false,
    run: take_heapsnapshot,
}];

tool_args! {
    struct SnapshotArgs {
        "filePath" file_path: String = {"type": "string", "maxLength": max::PATH},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

fn take_heapsnapshot(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<SnapshotArgs>(cx, call, args) else {
        return;
    };
    let snapshot = HeapSnapshot {
        call,
        file_path: args.file_path,
        page: PageId::NONE,
        session: String::new(),
    };
    call::live_page(cx, call, args.page, snapshot.then(Step::Page));
}

/// One `take_heapsnapshot` call: the profiler enabled, garbage collected (so the snapshot
/// shows what is really retained), the snapshot taken; its chunks arrive as events in
/// between and go to the file at once ([`on_event`]).
struct HeapSnapshot {
    call: CallId,
    /// The file asked for (`.heapsnapshot` added when it has no such extension).
    file_path: String,
    /// The page it snapshots, once found.
    page: PageId,
    session: String,
}

enum Step {
    /// The page the call works on (a crashed page is an error).
    Page(Result<PageId, Error>),
    /// `HeapProfiler.enable` answered.
    Enabled(Result<(), Error>),
    /// `HeapProfiler.collectGarbage` answered.
    Collected(Result<(), Error>),
    /// `HeapProfiler.takeHeapSnapshot` answered: every chunk has arrived before it.
    Taken(Result<(), Error>),
}

impl Flow<Ctx> for HeapSnapshot {
    type Step = Step;

    fn next(self, cx: &mut Ctx, step: Step) {
        match step {
            Step::Page(Ok(page)) => self.begin(cx, page),
            Step::Enabled(Ok(())) => {
                let collect = heap_profiler::CollectGarbageParams {};
                self.send(cx, collect, |r| Step::Collected(r.map(drop)));
            }
            Step::Collected(Ok(())) => {
                let take = heap_profiler::TakeHeapSnapshotParams {
                    report_progress: Some(false),
                    ..Default::default()
                };
                self.send(cx, take, |r| Step::Taken(r.map(drop)));
            }
            Step::Taken(r) => self.end(cx, r),
            Step::Enabled(Err(e)) | Step::Collected(Err(e)) => self.end(cx, Err(e)),
            Step::Page(Err(e)) => call::fail(cx, self.call, e),
        }
    }
}

impl HeapSnapshot {
    /// No dialog in the way and no other snapshot of the page in progress: the file is
    /// opened, and the profiler enabled.
    fn begin(mut self, cx: &mut Ctx, page: PageId) {
        self.page = page;
        let call = self.call;
        if let Some(message) = dialogs::blocked(cx, page) {
            return call::fail(cx, call, message);
        }
        if cx.heap_captures.get(page).is_some_and(Captures::busy) {
            let message = "A heap snapshot of this page is already being taken.";
            return call::fail(cx, call, message);
        }
        self.session = match pages::session_of(&cx.browser.pages, page) {
            Ok(s) => s,
            Err(e) => return call::fail(cx, call, e),
        };
        let (path, file) =
            match files::create_as(&Roots::of(cx, call), &self.file_path, "heapsnapshot") {
                Ok(opened) => opened,
                Err(message) => return call::fail(cx, call, message),
            };
        call::limit_by_default(cx, call, |ms| {
            format!(
                "The heap snapshot was not taken within {ms} ms (is the page's main thread busy?)."
            )
        });
        let capture = Capture {
            path,
            file,
            failed: None,
        };
        cx.heap_captures.entry(page).begin(capture);
        self.send(cx, heap_profiler::EnableParams {}, |r| {
            Step::Enabled(r.map(drop))
        });
    }

    /// Sends `command` on the page's session; its answer comes back as `step`.
    fn send<C: crate::cdp::Command>(
        self,
        cx: &mut Ctx,
        command: C,
        step: fn(Result<C::Returns, Error>) -> Step,
    ) where
        C::Returns: 'static,
    {
        let session = self.session.clone();
        browser::send_then(cx, Some(&session), command, self, step);
    }

    /// The snapshot is complete (or failed): the profiler is turned off again and the call
    /// answered; a failed snapshot's file is removed.
    fn end(self, cx: &mut Ctx, r: Result<(), Error>) {
        browser::fire(cx, Some(&self.session), heap_profiler::DisableParams {});
        let ended = cx.heap_captures.get_mut(self.page).and_then(Captures::end);
        let Some((path, failed)) = ended else {
            return;
        };
        let outcome = match (r, failed) {
            (Err(e), _) => Err(e.to_string()),
            (Ok(()), Some(e)) => Err(format!("Could not write {path:?}: {e}")),
            (Ok(()), None) => Ok(()),
        };
        if outcome.is_err() || !cx.calls.contains(self.call) {
            let _ = std::fs::remove_file(&path);
        }
        match outcome {
            Ok(()) => self.reply(cx, &path),
            Err(message) => call::fail(cx, self.call, message),
        }
    }

    fn reply(self, cx: &mut Ctx, path: &Path) {
        let mut resp = Response::for_page(self.page);
        resp.line(format!("Heap snapshot saved to {}", path.display()));
        finish(cx, self.call, resp);
    }
}

/// Writes a chunk of the page's snapshot to its file.
pub(super) fn on_event(cx: &mut Ctx, page: PageId, event: &RawEvent) {
    let Some(chunk) = event.decode::<heap_profiler::AddHeapSnapshotChunkEvent>() else {
        return;
    };
    if let Some(captures) = cx.heap_captures.get_mut(page) {
        captures.write(&chunk.chunk);
    }
}
