//! Running one page tool: its arguments checked against the schema compiled when the tool
//! arrived, the request to the shim's runner, the runner's ENVELOPE decoded, the elements a
//! result holds described for uids, and the text delivered (the rest of a truncated result
//! fetched for `filePath`). What needs snapshots (`{uid}` arguments, uids for returned
//! elements) is the caller's: a run takes remote objects and gives backend node ids.
//!
//! A run is two flows: [`InPage`] (the run's answer, then its elements described one by one)
//! and [`Delivery`] (the text inline, or whole in the file, fetched piece by piece).

use std::io::Write;

use serde_json::{json, Value};

use super::page_code::{exception_message, page_error};
use super::{split_envelope, table, PageHost};
use crate::browser::{self, pages, Done, Flow, PageId};
use crate::cdp::generated::{dom, runtime};
use crate::error::Error;
use crate::schema_problems;

/// The size of each further piece fetched from the page for `filePath` (UTF-16 units).
const PIECE_UNITS: u64 = 4_000_000;

/// Where an element is given in a tool's params (property names and array indices, as the
/// shim takes it), and what stands there: a `{uid}` before resolution, an object id after.
pub(crate) type Place = (Vec<Value>, String);

/// The file a result is written to: the path as the agent gave it (for the answer), and the
/// file the tools layer opened there.
pub(crate) type Output = Option<(String, std::fs::File)>;

/// One call of a page tool, its element arguments resolved to remote objects.
pub(crate) struct Run {
    pub page: PageId,
    pub tool: String,
    /// The arguments, as [`check`] accepted them.
    pub params: Value,
    /// Each element argument: where it goes in `params`, and its remote object id.
    pub elements: Vec<Place>,
    /// Write the whole result to this file instead of answering with it.
    pub output: Output,
}

/// How a run ended.
pub(crate) enum Outcome {
    /// The lines of the answer.
    Lines(Vec<String>),
    /// The result holds DOM elements: give each a uid, then [`render`] it.
    Elements(Returned),
}

/// A run whose result holds DOM elements, waiting for their uids.
pub(crate) struct Returned {
    /// Each element's backend node id, by its index in the result (`None`: not a node any
    /// more, or it could not be described).
    pub backend_ids: Vec<Option<i64>>,
    /// The run's id in the page, which holds its result and elements until released.
    run: Value,
    target: Target,
}

/// Where a run's text goes: the page that holds it, and the file, if any.
struct Target {
    page: PageId,
    session: String,
    output: Output,
}

/// Checks `params` against the tool's schema and finds the places that give an element as
/// `{uid}`. The page looks the tool up again by name when it runs it: its `execute` lives
/// only there, the name is the one handle both sides share, and both take the first
/// registration of a name (this lookup is for the schema, which the page does not check).
pub(crate) fn check<H: PageHost>(
    cx: &H,
    page: PageId,
    name: &str,
    params: &Value,
) -> Result<Vec<Place>, Error> {
    if cx.browser_ref().pages.get(page).is_none() {
        return Err(pages::no_such_page(page));
    }
    let Some(tool) = cx.tables_ref().get(page).and_then(|t| t.find(name)) else {
        return Err(Error::Invalid(format!("Tool {name} not found")));
    };
    let validator = tool.validator().map_err(|e| {
        Error::Invalid(format!(
            "Tool {name} cannot be run: its inputSchema is not a valid JSON Schema: {e}"
        ))
    })?;
    let problems = schema_problems::bounded(validator.iter_errors(params), |path, message| {
        format!("data{path} {message}")
    });
    if !problems.is_empty() {
        let problems = problems.join(", ");
        return Err(Error::Invalid(format!(
            "Invalid parameters for tool {name}: {problems}"
        )));
    }
    Ok(table::element_places(&tool.input_schema, params))
}

/// Runs the tool in the page; `done` gets the answer's lines, or the elements to give uids.
/// A run the page's navigation cut short marks its table: the next call waits for the new
/// document's tools.
pub(crate) fn start<H: PageHost>(cx: &mut H, mut run: Run, done: Done<H, Outcome>) {
    let Some(p) = cx.browser_ref().pages.get(run.page) else {
        return done(cx, Err(pages::no_such_page(run.page)));
    };
    let (session, context) = (p.session.clone(), p.context);
    if run.elements.is_empty() && context.is_none() {
        let none = "The page has no document to run tools in yet.";
        return done(cx, Err(Error::Page(none.into())));
    }
    // Even with filePath the first answer is capped: the rest is fetched in pieces, so no
    // single CDP message has to carry a huge result.
    let max_chars = cx.settings().max_result_bytes;
    let keys: Vec<Value> = run
        .elements
        .iter()
        .map(|(path, _)| match path.as_slice() {
            [key] => key.clone(),
            _ => Value::Array(path.clone()),
        })
        .collect();
    let options = json!({"elementKeys": keys, "maxChars": max_chars});
    let flow = InPage {
        target: Target {
            page: run.page,
            session: session.clone(),
            output: run.output.take(),
        },
        done,
        run: Value::Null,
        stashed: None,
        count: 0,
        backend_ids: Vec::new(),
    };
    let s = Some(session.as_str());
    match request(run, context, options) {
        Request::Call(call) => browser::send_then(cx, s, call, flow, |r| {
            Step::Answered(r.and_then(|a| envelope(a.result, a.exception_details)))
        }),
        Request::Evaluate(evaluate) => browser::send_then(cx, s, evaluate, flow, |r| {
            Step::Answered(r.and_then(|a| envelope(a.result, a.exception_details)))
        }),
    }
}

/// A run in the page: its answer, then, when its result holds elements, each element
/// described for its backend node id. [`InPage::next`] is the whole story.
struct InPage<H> {
    target: Target,
    done: Done<H, Outcome>,
    /// The run's id in the page.
    run: Value,
    /// The array of the run's elements, held in the page, and how many it holds.
    stashed: Option<String>,
    count: u64,
    backend_ids: Vec<Option<i64>>,
}

enum Step {
    /// The runner's envelope: its header and body.
    Answered(Result<(Value, String), Error>),
    /// The array of the result's elements, as a remote object (`None`: the page no longer
    /// holds them).
    Stashed(Result<Option<String>, Error>),
    /// The next element of that array, as a remote object.
    Element(Result<Option<String>, Error>),
    /// Its backend node id.
    Described(Result<i64, Error>),
}

impl<H: PageHost> Flow<H> for InPage<H> {
    type Step = Step;

    fn next(mut self, cx: &mut H, step: Step) {
        match step {
            Step::Answered(Ok((header, body))) => self.answered(cx, header, body),
            Step::Answered(Err(e)) => self.failed(cx, page_error(e)),
            // An element that cannot be had keeps no uid; the run goes on.
            Step::Stashed(r) => {
                self.stashed = r.ok().flatten();
                self.describe_next(cx)
            }
            Step::Element(Ok(Some(object))) => {
                let describe = dom::DescribeNodeParams {
                    object_id: Some(object),
                    ..Default::default()
                };
                let session = self.target.session.clone();
                browser::send_then(cx, Some(&session), describe, self, |r| {
                    Step::Described(r.map(|a| a.node.backend_node_id))
                });
            }
            Step::Element(_) | Step::Described(Err(_)) => {
                self.backend_ids.push(None);
                self.describe_next(cx)
            }
            Step::Described(Ok(id)) => {
                self.backend_ids.push(Some(id));
                self.describe_next(cx)
            }
        }
    }
}

impl<H: PageHost> InPage<H> {
    /// A run the page's navigation cut short marks its table: the next call waits for the
    /// new document's tools.
    fn failed(self, cx: &mut H, e: Error) {
        let page = self.target.page;
        if matches!(e, Error::PageGone(_)) && cx.browser_ref().pages.get(page).is_some() {
            cx.tables().entry(page).mark_navigating();
        }
        (self.done)(cx, Err(e))
    }

    /// The runner answered: an error, plain text to deliver, or a result holding elements.
    fn answered(mut self, cx: &mut H, header: Value, body: String) {
        cx.tables().entry(self.target.page).last_run = Some(table::Ran::of(&header, &body));
        if header["ok"] != true {
            return (self.done)(cx, Err(Error::Page(body)));
        }
        self.count = header["elements"].as_u64().unwrap_or(0);
        if self.count == 0 {
            let done = self.done;
            let lines = Box::new(move |cx: &mut H, r: Result<Vec<String>, Error>| {
                done(cx, r.map(Outcome::Lines))
            });
            return deliver(cx, self.target, &header, body, lines);
        }
        self.run = header["run"].clone();
        let request = runtime::EvaluateParams {
            expression: format!("window.__dtmcp.stashed({})", self.run),
            return_by_value: Some(false),
            ..Default::default()
        };
        let session = self.target.session.clone();
        browser::send_then(cx, Some(&session), request, self, |r| {
            Step::Stashed(r.map(|a| a.result.object_id))
        });
    }

    /// Asks for the next stashed element, or, when all are described, answers with them.
    fn describe_next(self, cx: &mut H) {
        let index = self.backend_ids.len() as u64;
        let Some(array) = self.stashed.clone().filter(|_| index < self.count) else {
            return self.described_all(cx);
        };
        let request = runtime::CallFunctionOnParams {
            function_declaration: "function(i) { return this[i]; }".into(),
            object_id: Some(array),
            arguments: Some(vec![by_value(json!(index))]),
            ..Default::default()
        };
        let session = self.target.session.clone();
        browser::send_then(cx, Some(&session), request, self, |r| {
            Step::Element(r.map(|a| a.result.object_id))
        });
    }

    fn described_all(self, cx: &mut H) {
        if let Some(array) = self.stashed {
            let release = runtime::ReleaseObjectParams { object_id: array };
            browser::fire(cx, Some(&self.target.session), release);
        }
        let returned = Returned {
            backend_ids: self.backend_ids,
            run: self.run,
            target: self.target,
        };
        (self.done)(cx, Ok(Outcome::Elements(returned)))
    }
}

/// The command that runs a tool through the shim's runner.
enum Request {
    Call(runtime::CallFunctionOnParams),
    Evaluate(runtime::EvaluateParams),
}

fn request(run: Run, context: Option<i64>, options: Value) -> Request {
    let Some((_, object)) = run.elements.first() else {
        // Without elements one expression is cheaper for the page than a function call
        // with arguments. The params travel as JSON text parsed by the shim's own
        // JSON.parse (an object literal would treat a "__proto__" key differently).
        return Request::Evaluate(runtime::EvaluateParams {
            expression: run_expression(&run.tool, &run.params, &options),
            context_id: context,
            await_promise: Some(true),
            return_by_value: Some(true),
            ..Default::default()
        });
    };
    // Elements are passed as remote objects, which only callFunctionOn takes.
    let object_id = Some(object.clone());
    let mut arguments = vec![by_value(json!(run.tool)), by_value(run.params)];
    arguments.push(by_value(options));
    arguments.extend(run.elements.iter().map(|(_, o)| by_object(o)));
    Request::Call(runtime::CallFunctionOnParams {
        function_declaration: "function(name, params, options, ...elements) { return window.__dtmcp.run(name, params, elements, options); }".into(),
        arguments: Some(arguments),
        object_id,
        await_promise: Some(true),
        return_by_value: Some(true),
        ..Default::default()
    })
}

/// The expression that runs page tool `tool` without element arguments. Public so that
/// `benches/calls.rs` times the page's share of a call on this very expression.
pub fn run_expression(tool: &str, params: &Value, options: &Value) -> String {
    let quoted = Value::String(params.to_string());
    format!(
        "window.__dtmcp.run({}, window.__dtmcp.parse({quoted}), [], {options})",
        Value::String(tool.to_owned())
    )
}

fn by_value(value: Value) -> runtime::CallArgument {
    runtime::CallArgument {
        value: Some(value),
        ..Default::default()
    }
}

fn by_object(object: &str) -> runtime::CallArgument {
    runtime::CallArgument {
        object_id: Some(object.to_owned()),
        ..Default::default()
    }
}

/// The runner's answer, split into its header and body (moved out of the message, not
/// copied: it can be a megabyte).
fn envelope(
    result: runtime::RemoteObject,
    exception: Option<runtime::ExceptionDetails>,
) -> Result<(Value, String), Error> {
    if let Some(ex) = exception {
        return Err(Error::Page(exception_message(&ex)));
    }
    match result.value {
        Some(Value::String(s)) => split_envelope(s),
        _ => Err(Error::Page(
            "The page's tool runner is missing (did the page replace window.__dtmcp?).".into(),
        )),
    }
}

/// Prints a run's result with each element's uid (by index; an element without one keeps
/// its `stashed-<i>` mark), and delivers it like any other result.
pub(crate) fn render<H: PageHost>(
    cx: &mut H,
    returned: Returned,
    uids: Vec<Value>,
    done: Done<H, Vec<String>>,
) {
    let Returned { run, target, .. } = returned;
    let request = runtime::EvaluateParams {
        expression: format!("window.__dtmcp.render({run}, {})", Value::Array(uids)),
        return_by_value: Some(true),
        ..Default::default()
    };
    let session = target.session.clone();
    browser::send(cx, Some(&session), request, move |cx, r| {
        match r
            .map_err(page_error)
            .and_then(|a| envelope(a.result, a.exception_details))
        {
            Ok((header, body)) => deliver(cx, target, &header, body, done),
            Err(e) => done(cx, Err(e)),
        }
    });
}

/// The last step of a run: the text inline (capped, with a marker) or whole in the file
/// (fetching what the first answer left out), then the page forgets what it kept for the run.
fn deliver<H: PageHost>(
    cx: &mut H,
    target: Target,
    header: &Value,
    body: String,
    done: Done<H, Vec<String>>,
) {
    if let Err(e) = pages::session_of(&cx.browser_ref().pages, target.page) {
        return done(cx, Err(e));
    }
    let truncated = header["truncated"] == true;
    // The shim keeps a run's text only when it was truncated or held elements; only then is
    // there anything to release (and a needless command would cost a write per call).
    let retained = truncated || header["elements"].as_u64().unwrap_or(0) > 0;
    let release = Release {
        session: target.session.clone(),
        run: header["run"].clone(),
        retained,
    };
    let total = header["totalChars"].as_u64().unwrap_or(0);
    if header["undefined"] == true {
        release.send(cx);
        return done(cx, Ok(vec!["Tool returned no result.".into()]));
    }
    let Some((path, mut file)) = target.output else {
        let mut lines = vec![body];
        if truncated {
            let cap = cx.settings().max_result_bytes;
            lines.push(format!(
                "[Result truncated: showing the first {cap} of {total} characters. Pass filePath to get the whole result.]"
            ));
        }
        release.send(cx);
        return done(cx, Ok(lines));
    };
    if let Err(e) = file.write_all(body.as_bytes()) {
        return done(cx, Err(could_not_write(&path, &e)));
    }
    if !truncated {
        release.send(cx);
        return done(cx, Ok(vec![format!("Tool result saved to {path}.")]));
    }
    let offset = body.encode_utf16().count() as u64;
    let rest = Rest {
        release,
        path,
        file,
        offset,
        total,
        done,
    };
    rest.fetch(cx);
}

fn could_not_write(path: &str, e: &dyn std::fmt::Display) -> Error {
    Error::Invalid(format!("Could not write {path}: {e}"))
}

/// Tells the page it may drop what it kept for a run (when it kept anything).
struct Release {
    session: String,
    run: Value,
    retained: bool,
}

impl Release {
    fn send<H: PageHost>(&self, cx: &mut H) {
        if !self.retained {
            return;
        }
        let expression = format!("window.__dtmcp && window.__dtmcp.release({})", self.run);
        let request = runtime::EvaluateParams {
            expression,
            ..Default::default()
        };
        browser::fire(cx, Some(&self.session), request);
    }
}

/// The rest of a truncated run's text, appended to the file one bounded piece per round
/// trip, so no single CDP message has to carry a result of any size.
struct Rest<H> {
    release: Release,
    path: String,
    file: std::fs::File,
    /// Where the next piece starts, in UTF-16 code units, as the page counts.
    offset: u64,
    total: u64,
    done: Done<H, Vec<String>>,
}

/// The next piece of the text (`None`: the page no longer holds it).
struct Piece(Result<Option<String>, Error>);

impl<H: PageHost> Flow<H> for Rest<H> {
    type Step = Piece;

    fn next(mut self, cx: &mut H, Piece(piece): Piece) {
        let text = match piece {
            Ok(Some(text)) => text,
            Ok(None) => {
                let gone = "the page no longer holds the rest of the result (did it navigate?)";
                let e = could_not_write(&self.path, &gone);
                return self.finish(cx, Err(e));
            }
            Err(e) => {
                let e = could_not_write(&self.path, &page_error(e));
                return self.finish(cx, Err(e));
            }
        };
        if let Err(e) = self.file.write_all(text.as_bytes()) {
            let e = could_not_write(&self.path, &e);
            return self.finish(cx, Err(e));
        }
        self.offset += text.encode_utf16().count() as u64;
        self.fetch(cx)
    }
}

impl<H: PageHost> Rest<H> {
    fn fetch(self, cx: &mut H) {
        if self.offset >= self.total {
            let saved = format!("Tool result saved to {}.", self.path);
            return self.finish(cx, Ok(vec![saved]));
        }
        let request = runtime::EvaluateParams {
            expression: format!(
                "window.__dtmcp.chunk({}, {PIECE_UNITS}, {})",
                self.offset, self.release.run
            ),
            return_by_value: Some(true),
            ..Default::default()
        };
        let session = self.release.session.clone();
        browser::send_then(cx, Some(&session), request, self, |r| {
            Piece(r.map(|a| match a.result.value {
                Some(Value::String(s)) if !s.is_empty() => Some(s),
                _ => None,
            }))
        });
    }

    fn finish(self, cx: &mut H, r: Result<Vec<String>, Error>) {
        self.release.send(cx);
        (self.done)(cx, r)
    }
}
