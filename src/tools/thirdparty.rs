//! `list_3p_developer_tools` and `execute_3p_developer_tool`: the tools a page exposes.
//! Running one is `pagetools::run`'s; this side turns `{uid}` arguments into elements
//! before, and returned elements into uids after, both through snapshots.

use crate::browser::PageId;
use crate::tools::args::Schema;
use serde_json::{json, Map, Value};

use super::args::{self, max, tool_args};
use super::ctx::DialogPolicy;
use super::files::{self, Roots};
use super::response::{self, finish, Response};
use super::{call, fail, snapshot, webmcp, CallId, Ctx, Tool};
use crate::browser::pages;
use crate::error::Error;
use crate::pagetools::{self, run};
use crate::settings::Category;

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "list_3p_developer_tools",
        description: "List the tools the page itself exposes (devtoolstooldiscovery) with their schemas; run one with execute_3p_developer_tool.",
        args: Schema {
            properties: || json!({}),
            required: &[],
        },
        read_only: true,
        page_scoped: true,
        category: Category::ThirdParty,
        run: list_tools,
    },
    Tool {
        name: "execute_3p_developer_tool",
        description: "Run one of the page's own tools (see list_3p_developer_tools); returns its result.",
        args: args::schema::<ExecuteArgs>(),
        read_only: false,
        page_scoped: true,
        category: Category::ThirdParty,
        run: execute_tool,
    },
];

fn list_tools(cx: &mut Ctx, call: CallId, args: Value) {
    response::answer_page(cx, call, args, |page| Response {
        list_tools: true,
        say_no_tools: true,
        ..Response::for_page(page)
    })
}

tool_args! {
    struct ExecuteArgs {
        "toolName" tool_name: String = {"type": "string", "maxLength": max::NAME},
        /// The tool's parameters as JSON text.
        "params" params: Option<String> = {"type": "string", "maxLength": max::PARAMS, "description": "JSON object text; elements as {\"uid\": …}"},
        "filePath" file_path: Option<String> = {"type": "string", "maxLength": max::PATH, "description": "Save the whole result here"},
        "timeout" timeout: Option<f64> = {"type": "integer", "minimum": 0, "maximum": max::TIMEOUT_MS, "description": "ms (default: --toolTimeout)"},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

/// Parses a JSON-text argument (`params`, or WebMCP's `input`: `what`) as the reference does:
/// absent → `{}`, else a JSON object.
pub fn parse_object(text: Option<&str>, what: &str) -> Result<Map<String, Value>, Error> {
    let Some(text) = text.filter(|t| !t.is_empty()) else {
        return Ok(Map::new());
    };
    let fails = |why: String| Error::Invalid(format!("Failed to parse {what} as JSON: {why}"));
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(fails(format!("Parsed {what} is not an object"))),
        Err(e) => Err(fails(e.to_string())),
    }
}

/// Opens the file a page tool's result is written to (`filePath`), inside the roots.
pub fn output_file(
    cx: &Ctx,
    file_path: Option<String>,
) -> Result<Option<(String, std::fs::File)>, String> {
    let Some(path) = file_path else {
        return Ok(None);
    };
    match files::create_at(&Roots::of(cx), &path) {
        Ok((_, file)) => Ok(Some((path, file))),
        Err(f) => Err(f.text(|e| format!("Could not write {path}: {e}"))),
    }
}

/// The time limit of a page tool's run, with the reference's words when it passes.
pub fn limit_run(cx: &mut Ctx, call: CallId, name: &str, timeout: std::time::Duration) {
    let message = format!(
        "Tool {name} timed out after {} ms without settling.",
        timeout.as_millis()
    );
    call::limit(cx, call, timeout, message);
}

fn execute_tool(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = crate::tools::call::args::<ExecuteArgs>(cx, call, args) else {
        return;
    };
    let params = match parse_object(args.params.as_deref(), "params") {
        Ok(p) => Value::Object(p),
        Err(e) => return fail(cx, call, e),
    };
    let name = args.tool_name;
    let timeout = args::timeout_or(args.timeout, cx.settings.tool_timeout);
    limit_run(cx, call, &name, timeout);
    let requested = args.page;
    let file_path = args.file_path;
    call::on_live_page(cx, call, requested, move |cx, page| {
        let then = move |cx: &mut Ctx, _| run_tool(cx, call, page, name, params, file_path);
        pagetools::ensure_current(cx, page, Box::new(then));
    });
}

/// Runs a page tool with already-parsed params: checked, its element arguments resolved,
/// run, and answered.
pub fn run_tool(
    cx: &mut Ctx,
    call: CallId,
    page: PageId,
    tool: String,
    params: Value,
    file_path: Option<String>,
) {
    if super::dialogs::refuse(cx, call, page) {
        return;
    }
    // WebMCP's debugging tools are listed first: their names win.
    if webmcp::runs_as(cx, page, &tool, webmcp::As::ThirdParty) {
        let how = webmcp::As::ThirdParty;
        return webmcp::run_page_tool(cx, call, page, tool, params, file_path, how);
    }
    let places = match run::check(cx, page, &tool, &params) {
        Ok(p) => p,
        Err(e) => return fail(cx, call, e),
    };
    let (paths, uids): (Vec<Vec<Value>>, Vec<String>) = places.into_iter().unzip();
    let resolved = move |cx: &mut Ctx, r: Result<Vec<String>, Error>| {
        let objects = match r {
            Ok(o) => o,
            Err(e) => return fail(cx, call, e),
        };
        let Some(session) = cx.browser.pages.get(page).map(|p| p.session.clone()) else {
            return fail(cx, call, pages::no_such_page(page));
        };
        call::runs_page_code(cx, call, page, &session, Some(DialogPolicy::Accept));
        let output = match output_file(cx, file_path) {
            Ok(o) => o,
            Err(message) => return fail(cx, call, message),
        };
        let run = run::Run {
            page,
            tool,
            params,
            elements: paths.into_iter().zip(objects).collect(),
            output,
        };
        run::start(cx, run, Box::new(move |cx, r| answer(cx, call, page, r)));
    };
    snapshot::resolve_uids(cx, page, uids, Box::new(resolved));
}

fn answer(cx: &mut Ctx, call: CallId, page: PageId, r: Result<run::Outcome, Error>) {
    match r {
        Err(e) => fail(cx, call, e),
        Ok(run::Outcome::Lines(lines)) => reply(cx, call, page, lines, None),
        Ok(run::Outcome::Elements(returned)) => with_element_uids(cx, call, page, returned),
    }
}

/// The answer: the run's lines, the snapshot that gave its elements uids, and what
/// happened to dialogs the tool opened.
fn reply(cx: &mut Ctx, call: CallId, page: PageId, lines: Vec<String>, snapshot: Option<String>) {
    let mut resp = Response::for_page(page);
    for line in lines {
        resp.line(line);
    }
    resp.snapshot = snapshot;
    for note in call::take_dialog_notes(cx, call) {
        resp.line(note);
    }
    finish(cx, call, resp);
}

/// The result holds DOM elements: take a snapshot, map each element to its uid, and print
/// the result with `{uid}` in their places, plus the snapshot (as the reference does).
fn with_element_uids(cx: &mut Ctx, call: CallId, page: PageId, returned: run::Returned) {
    if let Err(e) = pages::session_of(&cx.browser.pages, page) {
        return fail(cx, call, e);
    }
    // Elements the accessibility tree leaves out still get a uid in the snapshot.
    let known: Vec<i64> = returned.backend_ids.iter().flatten().copied().collect();
    snapshot::set_extra_elements(cx, page, known);
    let captured = move |cx: &mut Ctx, _| {
        let (uids, section) = match cx.snapshots.latest(page) {
            Some(snap) => (
                returned
                    .backend_ids
                    .iter()
                    .enumerate()
                    .map(|(i, b)| match b.and_then(|b| snap.uid_for_backend(b)) {
                        Some(uid) => json!(uid),
                        None => json!(format!("stashed-{i}")),
                    })
                    .collect::<Vec<_>>(),
                Some(snapshot::model::format_section(snap)),
            ),
            None => (Vec::new(), None),
        };
        let rendered = move |cx: &mut Ctx, r: Result<Vec<String>, Error>| match r {
            Ok(lines) => reply(cx, call, page, lines, section),
            Err(e) => fail(cx, call, e),
        };
        run::render(cx, returned, uids, Box::new(rendered));
    };
    snapshot::capture(cx, page, false, Box::new(captured));
}
