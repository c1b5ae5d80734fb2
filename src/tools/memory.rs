//! `take_heapsnapshot`: the page's JavaScript heap written to a `.heapsnapshot` file (the
//! format DevTools' Memory panel opens).
//!
//! The browser sends a snapshot as a stream of chunk events before it answers the command;
//! each chunk goes to the file as it arrives, so the server's memory stays bounded whatever
//! the heap's size.

use crate::tools::args::Schema;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;

use serde_json::{json, Value};

use crate::browser::{self, pages, PageId, RawEvent};
use crate::cdp::generated::heap_profiler;
use crate::settings::Category;
use crate::tools::args::{self, max};
use crate::tools::dialogs;
use crate::tools::files::{self, Roots};
use crate::tools::response::{finish, Response};
use crate::tools::{call, fail, CallId, Ctx, Tool};

pub const TOOLS: &[Tool] = &[Tool {
    name: "take_heapsnapshot",
    description:
        "Save a heap snapshot of the page's JavaScript objects to a .heapsnapshot file, to \
analyse memory use and leaks (open it in DevTools' Memory panel).",
    args: Schema {
        properties: || {
            json!({
                "filePath": {
                    "type": "string", "maxLength": max::PATH,

                },
            })
        },
        required: &["filePath"],
    },
    category: Category::Memory,
    read_only: false,
    page_scoped: true,
    run: take_heapsnapshot,
}];

/// A snapshot being written for a call: where the page's chunks go.
pub struct Capture {
    call: CallId,
    path: PathBuf,
    file: File,
    /// The first write that failed; the rest of the chunks are dropped.
    failed: Option<std::io::Error>,
}

/// Each page's snapshot in progress, if any.
#[derive(Default)]
pub struct Captures(Option<Capture>);

fn take_heapsnapshot(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = crate::tools::call::args::<args::OnlyShared>(cx, call, args) else {
        return;
    };
    let Some(given) = args.shared.file_path.clone() else {
        return fail(cx, call, "filePath is required.");
    };
    call::on_live_page(cx, call, args.shared.page(), move |cx, page| {
        if let Some(message) = dialogs::blocked(cx, page) {
            return fail(cx, call, message);
        }
        if cx.heap_captures.get(page).is_some_and(|c| c.0.is_some()) {
            return fail(
                cx,
                call,
                "A heap snapshot of this page is already being taken.",
            );
        }
        let session = match pages::session_of(&cx.browser.pages, page) {
            Ok(s) => s,
            Err(e) => return fail(cx, call, e),
        };
        let (path, file) = match files::create_as(&Roots::of(cx), &given, "heapsnapshot") {
            Ok(opened) => opened,
            Err(message) => return fail(cx, call, message),
        };
        call::limit_by_default(cx, call, |ms| {
            format!(
                "The heap snapshot was not taken within {ms} ms (is the page's main thread busy?)."
            )
        });
        let capture = Capture {
            call,
            path,
            file,
            failed: None,
        };
        start(cx, page, session, capture);
    });
}

/// Enables the profiler and collects garbage first (so the snapshot shows what is really
/// retained), then asks for the snapshot; its chunks arrive in [`on_event`].
fn start(cx: &mut Ctx, page: PageId, session: String, capture: Capture) {
    cx.heap_captures.entry(page).0 = Some(capture);
    let s = session.clone();
    browser::send(
        cx,
        Some(&session),
        heap_profiler::EnableParams {},
        move |cx, r| {
            if let Err(e) = r {
                return end(cx, page, &s, Err(e.to_string()));
            }
            let s2 = s.clone();
            browser::send(
                cx,
                Some(&s),
                heap_profiler::CollectGarbageParams {},
                move |cx, r| {
                    if let Err(e) = r {
                        return end(cx, page, &s2, Err(e.to_string()));
                    }
                    let params = heap_profiler::TakeHeapSnapshotParams {
                        report_progress: Some(false),
                        ..Default::default()
                    };
                    let s3 = s2.clone();
                    browser::send(cx, Some(&s2), params, move |cx, r| {
                        end(cx, page, &s3, r.map(|_| ()).map_err(|e| e.to_string()))
                    });
                },
            );
        },
    );
}

/// Writes a chunk of the page's snapshot to its file.
pub fn on_event(cx: &mut Ctx, page: PageId, event: &RawEvent) {
    let Some(chunk) = event.decode::<heap_profiler::AddHeapSnapshotChunkEvent>() else {
        return;
    };
    let Some(Captures(Some(capture))) = cx.heap_captures.get_mut(page) else {
        return;
    };
    if capture.failed.is_none() {
        if let Err(e) = capture.file.write_all(chunk.chunk.as_bytes()) {
            capture.failed = Some(e);
        }
    }
}

/// The snapshot is complete (or failed): the profiler is turned off again and the call
/// answered, unless it already ended (time limit, cancel), in which case the partial file is
/// removed.
fn end(cx: &mut Ctx, page: PageId, session: &str, r: Result<(), String>) {
    browser::fire(cx, Some(session), heap_profiler::DisableParams {});
    let Some(Captures(Some(capture))) = cx.heap_captures.get_mut(page).map(std::mem::take) else {
        return;
    };
    let Capture {
        call,
        path,
        mut file,
        failed,
    } = capture;
    let flushed = file.flush();
    drop(file);
    let outcome = match (r, failed.or(flushed.err())) {
        (Err(message), _) => Err(message),
        (Ok(()), Some(e)) => Err(format!("Could not write {path:?}: {e}")),
        (Ok(()), None) => Ok(()),
    };
    if outcome.is_err() || !cx.calls.contains(call) {
        let _ = std::fs::remove_file(&path);
    }
    match outcome {
        Ok(()) => {
            let mut resp = Response::for_page(page);
            resp.line(format!("Heap snapshot saved to {}", path.display()));
            finish(cx, call, resp);
        }
        Err(message) => fail(cx, call, message),
    }
}
