//! Running one page tool: its arguments checked against the schema compiled when the tool
//! arrived, the request to the shim's runner, the runner's ENVELOPE decoded, the rest of a
//! truncated result fetched for `filePath`, and the elements a result holds handed back for
//! uids. What needs snapshots (`{uid}` arguments, uids for returned elements) is the
//! caller's: a run takes remote objects and gives backend node ids.

use std::io::Write;

use serde_json::{json, Value};

use super::page_code::{exception_message, page_error};
use super::{split_envelope, table, PageHost};
use crate::browser::{self, pages, Done, PageId};
use crate::cdp::generated::{dom, runtime};
use crate::error::Error;
use crate::schema_problems;

/// The size of each further piece fetched from the page for `filePath` (UTF-16 units).
const PIECE_UNITS: u64 = 4_000_000;

/// Where an element is given in a tool's params (property names and array indices, as the
/// shim takes it), and what stands there: a `{uid}` before resolution, an object id after.
pub type Place = (Vec<Value>, String);

/// One call of a page tool, its element arguments resolved to remote objects.
pub struct Run {
    pub page: PageId,
    pub tool: String,
    /// The arguments, as [`check`] accepted them.
    pub params: Value,
    /// Each element argument: where it goes in `params`, and its remote object id.
    pub elements: Vec<Place>,
    /// Write the whole result to this file instead of answering with it: the path as the
    /// agent gave it (for the answer), and the file the tools layer opened there.
    pub output: Option<(String, std::fs::File)>,
}

/// How a run ended.
pub enum Outcome {
    /// The lines of the answer.
    Lines(Vec<String>),
    /// The result holds DOM elements: give each a uid, then [`render`] it.
    Elements(Returned),
}

/// A run whose result holds DOM elements, waiting for their uids.
pub struct Returned {
    /// Each element's backend node id, by its index in the result (`None`: not a node any
    /// more, or it could not be described).
    pub backend_ids: Vec<Option<i64>>,
    run: Value,
    delivery: Delivery,
}

/// What the last step of a run needs to know.
struct Delivery {
    page: PageId,
    session: String,
    output: Option<(String, std::fs::File)>,
}

/// Checks `params` against the tool's schema and finds the places that give an element as
/// `{uid}`. The page looks the tool up again by name when it runs it: its `execute` lives
/// only there, the name is the one handle both sides share, and both take the first
/// registration of a name (this lookup is for the schema, which the page does not check).
pub fn check<H: PageHost>(
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

/// Runs the tool in the page. A run the page's navigation cut short marks its table: the
/// next call waits for the new document's tools.
pub fn start<H: PageHost>(cx: &mut H, mut run: Run, done: Done<H, Outcome>) {
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
    let page = run.page;
    let delivery = Delivery {
        page,
        session: session.clone(),
        output: run.output.take(),
    };
    let then = move |cx: &mut H, r: Result<(Value, String), Error>| match r {
        Ok((header, body)) => answer(cx, delivery, header, body, done),
        Err(e) => {
            if matches!(e, Error::PageGone(_)) && cx.browser_ref().pages.get(page).is_some() {
                cx.tables().entry(page).mark_navigating();
            }
            done(cx, Err(e))
        }
    };
    let s = Some(session.as_str());
    match request(run, context, options) {
        Request::Call(call) => {
            browser::send(cx, s, call, move |cx, r| {
                let r = r.map_err(page_error);
                then(cx, r.and_then(|a| envelope(a.result, a.exception_details)))
            });
        }
        Request::Evaluate(evaluate) => {
            browser::send(cx, s, evaluate, move |cx, r| {
                let r = r.map_err(page_error);
                then(cx, r.and_then(|a| envelope(a.result, a.exception_details)))
            });
        }
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

fn answer<H: PageHost>(
    cx: &mut H,
    delivery: Delivery,
    header: Value,
    body: String,
    done: Done<H, Outcome>,
) {
    if header["ok"] != true {
        return done(cx, Err(Error::Page(body)));
    }
    let count = header["elements"].as_u64().unwrap_or(0);
    if count == 0 {
        return deliver(cx, delivery, header, body, Box::new(lines_outcome(done)));
    }
    let run = header["run"].clone();
    let (session, r2) = (delivery.session.clone(), run.clone());
    element_backend_ids(cx, session, run, count, move |cx, backend_ids| {
        let returned = Returned {
            backend_ids,
            run: r2,
            delivery,
        };
        done(cx, Ok(Outcome::Elements(returned)))
    });
}

fn lines_outcome<H: PageHost>(
    done: Done<H, Outcome>,
) -> impl FnOnce(&mut H, Result<Vec<String>, Error>) {
    move |cx, r| done(cx, r.map(Outcome::Lines))
}

/// Prints a run's result with each element's uid (by index; an element without one keeps
/// its `stashed-<i>` mark), and delivers it like any other result.
pub fn render<H: PageHost>(
    cx: &mut H,
    returned: Returned,
    uids: Vec<Value>,
    done: Done<H, Vec<String>>,
) {
    let Returned { run, delivery, .. } = returned;
    let request = runtime::EvaluateParams {
        expression: format!("window.__dtmcp.render({run}, {})", Value::Array(uids)),
        return_by_value: Some(true),
        ..Default::default()
    };
    let session = delivery.session.clone();
    browser::send(cx, Some(&session), request, move |cx, r| {
        match r
            .map_err(page_error)
            .and_then(|a| envelope(a.result, a.exception_details))
        {
            Ok((header, body)) => deliver(cx, delivery, header, body, done),
            Err(e) => done(cx, Err(e)),
        }
    });
}

/// The last step of a run: the text inline (capped, with a marker) or whole in `filePath`
/// (fetching what the first answer left out), then the page forgets what it kept for the run.
fn deliver<H: PageHost>(
    cx: &mut H,
    delivery: Delivery,
    header: Value,
    body: String,
    done: Done<H, Vec<String>>,
) {
    if let Err(e) = pages::session_of(&cx.browser_ref().pages, delivery.page) {
        return done(cx, Err(e));
    }
    let truncated = header["truncated"] == true;
    // The shim keeps a run's text only when it was truncated or held elements; only then is
    // there anything to release (and a needless command would cost a write per call).
    let retained = truncated || header["elements"].as_u64().unwrap_or(0) > 0;
    let release = Release {
        session: delivery.session.clone(),
        run: header["run"].clone(),
        retained,
    };
    let total = header["totalChars"].as_u64().unwrap_or(0);
    if header["undefined"] == true {
        release.send(cx);
        return done(cx, Ok(vec!["Tool returned no result.".into()]));
    }
    let Some((path, mut file)) = delivery.output else {
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
    let saved = format!("Tool result saved to {path}.");
    let could_not =
        move |e: &dyn std::fmt::Display| Error::Invalid(format!("Could not write {path}: {e}"));
    if let Err(e) = file.write_all(body.as_bytes()) {
        return done(cx, Err(could_not(&e)));
    }
    if !truncated {
        release.send(cx);
        return done(cx, Ok(vec![saved]));
    }
    let piece = Piece {
        session: delivery.session,
        run: release.run.clone(),
        offset: body.encode_utf16().count() as u64,
        total,
    };
    write_rest(
        cx,
        piece,
        file,
        Box::new(move |cx, r| {
            release.send(cx);
            match r {
                Ok(()) => done(cx, Ok(vec![saved])),
                Err(e) => done(cx, Err(could_not(&e))),
            }
        }),
    );
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

/// Where the next piece of a truncated run's text starts.
struct Piece {
    session: String,
    run: Value,
    /// In UTF-16 code units, as the page counts.
    offset: u64,
    total: u64,
}

/// Appends the rest of a truncated run's text to `file`, one bounded piece per round trip,
/// so no single CDP message has to carry a result of any size.
fn write_rest<H: PageHost>(cx: &mut H, piece: Piece, mut file: std::fs::File, done: Done<H, ()>) {
    if piece.offset >= piece.total {
        return done(cx, Ok(()));
    }
    let request = runtime::EvaluateParams {
        expression: format!(
            "window.__dtmcp.chunk({}, {PIECE_UNITS}, {})",
            piece.offset, piece.run
        ),
        return_by_value: Some(true),
        ..Default::default()
    };
    let session = piece.session.clone();
    browser::send(cx, Some(&session), request, move |cx, r| {
        let text = match r {
            Ok(a) => match a.result.value {
                Some(Value::String(s)) if !s.is_empty() => s,
                _ => {
                    let gone = "the page no longer holds the rest of the result (did it navigate?)";
                    return done(cx, Err(Error::PageGone(gone.into())));
                }
            },
            Err(e) => return done(cx, Err(page_error(e))),
        };
        if let Err(e) = file.write_all(text.as_bytes()) {
            return done(cx, Err(Error::Invalid(e.to_string())));
        }
        let next = Piece {
            offset: piece.offset + text.encode_utf16().count() as u64,
            ..piece
        };
        write_rest(cx, next, file, done)
    });
}

/// The backend node ids of a run's stashed elements, by index (empty when the page no
/// longer holds them).
fn element_backend_ids<H: PageHost>(
    cx: &mut H,
    session: String,
    run: Value,
    count: u64,
    done: impl FnOnce(&mut H, Vec<Option<i64>>) + 'static,
) {
    let request = runtime::EvaluateParams {
        expression: format!("window.__dtmcp.stashed({run})"),
        return_by_value: Some(false),
        ..Default::default()
    };
    let s2 = session.clone();
    browser::send(cx, Some(&session), request, move |cx, r| {
        let Some(array) = r.ok().and_then(|a| a.result.object_id) else {
            return done(cx, Vec::new());
        };
        let each = Stashed {
            session: s2,
            array,
            count,
        };
        describe_next(cx, each, Vec::new(), Box::new(move |cx, ids| done(cx, ids)));
    });
}

/// A run's stashed elements, as an array object held in the page.
struct Stashed {
    session: String,
    array: String,
    count: u64,
}

type Ids<H> = Box<dyn FnOnce(&mut H, Vec<Option<i64>>)>;

fn describe_next<H: PageHost>(cx: &mut H, s: Stashed, mut ids: Vec<Option<i64>>, done: Ids<H>) {
    let index = ids.len() as u64;
    if index >= s.count {
        let release = runtime::ReleaseObjectParams {
            object_id: s.array.clone(),
        };
        browser::fire(cx, Some(&s.session), release);
        return done(cx, ids);
    }
    let request = runtime::CallFunctionOnParams {
        function_declaration: "function(i) { return this[i]; }".into(),
        object_id: Some(s.array.clone()),
        arguments: Some(vec![by_value(json!(index))]),
        ..Default::default()
    };
    let session = s.session.clone();
    browser::send(cx, Some(&session), request, move |cx, r| {
        let Some(object) = r.ok().and_then(|a| a.result.object_id) else {
            ids.push(None);
            return describe_next(cx, s, ids, done);
        };
        let describe = dom::DescribeNodeParams {
            object_id: Some(object),
            ..Default::default()
        };
        let session = s.session.clone();
        browser::send(cx, Some(&session), describe, move |cx, r| {
            ids.push(r.ok().map(|a| a.node.backend_node_id));
            describe_next(cx, s, ids, done)
        });
    });
}
