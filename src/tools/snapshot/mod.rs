//! `take_snapshot` and what builds on snapshots: a snapshot taken ([`capture`]), element
//! uids resolved to live elements ([`resolve_elements`], [`resolve_uids`]), and `wait_for`'s
//! text wait ([`wait_for_text`]). What snapshots keep per page is [`Snapshots`].

mod capture;
mod elements;
pub(crate) mod model;
mod store;
mod text_wait;

use serde_json::Value;

use crate::browser::PageId;
use crate::settings::Category;
use crate::tools::args::{self, max, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::Ctx;
use crate::tools::dialogs;
use crate::tools::files::{self, Roots};
use crate::tools::response::{finish, Response};
use crate::tools::tool::Tool;

pub(crate) use crate::cdp::AsJson;
pub(crate) use capture::capture;
pub(crate) use elements::{resolve_elements, resolve_uids, Resolved};
pub(crate) use store::Snapshots;
pub(crate) use text_wait::wait_for_text;

pub(crate) const TOOLS: &[Tool] = &[Tool {
    name: "take_snapshot",
    description: "Text snapshot of the page's accessibility tree; each element has a uid for other tools. Prefer it to screenshots for reading a page.",
    args: args::schema::<SnapshotArgs>(),
    // It can write a file (filePath), so, as in the reference, not read-only.
    read_only: false,
    category: Category::Debugging,
    run: take_snapshot,
}];

tool_args! {
    struct SnapshotArgs {
        "verbose" verbose: Option<bool> = {"type": "boolean", "description": "All nodes, not only interesting ones"},
        "filePath" file_path: Option<String> = {"type": "string", "maxLength": max::PATH, "description": "Save it here"},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

fn take_snapshot(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<SnapshotArgs>(cx, call, args) else {
        return;
    };
    let verbose = args.verbose.unwrap_or(false);
    let file_path = args.file_path;
    // A page that never answers (a dialog opened meanwhile, a renderer stuck in a loop) must
    // not hold the call forever.
    call::limit_by_default(cx, call, |ms| {
        format!("take_snapshot timed out after {ms} ms: the page did not answer.")
    });
    call::on_page(cx, call, args.page, move |cx, page| {
        if dialogs::refuse(cx, call, page) {
            return;
        }
        let taken = move |cx: &mut Ctx, r| answer(cx, call, page, file_path, r);
        capture(cx, page, verbose, Box::new(taken));
    });
}

/// The snapshot in the answer, or saved to the agent's file.
fn answer(
    cx: &mut Ctx,
    call: CallId,
    page: PageId,
    file_path: Option<String>,
    taken: Result<(), crate::error::Error>,
) {
    if let Err(e) = taken {
        return call::fail(cx, call, e);
    }
    let mut resp = Response::for_page(page);
    let Some(snap) = cx.snapshots.latest(page) else {
        return call::fail(cx, call, "The page closed during the snapshot.");
    };
    match file_path {
        Some(path) => match files::write_at(&Roots::of(cx, call), &path, snap.text.as_bytes()) {
            Ok(_) => {
                resp.line(model::format_saved(&path));
            }
            Err(f) => {
                let could_not = |e: &std::io::Error| format!("Could not write {path}: {e}");
                return call::fail(cx, call, f.text(could_not));
            }
        },
        None => {
            resp.snapshot = Some(model::format_section(snap));
            if cx.settings.structured_content {
                resp.structured.insert("snapshot".into(), snap.to_json());
            }
        }
    }
    finish(cx, call, resp);
}

/// Remembers DOM elements a page tool returned, so snapshots show them even where the
/// accessibility tree leaves them out (until the next document).
pub(crate) fn set_extra_elements(cx: &mut Ctx, page: PageId, backend_ids: Vec<i64>) {
    if cx.browser.pages.get(page).is_some() {
        cx.snapshots.page(page).extra_elements = backend_ids;
    }
}
