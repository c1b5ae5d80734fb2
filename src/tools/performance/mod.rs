//! `performance_start_trace`, `performance_stop_trace`, `performance_analyze_insight`: a
//! performance trace of the page, summarised with Core Web Vitals and DevTools' insights
//! by the streaming analyser (`crate::trace`), as chrome-devtools-mcp answers.
//!
//! One trace runs at a time, server-wide. A recording whose call failed or went away
//! (cancelled, timed out) is stopped: at once on a failed step, or by the next performance
//! call when the call that owned it is gone.

mod record;
pub(super) mod state;

use std::fmt::Display;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Value};

use crate::browser::{navigation, AgentId, Flow, Host, PageId};
use crate::cdp::generated::network as cdp_network;
use crate::cdp::generated::tracing::TracingCompleteEvent;
use crate::error::Error;
use crate::settings::Category;
use crate::tools::args::{self, max, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::{Ctx, Done};
use crate::tools::dialogs;
use crate::tools::files::{self, Roots};
use crate::tools::response::{finish, Response};
use crate::tools::stream::StreamRead;
use crate::tools::tool::Tool;
use crate::trace;
use record::Capture;
use state::Running;

pub(super) const TOOLS: &[Tool] = &[
    Tool {
        name: "performance_start_trace",
        description: "Trace the page's performance (default: reload, stop 5 s after load). Returns Core Web Vitals (LCP, INP, CLS) and insights.",
        args: args::schema::<StartArgs>(),
        category: Category::Performance,
        read_only: false,
        run: start_trace,
    },
    Tool {
        name: "performance_stop_trace",
        description: "Stop the trace; returns its summary.",
        args: args::schema::<StopArgs>(),
        category: Category::Performance,
        read_only: false,
        run: stop_trace,
    },
    Tool {
        name: "performance_analyze_insight",
        description: "One insight of the last trace, in detail.",
        args: args::schema::<AnalyzeArgs>(),
        category: Category::Performance,
        read_only: true,
        run: analyze_insight,
    },
];

tool_args! {
    struct StartArgs {
        "reload" reload: Option<bool> = {"type": "boolean", "default": true, "description": "Reload once tracing runs."},
        "autoStop" auto_stop: Option<bool> = {"type": "boolean", "default": true, "description": "Stop 5 s after load; else use performance_stop_trace."},
        "ignoreCache" ignore_cache: Option<bool> = {"type": "boolean", "description": "Cold reload."},
        "filePath" file_path: Option<String> = (file_path_schema()),
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

tool_args! {
    struct StopArgs {
        "filePath" file_path: Option<String> = (file_path_schema()),
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

tool_args! {
    struct AnalyzeArgs {
        "insightSetId" insight_set_id: String = {"type": "string", "maxLength": max::UID, "description": "e.g. NAVIGATION_0"},
        "insightName" insight_name: String = {"type": "string", "maxLength": max::UID, "description": "e.g. LCPBreakdown"},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

fn file_path_schema() -> Value {
    json!({"type": "string", "maxLength": max::PATH, "description": "Save the raw trace (.json or .json.gz)."})
}

/// How long after the load an automatic stop comes (as the reference waits).
const AUTO_STOP_AFTER: Duration = Duration::from_secs(5);
/// Each of the reload's two navigations.
const NAVIGATION_TIMEOUT: Duration = Duration::from_secs(60);

/// A recording whose owning call ended without stopping it is stopped first; then `done`.
fn reap(cx: &mut Ctx, done: Done<()>) {
    let orphan = match &cx.performance.running {
        Some(Running {
            owner: Some(owner), ..
        }) => !cx.calls.contains(*owner),
        _ => false,
    };
    match cx.performance.running.take() {
        Some(r) if orphan => record::abandon(cx, &r.session, done),
        running => {
            cx.performance.running = running;
            done(cx, Ok(()))
        }
    }
}

/// The agent ended: its recording, if one runs, is stopped and dropped (its pages are
/// closing), and its last report goes.
pub(crate) fn forget_agent(cx: &mut Ctx, agent: AgentId) {
    cx.performance.last.remove(&agent);
    let theirs = cx
        .performance
        .running
        .as_ref()
        .is_some_and(|r| r.agent == agent);
    if let Some(r) = cx.performance.running.take_if(|_| theirs) {
        record::abandon(cx, &r.session, Box::new(|_, _| {}));
    }
}

/// Stops the recording on `session` and drops what it recorded, then fails the call with
/// `e`: by then a new trace may start (the browser refuses one while it is ending the last).
fn abandon_and_fail(cx: &mut Ctx, session: &str, call: CallId, e: impl Display + 'static) {
    record::abandon(cx, session, Box::new(move |cx, _| call::fail(cx, call, e)));
}

fn answer_line(cx: &mut Ctx, call: CallId, page: Option<PageId>, line: &str) {
    let mut resp = page.map_or_else(Response::default, Response::for_page);
    resp.line(line);
    finish(cx, call, resp);
}

// ---------------------------------------------------------------------------------------
// performance_start_trace

fn start_trace(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<StartArgs>(cx, call, args) else {
        return;
    };
    let start = StartTrace {
        call,
        requested: args.page,
        reload: args.reload.unwrap_or(true),
        auto_stop: args.auto_stop.unwrap_or(true),
        ignore_cache: args.ignore_cache.unwrap_or(false),
        file_path: args.file_path,
        roots: Roots::of(cx, call),
        page: PageId::NONE,
        session: String::new(),
        url: String::new(),
    };
    // A failed stop of an orphan recording still leaves none running: the step goes on alike.
    reap(cx, start.then(|_| StartStep::Reaped));
}

/// One `performance_start_trace` call: the page emptied (about:blank) when it reloads,
/// tracing started, the page loaded again (cache off if asked), then the answer, or the stop
/// [`AUTO_STOP_AFTER`] later.
struct StartTrace {
    call: CallId,
    /// The page asked for (the selected one when `None`).
    requested: Option<PageId>,
    reload: bool,
    auto_stop: bool,
    ignore_cache: bool,
    /// Save the raw trace here (on the automatic stop).
    file_path: Option<String>,
    /// The client's roots as the call found the page, for the file.
    roots: Roots,
    /// The page traced, once found; its session and URL.
    page: PageId,
    session: String,
    url: String,
}

enum StartStep {
    /// An orphan recording was stopped, if there was one.
    Reaped,
    /// The page the call works on (a crashed page is an error).
    Page(Result<PageId, Error>),
    /// about:blank loaded, so that the trace sees the whole load of the page's URL.
    Blank(Result<(), Error>),
    /// `Tracing.start` answered.
    Started(Result<(), Error>),
    /// The page's URL loaded again, traced.
    Reloaded(Result<(), Error>),
    /// [`AUTO_STOP_AFTER`] has passed since the load.
    AutoStop,
}

impl Flow<Ctx> for StartTrace {
    type Step = StartStep;

    fn next(self, cx: &mut Ctx, step: StartStep) {
        match step {
            StartStep::Reaped => self.find_page(cx),
            StartStep::Page(Ok(page)) => self.blank(cx, page),
            StartStep::Blank(Ok(())) => self.trace(cx),
            StartStep::Started(Ok(())) => self.reload(cx),
            StartStep::Reloaded(r) => {
                self.set_cache_disabled(cx, false);
                match r {
                    Ok(()) => self.recording(cx),
                    Err(e) => self.give_up(cx, e),
                }
            }
            StartStep::AutoStop => {
                let stop = StopTrace::new(self.call, self.roots, self.file_path);
                stop.stop(cx, self.page)
            }
            StartStep::Page(Err(e)) => call::fail(cx, self.call, e),
            StartStep::Blank(Err(e)) | StartStep::Started(Err(e)) => self.give_up(cx, e),
        }
    }
}

impl StartTrace {
    /// One trace at a time, server-wide.
    fn find_page(mut self, cx: &mut Ctx) {
        if cx.performance.running.is_some() {
            return answer_line(cx, self.call, None, "Error: a performance trace is already running. Use performance_stop_trace to stop it. Only one trace can be running at any given time.");
        }
        self.roots = Roots::of(cx, self.call);
        let (call, requested) = (self.call, self.requested);
        call::live_page(cx, call, requested, self.then(StartStep::Page));
    }

    /// The recording is the call's from now on; a reload first empties the page.
    fn blank(mut self, cx: &mut Ctx, page: PageId) {
        self.page = page;
        if dialogs::refuse(cx, self.call, page) {
            return;
        }
        (self.session, self.url) = match cx.browser.pages.get(page) {
            Some(p) => (p.session.clone(), p.url.clone()),
            None => return call::fail(cx, self.call, Error::Invalid("The page is gone.".into())),
        };
        cx.performance.running = Some(Running {
            session: self.session.clone(),
            owner: Some(self.call),
            agent: call::agent(cx, self.call),
        });
        if !self.reload {
            return self.trace(cx);
        }
        let blank = self.then(StartStep::Blank);
        navigation::goto(cx, page, "about:blank".into(), NAVIGATION_TIMEOUT, blank);
    }

    fn trace(self, cx: &mut Ctx) {
        let session = self.session.clone();
        record::start(cx, &session, self.then(StartStep::Started));
    }

    /// Loads the page's URL again, traced (cache off if asked).
    fn reload(self, cx: &mut Ctx) {
        if !self.reload {
            return self.recording(cx);
        }
        self.set_cache_disabled(cx, true);
        let (page, url) = (self.page, self.url.clone());
        let reloaded = self.then(StartStep::Reloaded);
        navigation::goto(cx, page, url, NAVIGATION_TIMEOUT, reloaded);
    }

    fn set_cache_disabled(&self, cx: &mut Ctx, disabled: bool) {
        if self.ignore_cache {
            let params = cdp_network::SetCacheDisabledParams {
                cache_disabled: disabled,
            };
            crate::browser::fire(cx, Some(&self.session), params);
        }
    }

    /// The trace is recording: stop it after a while, or leave it to performance_stop_trace.
    fn recording(self, cx: &mut Ctx) {
        if !self.auto_stop {
            if let Some(r) = &mut cx.performance.running {
                r.owner = None;
            }
            return answer_line(
                cx,
                self.call,
                Some(self.page),
                "The performance trace is being recorded. Use performance_stop_trace to stop it.",
            );
        }
        // A timer has nothing to report but that it is due.
        let stop = self.then(|_: Result<(), Error>| StartStep::AutoStop);
        cx.after(AUTO_STOP_AFTER, move |cx| stop(cx, Ok(())));
    }

    /// A step failed: the call fails once nothing is recording any more.
    fn give_up(self, cx: &mut Ctx, e: Error) {
        match cx.performance.running.take() {
            Some(r) => abandon_and_fail(cx, &r.session, self.call, e),
            None => call::fail(cx, self.call, e),
        }
    }
}

// ---------------------------------------------------------------------------------------
// performance_stop_trace

fn stop_trace(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<StopArgs>(cx, call, args) else {
        return;
    };
    let stop = StopTrace::new(call, Roots::of(cx, call), args.file_path);
    stop.start(cx, args.page);
}

/// Stopping the recording, for `performance_stop_trace` or a start's automatic stop: the
/// browser ends it and hands over its stream, which is read into the file and the analyser;
/// the answer is the trace's summary.
struct StopTrace {
    call: CallId,
    /// The page asked for (the selected one when `None`).
    requested: Option<PageId>,
    /// The client's roots as the call found the page, for the file.
    roots: Roots,
    /// Save the raw trace here.
    file_path: Option<String>,
    /// The page the call works on, once found.
    page: PageId,
    /// The session that records.
    session: String,
    /// Where the trace goes, until the stream is read.
    capture: Option<Capture>,
    /// The CPU slowdown and network conditions the page was emulating, for the summary.
    throttling: (f64, Option<String>),
}

enum StopStep {
    /// An orphan recording was stopped, if there was one.
    Reaped,
    /// The page the call works on.
    Page(Result<PageId, Error>),
    /// The browser has ended the recording and holds the trace as a stream.
    Complete(Result<TracingCompleteEvent, Error>),
    /// The stream has been read to its end into the file and the analyser.
    Read(Result<Capture, Error>),
}

impl StopTrace {
    fn new(call: CallId, roots: Roots, file_path: Option<String>) -> StopTrace {
        StopTrace {
            call,
            requested: None,
            roots,
            file_path,
            page: PageId::NONE,
            session: String::new(),
            capture: None,
            throttling: (1.0, None),
        }
    }

    /// `performance_stop_trace` on page `requested` (the selected one when `None`).
    fn start(mut self, cx: &mut Ctx, requested: Option<PageId>) {
        self.requested = requested;
        // A failed stop of an orphan recording still leaves none running: the step goes on alike.
        reap(cx, self.then(|_| StopStep::Reaped));
    }
}

impl Flow<Ctx> for StopTrace {
    type Step = StopStep;

    fn next(self, cx: &mut Ctx, step: StopStep) {
        match step {
            StopStep::Reaped => self.find_page(cx),
            StopStep::Page(Ok(page)) => self.unless_dialog(cx, page),
            StopStep::Complete(Ok(complete)) => self.read(cx, complete.stream),
            StopStep::Read(Ok(capture)) => self.reply(cx, capture),
            StopStep::Page(Err(e)) | StopStep::Complete(Err(e)) | StopStep::Read(Err(e)) => {
                call::fail(cx, self.call, e)
            }
        }
    }
}

impl StopTrace {
    fn find_page(mut self, cx: &mut Ctx) {
        // Another agent's recording is none of this one's.
        let agent = call::agent(cx, self.call);
        let running = cx.performance.running.as_ref();
        if running.is_none_or(|r| r.agent != agent) {
            let line = "Error: no active performance trace recording to stop.";
            return answer_line(cx, self.call, None, line);
        }
        self.roots = Roots::of(cx, self.call);
        let (call, requested) = (self.call, self.requested);
        call::page(cx, call, requested, self.then(StopStep::Page));
    }

    /// An open dialog refuses `performance_stop_trace` (an automatic stop goes on).
    fn unless_dialog(self, cx: &mut Ctx, page: PageId) {
        if !dialogs::refuse(cx, self.call, page) {
            self.stop(cx, page)
        }
    }

    /// Takes the recording, opens the file, and ends the recording.
    fn stop(mut self, cx: &mut Ctx, page: PageId) {
        self.page = page;
        let agent = call::agent(cx, self.call);
        let Some(running) = cx.performance.running.take_if(|r| r.agent == agent) else {
            return call::fail(
                cx,
                self.call,
                "no active performance trace recording to stop.",
            );
        };
        let file = match self
            .file_path
            .take()
            .map(|f| files::create_at(&self.roots, &f))
        {
            Some(Ok(opened)) => Some(opened),
            Some(Err(failure)) => {
                let e = failure.text(|e| format!("Could not write the trace: {e}"));
                return abandon_and_fail(cx, &running.session, self.call, e);
            }
            None => None,
        };
        let emulation = cx.emulation.get(page);
        let cpu = emulation.and_then(|s| s.cpu_rate).unwrap_or(1.0);
        let network = emulation.and_then(|s| s.network.clone());
        self.throttling = (cpu, network);
        self.capture = Some(Capture::new(file));
        self.session = running.session;
        let session = self.session.clone();
        record::stop(cx, &session, self.then(StopStep::Complete));
    }

    /// Reads the trace's stream into the capture.
    fn read(mut self, cx: &mut Ctx, stream: Option<String>) {
        let (Some(handle), Some(capture)) = (stream, self.capture.take()) else {
            let e = Error::Page("The browser sent no trace stream.".into());
            return call::fail(cx, self.call, e);
        };
        let session = self.session.clone();
        StreamRead::new(session, handle, capture, self.then(StopStep::Read)).start(cx);
    }

    /// The summary, with the throttling the page ran under; the report is kept for
    /// `performance_analyze_insight`.
    fn reply(self, cx: &mut Ctx, capture: Capture) {
        let (path, mut report) = match capture.finish() {
            Ok(finished) => finished,
            Err(e) => return call::fail(cx, self.call, e),
        };
        let (cpu, network) = self.throttling;
        report.cpu_throttling = Some(cpu);
        report.network_throttling = network;
        summary_answer(cx, self.call, self.page, path, report);
    }
}

fn summary_answer(
    cx: &mut Ctx,
    call: CallId,
    page: PageId,
    path: Option<PathBuf>,
    report: trace::Report,
) {
    let mut resp = Response::for_page(page);
    if let Some(path) = path {
        resp.line(format!(
            "The raw trace data was saved to {}.",
            path.display()
        ));
    }
    resp.line("The performance trace has been stopped.");
    let summary = trace::summary(&report);
    resp.structured
        .insert("traceSummary".into(), Value::String(summary.clone()));
    resp.line(summary);
    let agent = call::agent(cx, call);
    cx.performance.last.insert(agent, report);
    finish(cx, call, resp);
}

// ---------------------------------------------------------------------------------------
// performance_analyze_insight

fn analyze_insight(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<AnalyzeArgs>(cx, call, args) else {
        return;
    };
    let agent = call::agent(cx, call);
    let pages = &cx.browser.pages;
    let page = (args.page.filter(|p| pages.get_for(agent, *p).is_some())).or(pages.selected(agent));
    let text = match cx.performance.last.get(&agent) {
        None => {
            "No recorded traces found. Record a performance trace so you have Insights to analyze."
                .to_owned()
        }
        Some(report) => match trace::insight(report, &args.insight_set_id, &args.insight_name) {
            Ok(text) | Err(text) => text,
        },
    };
    answer_line(cx, call, page, &text);
}
