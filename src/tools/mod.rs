//! The MCP tools. Each file holds one category; each tool's schema, description and handler
//! sit together in a [`Tool`]. This module lists them, checks arguments against their
//! schemas, and starts calls.

pub mod console;
pub mod emulation;
pub mod input;
pub mod network;
pub mod pages;
pub mod paths;
pub mod response;
pub mod screenshot;
pub mod script;
pub mod snapshot;
pub mod thirdparty;

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::{json, Map, Value};

use crate::app::App;
use crate::mcp::{jsonrpc, result::ToolResult, server};

pub struct Tool {
    pub name: &'static str,
    pub description: &'static str,
    /// The `properties` of the input schema (and `required`, via [`Tool::required`]).
    pub properties: fn() -> Value,
    pub required: &'static [&'static str],
    pub read_only: bool,
    /// Works on one page: takes an optional `pageId`.
    pub page_scoped: bool,
    pub run: fn(&mut App, u64, Value),
}

impl Tool {
    pub fn input_schema(&self) -> Value {
        let mut props = match (self.properties)() {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        if self.page_scoped {
            props.insert(
                "pageId".into(),
                json!({"type": "number", "description": "The page to work on (see list_pages). Defaults to the selected page."}),
            );
        }
        let mut schema = json!({
            "type": "object",
            "properties": props,
            "additionalProperties": false,
        });
        if !self.required.is_empty() {
            schema["required"] = json!(self.required);
        }
        schema
    }

    fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema(),
            "annotations": {
                "readOnlyHint": self.read_only,
                "destructiveHint": false,
                "openWorldHint": true,
            },
        })
    }
}

/// Every tool, in the order `tools/list` shows them.
pub fn all() -> impl Iterator<Item = &'static Tool> {
    pages::TOOLS
        .iter()
        .chain(script::TOOLS)
        .chain(snapshot::TOOLS)
        .chain(thirdparty::TOOLS)
        .chain(input::TOOLS)
        .chain(screenshot::TOOLS)
        .chain(emulation::TOOLS)
        .chain(console::TOOLS)
        .chain(network::TOOLS)
}

pub fn find(name: &str) -> Option<&'static Tool> {
    all().find(|t| t.name == name)
}

pub fn list(app: &App) -> Vec<Value> {
    let mut tools: Vec<Value> = all().map(Tool::to_json).collect();
    tools.extend(crate::thirdparty::exposed::list(app));
    tools
}

/// Compiled argument validators, one per tool, built on first use.
fn validators() -> &'static HashMap<&'static str, jsonschema::Validator> {
    static V: OnceLock<HashMap<&'static str, jsonschema::Validator>> = OnceLock::new();
    V.get_or_init(|| {
        all()
            .filter_map(|t| {
                jsonschema::validator_for(&t.input_schema())
                    .ok()
                    .map(|v| (t.name, v))
            })
            .collect()
    })
}

/// Names every way `args` break the tool's schema, or `None` when they fit.
pub fn check_args(tool: &Tool, args: &Value) -> Option<String> {
    let v = validators().get(tool.name)?;
    let errors: Vec<String> = v
        .iter_errors(args)
        .map(|e| {
            let path = e.instance_path().to_string();
            if path.is_empty() {
                e.to_string()
            } else {
                format!("{}: {e}", path.trim_start_matches('/'))
            }
        })
        .collect();
    if errors.is_empty() {
        None
    } else {
        Some(errors.join("; "))
    }
}

pub fn call(app: &mut App, rpc_id: Value, name: &str, args: Value) {
    let Some(tool) = find(name) else {
        if crate::thirdparty::exposed::call(app, &rpc_id, name, &args) {
            return;
        }
        // As the reference (and the MCP SDKs) do: a protocol error, not a tool result.
        let text = format!("Tool {name} not found");
        app.send(jsonrpc::error(&rpc_id, jsonrpc::INVALID_PARAMS, &text));
        return;
    };
    if let Some(problems) = check_args(tool, &args) {
        let text = format!("Input validation error: Invalid arguments for tool {name}: {problems}");
        app.send(jsonrpc::response(
            &rpc_id,
            ToolResult::error(text).into_json(),
        ));
        return;
    }
    let call = app.calls.start(rpc_id, tool.name);
    if let Some(message) = paths::refused(app, &args) {
        return fail(app, call, message);
    }
    app.run_as(Some(call), |app| (tool.run)(app, call, args));
}

/// Answers a call with an error. As in the reference, the message is the last line of the
/// text, after `Error: `; an empty message (a page threw an empty string) stays empty.
pub fn fail(app: &mut App, call: u64, err: impl std::fmt::Display) {
    server::finish(app, call, ToolResult::error(error_text(&err.to_string())));
}

pub fn error_text(message: &str) -> String {
    if message.is_empty() {
        String::new()
    } else {
        format!("Error: {message}")
    }
}

/// Answers the call as the reference words a call an open dialog blocks (the open-dialog
/// section, then the error) and returns true, when the page has a dialog open: until it is
/// handled, the browser holds every command that needs the page's main thread.
pub fn refuse_if_dialog(app: &mut App, call: u64, page: u32) -> bool {
    let Some(d) = app.browser.pages.get(page).and_then(|p| p.dialog.as_ref()) else {
        return false;
    };
    let text = format!(
        "{}\n{}",
        response::dialog_section(d),
        error_text(&format!("A dialog is open ({}: {}).", d.kind, d.message))
    );
    server::finish(app, call, ToolResult::error(text));
    true
}

/// Runs `then` with the page a call works on (`pageId`, else the selected page), or answers
/// the call with the error that kept it from getting one.
pub fn on_page(
    app: &mut App,
    call: u64,
    requested: Option<u32>,
    then: impl FnOnce(&mut App, u32) + 'static,
) {
    crate::browser::pages::with_page(
        app,
        requested,
        Box::new(move |app, r| match r {
            Ok(page) => then(app, page),
            Err(e) => fail(app, call, e),
        }),
    );
}

/// The optional `pageId` argument.
pub fn page_arg(args: &Value) -> Option<u32> {
    args["pageId"].as_f64().map(|n| n as u32)
}

/// A new page session: the tools that collect per-page state start collecting. (Called
/// while the page is paused before its first script, so nothing is missed.)
pub fn on_page_attached(app: &mut App, session: &str) {
    console::attach(app, session);
    network::attach(app, session);
}

/// An event on a page session, for tools that collect per-page state.
pub fn on_page_event(app: &mut App, session: &str, method: &str, params: &Value) {
    console::on_event(app, session, method, params);
    network::on_event(app, session, method, params);
}

/// The set of page tools changed (a page registered, lost or changed tools): clients that
/// show them are told to list tools again.
pub fn page_tools_changed(app: &mut App) {
    if app.session.initialized {
        app.notify("notifications/tools/list_changed", json!({}));
    }
}
