//! `list_3p_developer_tools` and `execute_3p_developer_tool`: the tools a page exposes.

use std::io::Write;

use serde_json::{json, Map, Value};

use super::response::{finish, Response};
use super::script::DialogPolicy;
use super::{fail, page_arg, Tool};
use crate::browser::{self, pages};
use crate::error::Error;
use crate::pagetools::{self, table};
use crate::tools::call;
use crate::tools::CallId;
use crate::tools::{Ctx, Done};

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "list_3p_developer_tools",
        description: "List the third-party developer tools the page exposes about itself (registered through the 'devtoolstooldiscovery' event): their groups, names, descriptions and input schemas.\n\
Run one with execute_3p_developer_tool, or from evaluate_script with `window.__dtmcp.executeTool(toolName, params)` \
(useful to compose tools, or when a tool returns values that are not JSON).",
        properties: || json!({}),
        required: &[],
        read_only: true,
        page_scoped: true,
        run: list_tools,
    },
    Tool {
        name: "execute_3p_developer_tool",
        description: "Run one of the page's third-party developer tools (see list_3p_developer_tools). Its params are checked against the tool's inputSchema first; elements are passed as {\"uid\": \"<uid from take_snapshot>\"}.",
        properties: || {
            json!({
                "toolName": {"type": "string", "description": "The name of the tool to run."},
                "params": {"type": "string", "description": "The tool's parameters as a JSON object, stringified."},
                "filePath": {"type": "string", "description": "Write the whole result to this file instead of returning it inline (no size cap)."},
                "timeout": {"type": "integer", "description": "Give up after this many milliseconds (default 25000, or the server's --toolTimeout)."},
            })
        },
        required: &["toolName"],
        read_only: false,
        page_scoped: true,
        run: execute_tool,
    },
];

fn list_tools(cx: &mut Ctx, call: CallId, args: Value) {
    pages::with_page(
        cx,
        page_arg(&args),
        Box::new(move |cx, r| match r {
            Err(e) => fail(cx, call, e),
            Ok(page) => finish(
                cx,
                call,
                Response {
                    list_tools: true,
                    say_no_tools: true,
                    ..Response::for_page(page)
                },
            ),
        }),
    );
}

/// Parses the `params` string as the reference does: absent → `{}`, else a JSON object.
pub fn parse_params(params: Option<&str>) -> Result<Map<String, Value>, String> {
    let Some(text) = params.filter(|t| !t.is_empty()) else {
        return Ok(Map::new());
    };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err("Failed to parse params as JSON: Parsed params is not an object".into()),
        Err(e) => Err(format!("Failed to parse params as JSON: {e}")),
    }
}

fn execute_tool(cx: &mut Ctx, call: CallId, args: Value) {
    let name = args["toolName"].as_str().unwrap_or("").to_owned();
    let params = match parse_params(args["params"].as_str()) {
        Ok(p) => Value::Object(p),
        Err(e) => return fail(cx, call, e),
    };
    let file_path = args["filePath"].as_str().map(str::to_owned);
    let timeout = match args["timeout"].as_i64() {
        Some(ms) if ms > 0 => std::time::Duration::from_millis(ms as u64),
        _ => cx.settings.tool_timeout,
    };
    call::limit(
        cx,
        call,
        timeout,
        format!(
            "Tool {name} timed out after {} ms without settling.",
            timeout.as_millis()
        ),
    );
    pages::with_page(
        cx,
        page_arg(&args),
        Box::new(move |cx, r| {
            let page = match r.and_then(|p| pages::not_crashed(&cx.browser.pages, p).map(|_| p)) {
                Ok(p) => p,
                Err(e) => return fail(cx, call, e),
            };
            pagetools::ensure_current(
                cx,
                page,
                Box::new(move |cx, _| run_tool(cx, call, page, name, params, file_path)),
            );
        }),
    );
}

/// Runs a page tool with already-parsed params: validation, elements, the call, the answer.
pub fn run_tool(
    cx: &mut Ctx,
    call: CallId,
    page: u32,
    name: String,
    params: Value,
    file_path: Option<String>,
) {
    if super::refuse_if_dialog(cx, call, page) {
        return;
    }
    if cx.browser.pages.get(page).is_none() {
        return fail(cx, call, pages::no_such_page(page));
    }
    let Some(tool) = cx.tables.get(page).and_then(|t| t.find(&name)) else {
        return fail(cx, call, format!("Tool {name} not found"));
    };
    let problems: Vec<String> = tool
        .validator
        .iter_errors(&params)
        .map(|e| {
            let path = e.instance_path().to_string();
            format!("data{path} {e}")
        })
        .collect();
    if !problems.is_empty() {
        return fail(
            cx,
            call,
            format!(
                "Invalid parameters for tool {name}: {}",
                problems.join(", ")
            ),
        );
    }
    let places = table::element_places(&tool.input_schema, &params);
    let (keys, uids): (Vec<Vec<Value>>, Vec<String>) = places.into_iter().unzip();
    super::snapshot::resolve_uids(
        cx,
        page,
        uids,
        Box::new(move |cx, r| match r {
            Err(e) => fail(cx, call, e),
            Ok(objects) => invoke(cx, call, page, name, params, keys, objects, file_path),
        }),
    );
}

/// The size of each further piece fetched from the page for `filePath` (UTF-16 units).
const PIECE_UNITS: u64 = 4_000_000;

#[allow(clippy::too_many_arguments)]
fn invoke(
    cx: &mut Ctx,
    call: CallId,
    page: u32,
    name: String,
    params: Value,
    element_keys: Vec<Vec<Value>>,
    objects: Vec<String>,
    file_path: Option<String>,
) {
    let Some(p) = cx.browser.pages.get(page) else {
        return fail(cx, call, pages::no_such_page(page));
    };
    let session = p.session.clone();
    let context = p.context;
    super::script::runs_page_code(cx, call, page, &session, DialogPolicy::Accept);
    let max_chars = cx.settings.max_result_bytes;
    let keys: Vec<Value> = element_keys
        .into_iter()
        .map(|path| {
            if path.len() == 1 {
                path[0].clone()
            } else {
                Value::Array(path)
            }
        })
        .collect();
    // Even with filePath the first answer is capped: the rest is fetched in pieces, so no
    // single CDP message has to carry a huge result.
    let options = json!({"elementKeys": keys, "maxChars": max_chars});
    let (method, request) = match (objects.first(), context) {
        // Elements are passed as remote objects, which only callFunctionOn takes.
        (Some(o), _) => {
            let mut arguments = vec![
                json!({"value": name}),
                json!({"value": params}),
                json!({"value": options}),
            ];
            arguments.extend(objects.iter().map(|o| json!({"objectId": o})));
            let request = json!({
                "functionDeclaration": "function(name, params, options, ...elements) { return window.__dtmcp.run(name, params, elements, options); }",
                "arguments": arguments,
                "objectId": o,
                "awaitPromise": true,
                "returnByValue": true,
            });
            ("Runtime.callFunctionOn", request)
        }
        // Otherwise one expression is cheaper for the page than a function call with
        // arguments. The params travel as JSON text parsed by the shim's own JSON.parse
        // (an object literal would treat a "__proto__" key differently).
        (None, Some(ctx)) => {
            let quoted = |v: &Value| Value::String(v.to_string()).to_string();
            let expression = format!(
                "window.__dtmcp.run({}, window.__dtmcp.parse({}), [], {options})",
                Value::String(name.clone()),
                quoted(&params)
            );
            let request = json!({
                "expression": expression,
                "contextId": ctx,
                "awaitPromise": true,
                "returnByValue": true,
            });
            ("Runtime.evaluate", request)
        }
        (None, None) => return fail(cx, call, "The page has no document to run tools in yet."),
    };
    browser::send_raw(
        cx,
        Some(&session),
        method,
        request,
        Box::new(move |cx, r| {
            let (header, body) = match envelope_text(r) {
                Ok(t) => t,
                Err(e) => {
                    if matches!(e, Error::PageGone(_)) && cx.browser.pages.get(page).is_some() {
                        cx.tables.entry(page).mark_navigating();
                    }
                    return fail(cx, call, e);
                }
            };
            answer(cx, call, page, header, body, file_path)
        }),
    );
}

/// The shim's answer, split into its header and body (moved out of the message, not copied:
/// it can be a megabyte).
fn envelope_text(r: Result<Value, Error>) -> Result<(Value, String), Error> {
    let mut v = r.map_err(crate::tools::script::page_error)?;
    if let Some(ex) = v.get("exceptionDetails") {
        return Err(Error::Page(crate::tools::script::exception_message(ex)));
    }
    match v["result"]["value"].take() {
        Value::String(s) => pagetools::split_envelope(s),
        _ => Err(Error::Page(
            "The page's tool runner is missing (did the page replace window.__dtmcp?).".into(),
        )),
    }
}

fn answer(
    cx: &mut Ctx,
    call: CallId,
    page: u32,
    header: Value,
    body: String,
    file_path: Option<String>,
) {
    if header["ok"] != true {
        return fail(cx, call, body);
    }
    let elements = header["elements"].as_u64().unwrap_or(0);
    let run = header["run"].clone();
    if elements > 0 {
        return with_element_uids(cx, call, page, run, elements, file_path);
    }
    deliver(cx, call, page, header, body, file_path, None);
}

/// The last step of a run: the text inline (capped, with a marker) or whole in `filePath`
/// (fetching what the first answer left out), then the page forgets what it kept for the run.
fn deliver(
    cx: &mut Ctx,
    call: CallId,
    page: u32,
    header: Value,
    body: String,
    file_path: Option<String>,
    snapshot: Option<String>,
) {
    let session = match pages::session_of(&cx.browser.pages, page) {
        Ok(s) => s,
        Err(e) => return fail(cx, call, e),
    };
    let run = header["run"].clone();
    let truncated = header["truncated"] == true;
    let piece = Piece {
        session: session.clone(),
        run: run.clone(),
        // Only a file write fetches the rest (no need to count a megabyte otherwise).
        offset: match (&file_path, truncated) {
            (Some(_), true) => body.encode_utf16().count() as u64,
            _ => 0,
        },
        total: header["totalChars"].as_u64().unwrap_or(0),
    };
    // The shim keeps a run's text only when it was truncated or held elements; only then is
    // there anything to release (and a needless command would cost a write per call).
    let retained = header["truncated"] == true || header["elements"].as_u64().unwrap_or(0) > 0;
    let release = move |cx: &mut Ctx| {
        if !retained {
            return;
        }
        browser::fire_raw(
            cx,
            Some(&session),
            "Runtime.evaluate",
            json!({"expression": format!("window.__dtmcp && window.__dtmcp.release({run})")}),
        );
    };
    let reply = move |cx: &mut Ctx, lines: Vec<String>| {
        let mut resp = Response::for_page(page);
        for line in lines {
            resp.line(line);
        }
        resp.snapshot = snapshot;
        crate::tools::script::take_dialog_notes(cx, call, page, &mut resp);
        finish(cx, call, resp);
    };
    if header["undefined"] == true {
        release(cx);
        return reply(cx, vec!["Tool returned no result.".into()]);
    }
    let Some(path) = file_path else {
        let mut lines = vec![body];
        if truncated {
            let cap = cx.settings.max_result_bytes;
            lines.push(format!(
                "[Result truncated: showing the first {cap} of {} characters. Pass filePath to get the whole result.]",
                piece.total
            ));
        }
        reply(cx, lines);
        return release(cx);
    };
    let mut file = match std::fs::File::create(&path) {
        Ok(f) => f,
        Err(e) => return fail(cx, call, format!("Could not write {path}: {e}")),
    };
    if let Err(e) = file.write_all(body.as_bytes()) {
        return fail(cx, call, format!("Could not write {path}: {e}"));
    }
    if !truncated {
        release(cx);
        return reply(cx, vec![format!("Tool result saved to {path}.")]);
    }
    write_rest(
        cx,
        piece,
        file,
        Box::new(move |cx, r| {
            release(cx);
            match r {
                Ok(()) => reply(cx, vec![format!("Tool result saved to {path}.")]),
                Err(e) => fail(cx, call, format!("Could not write {path}: {e}")),
            }
        }),
    );
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
fn write_rest(cx: &mut Ctx, piece: Piece, mut file: std::fs::File, done: Done<()>) {
    if piece.offset >= piece.total {
        return done(cx, Ok(()));
    }
    let expression = format!(
        "window.__dtmcp.chunk({}, {PIECE_UNITS}, {})",
        piece.offset, piece.run
    );
    let session = piece.session.clone();
    browser::send_raw(
        cx,
        Some(&session),
        "Runtime.evaluate",
        json!({"expression": expression, "returnByValue": true}),
        Box::new(move |cx, r| {
            let text = match r {
                Ok(v) => v["result"]["value"].as_str().map(str::to_owned),
                Err(e) => return done(cx, Err(crate::tools::script::page_error(e))),
            };
            let Some(text) = text.filter(|t| !t.is_empty()) else {
                let gone = "the page no longer holds the rest of the result (did it navigate?)";
                return done(cx, Err(Error::PageGone(gone.into())));
            };
            if let Err(e) = file.write_all(text.as_bytes()) {
                return done(cx, Err(Error::Invalid(e.to_string())));
            }
            let next = Piece {
                offset: piece.offset + text.encode_utf16().count() as u64,
                ..piece
            };
            write_rest(cx, next, file, done)
        }),
    );
}

/// The result holds DOM elements: take a snapshot, map each element to its uid, and print
/// the result with `{uid}` in their places, plus the snapshot (as the reference does).
fn with_element_uids(
    cx: &mut Ctx,
    call: CallId,
    page: u32,
    run: Value,
    count: u64,
    file_path: Option<String>,
) {
    let session = match pages::session_of(&cx.browser.pages, page) {
        Ok(s) => s,
        Err(e) => return fail(cx, call, e),
    };
    element_backend_ids(
        cx,
        session.clone(),
        run.clone(),
        count,
        Box::new(move |cx, r| {
            let backend_ids = r.unwrap_or_default();
            // Elements the accessibility tree leaves out still get a uid in the snapshot.
            let known: Vec<i64> = backend_ids.iter().flatten().copied().collect();
            super::snapshot::set_extra_elements(cx, page, known);
            super::snapshot::capture(
                cx,
                page,
                false,
                Box::new(move |cx, _| {
                    let (uids, section) = match cx.snapshots.latest(page) {
                        Some(snap) => (
                            backend_ids
                                .iter()
                                .enumerate()
                                .map(|(i, b)| match b.and_then(|b| snap.uid_for_backend(b)) {
                                    Some(uid) => json!(uid),
                                    None => json!(format!("stashed-{i}")),
                                })
                                .collect::<Vec<_>>(),
                            Some(crate::tools::snapshot::model::format_section(snap)),
                        ),
                        None => (Vec::new(), None),
                    };
                    browser::send_raw(
                        cx,
                        Some(&session),
                        "Runtime.evaluate",
                        json!({
                            "expression": format!("window.__dtmcp.render({run}, {})", Value::Array(uids)),
                            "returnByValue": true,
                        }),
                        Box::new(move |cx, r| {
                            let (header, body) = match envelope_text(r) {
                                Ok(x) => x,
                                Err(e) => return fail(cx, call, e),
                            };
                            deliver(cx, call, page, header, body, file_path, section);
                        }),
                    );
                }),
            );
        }),
    );
}

/// The backend node ids of a run's stashed elements, by index.
fn element_backend_ids(
    cx: &mut Ctx,
    session: String,
    run: Value,
    count: u64,
    done: Done<Vec<Option<i64>>>,
) {
    let s2 = session.clone();
    browser::send_raw(
        cx,
        Some(&session),
        "Runtime.evaluate",
        json!({"expression": format!("window.__dtmcp.stashed({run})"), "returnByValue": false}),
        Box::new(move |cx, r| {
            let Some(array) = r
                .ok()
                .and_then(|v| v["result"]["objectId"].as_str().map(str::to_owned))
            else {
                return done(cx, Ok(Vec::new()));
            };
            let mut ids = Vec::new();
            describe_next(cx, s2, array, 0, count, &mut ids, done);
        }),
    );
}

fn describe_next(
    cx: &mut Ctx,
    session: String,
    array: String,
    index: u64,
    count: u64,
    ids: &mut Vec<Option<i64>>,
    done: Done<Vec<Option<i64>>>,
) {
    if index >= count {
        browser::fire_raw(
            cx,
            Some(&session),
            "Runtime.releaseObject",
            json!({"objectId": array}),
        );
        return done(cx, Ok(std::mem::take(ids)));
    }
    let mut collected = std::mem::take(ids);
    let s2 = session.clone();
    browser::send_raw(
        cx,
        Some(&session),
        "Runtime.callFunctionOn",
        json!({"functionDeclaration": "function(i) { return this[i]; }", "objectId": array, "arguments": [{"value": index}]}),
        Box::new(move |cx, r| {
            let object = r
                .ok()
                .and_then(|v| v["result"]["objectId"].as_str().map(str::to_owned));
            let Some(object) = object else {
                collected.push(None);
                return describe_next(cx, s2, array, index + 1, count, &mut collected, done);
            };
            let s3 = s2.clone();
            browser::send_raw(
                cx,
                Some(&s2),
                "DOM.describeNode",
                json!({"objectId": object}),
                Box::new(move |cx, r| {
                    collected.push(r.ok().and_then(|v| v["node"]["backendNodeId"].as_i64()));
                    describe_next(cx, s3, array, index + 1, count, &mut collected, done);
                }),
            );
        }),
    );
}
