//! The MCP lifecycle and request dispatch: `initialize`, `ping`, `tools/list`, `tools/call`,
//! cancellation. Every request is answered (or, when cancelled, deliberately not), and a bad
//! line is answered with an error while the server carries on.

use std::time::Duration;

use serde_json::{json, Value};

use super::jsonrpc::{self, Incoming, INVALID_PARAMS, METHOD_NOT_FOUND};
use super::result::ToolResult;
use crate::app::App;
use crate::log::log;
use crate::tools;

pub const SERVER_NAME: &str = "devtools-mcp";
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

pub fn handle_line(app: &mut App, line: &[u8]) {
    match jsonrpc::parse_line(line) {
        Incoming::Invalid { id, code, message } => {
            log!("rejected a line from the client: {message}");
            app.send(jsonrpc::error(&id, code, &message));
        }
        Incoming::Response { id, result } => {
            if !super::roots::on_response(app, &id, result) {
                log!("ignored a response from the client to no request of ours (id {id})");
            }
        }
        Incoming::Notification { method, params } => match method.as_str() {
            "notifications/initialized" => {
                app.session.initialized = true;
                super::roots::ask(app);
            }
            "notifications/roots/list_changed" => super::roots::ask(app),
            "notifications/cancelled" => {
                if let Some(call) = app.calls.find_rpc(&params["requestId"]) {
                    cancel(app, call);
                }
            }
            _ => {}
        },
        Incoming::Request { id, method, params } => handle_request(app, id, &method, params),
    }
}

fn handle_request(app: &mut App, id: Value, method: &str, params: Value) {
    match method {
        "initialize" => {
            let version = super::negotiate(params["protocolVersion"].as_str());
            app.session.protocol_version = Some(version.to_string());
            app.session.roots_capable = params["capabilities"]["roots"].is_object();
            let result = json!({
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": true}},
                "serverInfo": {"name": SERVER_NAME, "title": "devtools-mcp", "version": SERVER_VERSION},
            });
            app.send(jsonrpc::response(&id, result));
        }
        "ping" => app.send(jsonrpc::response(&id, json!({}))),
        "tools/list" => {
            let result = json!({"tools": tools::list(app)});
            app.send(jsonrpc::response(&id, result));
        }
        "tools/call" => {
            let Some(name) = params["name"].as_str() else {
                let msg = "tools/call needs a string \"name\"";
                app.send(jsonrpc::error(&id, INVALID_PARAMS, msg));
                return;
            };
            let args = match &params["arguments"] {
                Value::Null => json!({}),
                Value::Object(_) => params["arguments"].clone(),
                _ => {
                    let msg = "tools/call \"arguments\" must be an object";
                    app.send(jsonrpc::error(&id, INVALID_PARAMS, msg));
                    return;
                }
            };
            if !super::roots::hold(app, &id, name, &args) {
                tools::call(app, id, name, args);
            }
        }
        _ => {
            let message = format!("Method not found: {method}");
            app.send(jsonrpc::error(&id, METHOD_NOT_FOUND, &message));
        }
    }
}

/// Answers a call and forgets it. A call that is already gone (cancelled, timed out) is
/// not answered twice.
pub fn finish(app: &mut App, call: u64, result: ToolResult) {
    let Some(c) = app.calls.remove(call) else {
        return;
    };
    if let Some(timer) = c.timer {
        app.timers.cancel(timer);
    }
    crate::browser::forget_owner(app, call);
    app.send(jsonrpc::response(&c.rpc_id, result.into_json()));
}

/// [`limit`] with the server's default time limit for calls that need the page
/// (`--toolTimeout`); `message` gets it in milliseconds.
pub fn limit_by_default(app: &mut App, call: u64, message: impl FnOnce(u128) -> String) {
    let after = app.settings.tool_timeout;
    limit(app, call, after, message(after.as_millis()));
}

/// Gives the call a time limit: when it passes, the call is answered with `message` as an
/// error, its pending work is dropped, and a page busy with its script is interrupted.
pub fn limit(app: &mut App, call: u64, after: Duration, message: String) {
    let timer = app.timers.add(
        after,
        (
            None,
            Box::new(move |app: &mut App| {
                let session = app.calls.get_mut(call).and_then(|c| c.page_session.clone());
                if let Some(c) = app.calls.get_mut(call) {
                    c.timer = None;
                }
                // Worded like every other failed call.
                tools::fail(app, call, message);
                if let Some(session) = session {
                    stop_page_script(app, &session);
                }
            }),
        ),
    );
    if let Some(c) = app.calls.get_mut(call) {
        if let Some(old) = c.timer.replace(timer) {
            app.timers.cancel(old);
        }
    }
}

/// A busy loop in the page would keep its main thread from ever answering again; stopping
/// the running script frees it. A pending promise is unaffected by this and is simply no
/// longer waited for.
fn stop_page_script(app: &mut App, session: &str) {
    crate::browser::send_raw(
        app,
        Some(session),
        "Runtime.terminateExecution",
        json!({}),
        Box::new(|_, _| {}),
    );
}

/// The client cancelled: stop waiting, drop the call's work, stop the page script it runs,
/// send no answer (as MCP says).
fn cancel(app: &mut App, call: u64) {
    if let Some(c) = app.calls.remove(call) {
        if let Some(timer) = c.timer {
            app.timers.cancel(timer);
        }
        crate::browser::forget_owner(app, call);
        if let Some(session) = &c.page_session {
            stop_page_script(app, session);
        }
        log!(
            "call {} ({}) cancelled by the client after {} ms",
            c.rpc_id,
            c.tool,
            c.started.elapsed().as_millis()
        );
    }
}
