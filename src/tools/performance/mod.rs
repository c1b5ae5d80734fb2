//! `performance_start_trace`, `performance_stop_trace`, `performance_analyze_insight`: a
//! performance trace of the page, summarised with Core Web Vitals and DevTools' insights
//! by the streaming analyser (`crate::trace`), as chrome-devtools-mcp answers.
//!
//! One trace runs at a time, server-wide. A recording whose call failed or went away
//! (cancelled, timed out) is stopped: at once on a failed step, or by the next performance
//! call when the call that owned it is gone.

mod record;

use crate::tools::args::Schema;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use crate::settings::Category;
use serde_json::{json, Value};

use crate::browser::{self, navigation, Host, PageId};
use crate::cdp::generated::network as cdp_network;
use crate::error::Error;
use crate::tools::args::{max, Shared};
use crate::tools::files::{self as tool_files, Roots};
use crate::tools::response::{finish, Response};
use crate::tools::{call, dialogs, fail, CallId, Ctx, Tool};
use crate::trace;

use record::Capture;

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "performance_start_trace",
        description: "Trace the page's performance (default: reload, stop 5 s after load). Returns Core Web Vitals (LCP, INP, CLS) and insights.",
        args: Schema {
            properties: || {
            json!({
                "reload": {"type": "boolean", "default": true, "description": "Reload once tracing runs."},
                "autoStop": {"type": "boolean", "default": true, "description": "Stop 5 s after load; else use performance_stop_trace."},
                "ignoreCache": {"type": "boolean", "description": "Cold reload."},
                "filePath": file_path_schema(),
            })
        },
            required: &[],
        },
        category: Category::Performance,
        read_only: false,
        page_scoped: true,
        run: start_trace,
    },
    Tool {
        name: "performance_stop_trace",
        description: "Stop the trace; returns its summary.",
        args: Schema {
            properties: || json!({"filePath": file_path_schema()}),
            required: &[],
        },
        category: Category::Performance,
        read_only: false,
        page_scoped: true,
        run: stop_trace,
    },
    Tool {
        name: "performance_analyze_insight",
        description: "One insight of the last trace, in detail.",
        args: Schema {
            properties: || {
            json!({
                "insightSetId": {"type": "string", "maxLength": max::UID, "description": "e.g. NAVIGATION_0"},
                "insightName": {"type": "string", "maxLength": max::UID, "description": "e.g. LCPBreakdown"},
            })
        },
            required: &["insightSetId", "insightName"],
        },
        category: Category::Performance,
        read_only: true,
        page_scoped: true,
        run: analyze_insight,
    },
];

fn file_path_schema() -> Value {
    json!({"type": "string", "maxLength": max::PATH, "description": "Save the raw trace (.json or .json.gz)."})
}

/// How long after the load an automatic stop comes (as the reference waits).
const AUTO_STOP_AFTER: Duration = Duration::from_secs(5);
/// Each of the reload's two navigations.
const NAVIGATION_TIMEOUT: Duration = Duration::from_secs(60);

/// The one recording, and the last trace's report.
#[derive(Default)]
pub struct State {
    running: Option<Running>,
    last: Option<trace::Report>,
}

struct Running {
    session: String,
    /// The call that records and will stop it itself (autoStop), while it runs.
    owner: Option<CallId>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StartArgs {
    #[serde(flatten)]
    shared: Shared,
    #[serde(default = "yes")]
    reload: bool,
    #[serde(default = "yes")]
    auto_stop: bool,
    #[serde(default)]
    ignore_cache: bool,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AnalyzeArgs {
    #[serde(flatten)]
    shared: Shared,
    insight_set_id: String,
    insight_name: String,
}

/// A recording whose owning call ended without stopping it is stopped first; then `then`.
fn reap(cx: &mut Ctx, then: Box<dyn FnOnce(&mut Ctx)>) {
    let orphan = match &cx.performance.running {
        Some(Running {
            owner: Some(owner), ..
        }) => !cx.calls.contains(*owner),
        _ => false,
    };
    match cx.performance.running.take() {
        Some(r) if orphan => record::abandon(cx, &r.session, Box::new(move |cx, _| then(cx))),
        running => {
            cx.performance.running = running;
            then(cx)
        }
    }
}

fn answer_line(cx: &mut Ctx, call: CallId, page: Option<PageId>, line: &str) {
    let mut resp = page.map_or_else(Response::default, Response::for_page);
    resp.line(line);
    finish(cx, call, resp);
}

fn start_trace(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = crate::tools::call::args::<StartArgs>(cx, call, args) else {
        return;
    };
    reap(cx, Box::new(move |cx| start_checked(cx, call, args)));
}

fn start_checked(cx: &mut Ctx, call: CallId, args: StartArgs) {
    if cx.performance.running.is_some() {
        return answer_line(cx, call, None, "Error: a performance trace is already running. Use performance_stop_trace to stop it. Only one trace can be running at any given time.");
    }
    let roots = Roots::of(cx);
    call::on_live_page(cx, call, args.shared.page(), move |cx, page| {
        if dialogs::refuse(cx, call, page) {
            return;
        }
        let (session, url) = match cx.browser.pages.get(page) {
            Some(p) => (p.session.clone(), p.url.clone()),
            None => return fail(cx, call, Error::Invalid("The page is gone.".into())),
        };
        cx.performance.running = Some(Running {
            session: session.clone(),
            owner: Some(call),
        });
        let plan = Plan {
            call,
            page,
            session,
            url,
            args,
            roots,
        };
        if plan.args.reload {
            let done = Box::new(move |cx: &mut Ctx, r: crate::error::Result<()>| match r {
                Ok(()) => begin(cx, plan),
                Err(e) => give_up(cx, plan.call, e),
            });
            navigation::goto(cx, page, "about:blank".into(), NAVIGATION_TIMEOUT, done);
        } else {
            begin(cx, plan);
        }
    });
}

/// A start call's settings, carried through its steps.
struct Plan {
    call: CallId,
    page: PageId,
    session: String,
    url: String,
    args: StartArgs,
    roots: Roots,
}

/// A step failed: the call fails once nothing is recording any more.
fn give_up(cx: &mut Ctx, call: CallId, e: Error) {
    match cx.performance.running.take() {
        Some(r) => record::abandon(cx, &r.session, Box::new(move |cx, _| fail(cx, call, e))),
        None => fail(cx, call, e),
    }
}

/// Tracing starts; then the reload (cache off if asked), then the stop or the answer.
fn begin(cx: &mut Ctx, plan: Plan) {
    let session = plan.session.clone();
    record::start(
        cx,
        &session,
        Box::new(move |cx, r| {
            if let Err(e) = r {
                return give_up(cx, plan.call, e);
            }
            if !plan.args.reload {
                return recording(cx, plan);
            }
            set_cache_disabled(cx, &plan, true);
            let (page, url) = (plan.page, plan.url.clone());
            let done = Box::new(move |cx: &mut Ctx, r: crate::error::Result<()>| {
                set_cache_disabled(cx, &plan, false);
                match r {
                    Ok(()) => recording(cx, plan),
                    Err(e) => give_up(cx, plan.call, e),
                }
            });
            navigation::goto(cx, page, url, NAVIGATION_TIMEOUT, done);
        }),
    );
}

fn set_cache_disabled(cx: &mut Ctx, plan: &Plan, disabled: bool) {
    if plan.args.ignore_cache {
        let params = cdp_network::SetCacheDisabledParams {
            cache_disabled: disabled,
        };
        browser::fire(cx, Some(&plan.session), params);
    }
}

/// The trace is recording: stop it after a while, or leave it to performance_stop_trace.
fn recording(cx: &mut Ctx, plan: Plan) {
    if !plan.args.auto_stop {
        if let Some(r) = &mut cx.performance.running {
            r.owner = None;
        }
        return answer_line(
            cx,
            plan.call,
            Some(plan.page),
            "The performance trace is being recorded. Use performance_stop_trace to stop it.",
        );
    }
    cx.after(AUTO_STOP_AFTER, move |cx| {
        let file = plan.args.shared.file_path.clone();
        stop_and_answer(cx, plan.call, plan.page, &plan.roots, file);
    });
}

fn stop_trace(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = crate::tools::call::args::<Shared>(cx, call, args) else {
        return;
    };
    reap(cx, Box::new(move |cx| stop_checked(cx, call, args)));
}

fn stop_checked(cx: &mut Ctx, call: CallId, args: Shared) {
    if cx.performance.running.is_none() {
        return answer_line(
            cx,
            call,
            None,
            "Error: no active performance trace recording to stop.",
        );
    }
    let roots = Roots::of(cx);
    call::on_page(cx, call, args.page(), move |cx, page| {
        if dialogs::refuse(cx, call, page) {
            return;
        }
        stop_and_answer(cx, call, page, &roots, args.file_path);
    });
}

/// Stops the recording, streams the trace to `file` and the analyser, and answers with the
/// summary.
fn stop_and_answer(cx: &mut Ctx, call: CallId, page: PageId, roots: &Roots, file: Option<String>) {
    let Some(running) = cx.performance.running.take() else {
        return fail(cx, call, "no active performance trace recording to stop.");
    };
    let file = match file.map(|f| tool_files::create_at(roots, &f)) {
        Some(Ok(opened)) => Some(opened),
        Some(Err(failure)) => {
            let e = failure.text(|e| format!("Could not write the trace: {e}"));
            let then = Box::new(move |cx: &mut Ctx, _| fail(cx, call, e));
            return record::abandon(cx, &running.session, then);
        }
        None => None,
    };
    let cpu = cx
        .emulation
        .get(page)
        .and_then(|s| s.cpu_rate)
        .unwrap_or(1.0);
    let network = cx.emulation.get(page).and_then(|s| s.network.clone());
    record::stop(
        cx,
        &running.session,
        Capture::new(file),
        Box::new(move |cx, r| match r {
            Ok((path, mut report)) => {
                report.cpu_throttling = Some(cpu);
                report.network_throttling = network;
                summary_answer(cx, call, page, path, report)
            }
            Err(e) => fail(cx, call, e),
        }),
    );
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
    cx.performance.last = Some(report);
    finish(cx, call, resp);
}

fn analyze_insight(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = crate::tools::call::args::<AnalyzeArgs>(cx, call, args) else {
        return;
    };
    let page = args.shared.page().or(cx.browser.pages.selected);
    let text = match &cx.performance.last {
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
