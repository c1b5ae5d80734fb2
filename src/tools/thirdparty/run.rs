//! A page tool run as a call, step by step: what `execute_3p_developer_tool` and the exposed
//! page tools start. An event-based tool (the shim's) has its `{uid}` arguments resolved to
//! elements, runs in the page (`pagetools::run`), and the elements its result holds get
//! uids from a fresh snapshot; a WebMCP tool is handed to an [`Invocation`].
//! [`PageToolRun::next`] is the whole story.

use std::time::Duration;

use serde_json::Value;

use super::invocation::{Answer, Invocation};
use crate::browser::{self, pages, Flow, PageId};
use crate::error::Error;
use crate::pagetools::{self, run};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::{Ctx, DialogPolicy};
use crate::tools::{dialogs, files, response, snapshot};

/// Gives a page tool's call its time limit, in the reference's words when it passes.
pub(super) fn time_limit(cx: &mut Ctx, call: CallId, tool: &str, timeout: Duration) {
    let ms = timeout.as_millis();
    let message = format!("Tool {tool} timed out after {ms} ms without settling.");
    call::limit(cx, call, timeout, message);
}

/// How a page tool run was asked for.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum How {
    /// `execute_3p_developer_tool`: on a live page whose table is its current document's
    /// (discovered first if it is not); WebMCP tools only when marked for debugging.
    Execute,
    /// An exposed page tool (`--exposePageTools`): the table as listed, the kind of tool as
    /// listed (any WebMCP tool, its output marked when the page says it is untrusted).
    Exposed { webmcp: bool },
}

/// A page tool's run, from the page it runs in to its answer.
pub(super) struct PageToolRun {
    call: CallId,
    how: How,
    /// The tool's name, as the page registered it.
    tool: String,
    /// Its arguments, a JSON object.
    params: Value,
    /// Write the whole result here instead of answering with it.
    file_path: Option<String>,
    /// The page it runs in, once found.
    page: PageId,
    /// Where each `{uid}` argument stands in `params`.
    places: Vec<Vec<Value>>,
    /// The result's elements, waiting for their uids.
    returned: Option<run::Returned>,
    /// The snapshot that gave them uids, for the answer.
    snapshot: Option<String>,
}

pub(super) enum Step {
    /// The page the call works on (the browser started, a page opened if there was none).
    Page(Result<PageId, Error>),
    /// The page's table is its current document's. (Discovery never fails a run: a page
    /// without tools is told so when the tool is looked up.)
    Discovered,
    /// The `{uid}` arguments, as remote objects in the page's main frame.
    Resolved(Result<Vec<String>, Error>),
    /// The tool ran: the answer's lines, or a result holding elements.
    Ran(Result<run::Outcome, Error>),
    /// A snapshot was taken, to give the result's elements uids. (Without one they keep
    /// their `stashed-<i>` marks.)
    Snapshotted,
    /// The result, printed with the elements' uids.
    Rendered(Result<Vec<String>, Error>),
}

impl PageToolRun {
    pub(super) fn new(call: CallId, how: How, tool: String, params: Value) -> PageToolRun {
        PageToolRun {
            call,
            how,
            tool,
            params,
            file_path: None,
            page: PageId::NONE,
            places: Vec::new(),
            returned: None,
            snapshot: None,
        }
    }

    /// Writes the whole result to `path` instead of answering with it.
    pub(super) fn saving_to(self, path: Option<String>) -> PageToolRun {
        PageToolRun {
            file_path: path,
            ..self
        }
    }

    /// Starts the run on page `requested` (the selected page when `None`).
    pub(super) fn start(self, cx: &mut Ctx, requested: Option<PageId>) {
        let agent = call::agent(cx, self.call);
        browser::with_page(cx, agent, requested, self.then(Step::Page));
    }
}

impl Flow<Ctx> for PageToolRun {
    type Step = Step;

    fn next(self, cx: &mut Ctx, step: Step) {
        let call = self.call;
        match step {
            Step::Page(Ok(page)) => self.discover(cx, page),
            Step::Discovered => self.run(cx),
            Step::Resolved(Ok(objects)) => self.run_in_page(cx, objects),
            Step::Ran(Ok(run::Outcome::Lines(lines))) => self.reply(cx, lines),
            Step::Ran(Ok(run::Outcome::Elements(returned))) => self.snapshot(cx, returned),
            Step::Snapshotted => self.render(cx),
            Step::Rendered(Ok(lines)) => self.reply(cx, lines),
            Step::Page(Err(e)) | Step::Resolved(Err(e)) | Step::Ran(Err(e)) => {
                call::fail(cx, call, e)
            }
            Step::Rendered(Err(e)) => call::fail(cx, call, e),
        }
    }
}

impl PageToolRun {
    /// `execute_3p_developer_tool` needs a live page (a crashed one would never answer)
    /// whose table is its current document's; an exposed tool runs from the table as listed.
    fn discover(mut self, cx: &mut Ctx, page: PageId) {
        self.page = page;
        if let How::Exposed { .. } = self.how {
            return self.run(cx);
        }
        if let Err(e) = pages::not_crashed(&cx.browser.pages, page) {
            return call::fail(cx, self.call, e);
        }
        pagetools::ensure_current(cx, page, self.then(|_| Step::Discovered));
    }

    /// An open dialog refuses the run; a WebMCP tool is invoked; an event-based tool has its
    /// params checked and its `{uid}` arguments resolved.
    fn run(mut self, cx: &mut Ctx) {
        let page = self.page;
        if dialogs::refuse(cx, self.call, page) {
            return;
        }
        if let Some(untrusted) = self.webmcp_tool(cx) {
            return self.invoke(cx, untrusted);
        }
        let places = match run::check(cx, page, &self.tool, &self.params) {
            Ok(p) => p,
            Err(e) => return call::fail(cx, self.call, e),
        };
        let (places, uids): (Vec<Vec<Value>>, Vec<String>) = places.into_iter().unzip();
        self.places = places;
        snapshot::resolve_uids(cx, page, uids, self.then(Step::Resolved));
    }

    /// Runs the tool in the page with its elements, as page code whose dialogs are accepted.
    fn run_in_page(mut self, cx: &mut Ctx, objects: Vec<String>) {
        let page = self.page;
        let Some(session) = cx.browser.pages.get(page).map(|p| p.session.clone()) else {
            return call::fail(cx, self.call, pages::no_such_page(page));
        };
        call::runs_page_code(cx, self.call, page, &session, Some(DialogPolicy::Accept));
        let output = match files::output(cx, self.call, self.file_path.take()) {
            Ok(o) => o,
            Err(message) => return call::fail(cx, self.call, message),
        };
        let places = std::mem::take(&mut self.places);
        let run = run::Run {
            page,
            tool: std::mem::take(&mut self.tool),
            params: std::mem::take(&mut self.params),
            elements: places.into_iter().zip(objects).collect(),
            output,
        };
        run::start(cx, run, self.then(Step::Ran));
    }

    /// The result holds DOM elements: a fresh snapshot gives each a uid (elements the
    /// accessibility tree leaves out included).
    fn snapshot(mut self, cx: &mut Ctx, returned: run::Returned) {
        if let Err(e) = pages::session_of(&cx.browser.pages, self.page) {
            return call::fail(cx, self.call, e);
        }
        let known: Vec<i64> = returned.backend_ids.iter().flatten().copied().collect();
        snapshot::set_extra_elements(cx, self.page, known);
        self.returned = Some(returned);
        snapshot::capture(cx, self.page, false, self.then(|_| Step::Snapshotted));
    }

    /// Prints the result with `{uid}` in each element's place (`stashed-<i>` where the
    /// snapshot has none), and keeps the snapshot for the answer, as the reference does.
    fn render(mut self, cx: &mut Ctx) {
        let Some(returned) = self.returned.take() else {
            // Only a step out of order could get here; the call still gets its answer.
            let lost = "The page tool's result was lost before its elements got uids.";
            return call::fail(cx, self.call, lost);
        };
        let (uids, section) = match cx.snapshots.latest(self.page) {
            Some(snap) => {
                let ids = returned.backend_ids.iter().enumerate();
                let uids = ids.map(|(i, b)| match b.and_then(|b| snap.uid_for_backend(b)) {
                    Some(uid) => Value::String(uid.to_owned()),
                    None => Value::String(format!("stashed-{i}")),
                });
                (uids.collect(), Some(snapshot::model::format_section(snap)))
            }
            None => (Vec::new(), None),
        };
        self.snapshot = section;
        run::render(cx, returned, uids, self.then(Step::Rendered));
    }

    /// The answer: the run's lines, the snapshot that gave its elements uids, and what
    /// happened to dialogs the tool opened.
    fn reply(self, cx: &mut Ctx, lines: Vec<String>) {
        response::reply_lines(cx, self.call, self.page, lines, self.snapshot);
    }

    /// Whether the tool is a WebMCP tool this run may invoke, and if so whether the page
    /// marks its output as untrusted. WebMCP's debugging tools are listed first: their names
    /// win over the event-based tools'.
    fn webmcp_tool(&self, cx: &Ctx) -> Option<bool> {
        let table = &cx.tables.get(self.page)?.webmcp;
        match self.how {
            How::Execute => table.debugging_tool(&self.tool).map(|_| false),
            How::Exposed { webmcp: false } => None,
            How::Exposed { webmcp: true } => (table.tools())
                .find(|w| w.tool.name == self.tool)
                .map(|w| w.untrusted()),
        }
    }

    /// Checks the input against the WebMCP tool's inputSchema and hands the run over.
    fn invoke(self, cx: &mut Ctx, untrusted: bool) {
        let table = cx.tables.get(self.page).map(|t| &t.webmcp);
        let tool = table.and_then(|t| t.tools().find(|w| w.tool.name == self.tool));
        if let Some(Err(e)) = tool.map(|t| crate::pagetools::webmcp::check(t, &self.params)) {
            return call::fail(cx, self.call, e);
        }
        let Some(session) = cx.browser.pages.get(self.page).map(|p| p.session.clone()) else {
            return call::fail(cx, self.call, pages::no_such_page(self.page));
        };
        let file = match files::output(cx, self.call, self.file_path) {
            Ok(o) => o,
            Err(message) => return call::fail(cx, self.call, message),
        };
        let invocation = Invocation {
            call: self.call,
            page: self.page,
            session,
            tool: self.tool,
            answer: Answer::Output { untrusted, file },
        };
        invocation.start(cx, self.params);
    }
}
