//! A tool as the registry keeps it: its name, description, argument schema, category and
//! handler, and how it is listed.

use serde_json::{json, Map, Value};

use super::args::{self, Schema};
use super::call::CallId;
use super::ctx::Ctx;
use crate::settings::Category;

pub(crate) struct Tool {
    pub name: &'static str,
    pub description: &'static str,
    /// The input schema's `properties` and `required`, from the tool's argument list.
    pub args: Schema,
    pub read_only: bool,
    /// The reference's category for the tool: its `--category<Name>` flag shows or hides it.
    pub category: Category,
    pub run: fn(&mut Ctx, CallId, Value),
}

impl Tool {
    /// Works on one page: takes an optional `pageId`.
    pub(crate) fn page_scoped(&self) -> bool {
        self.args.page_scoped
    }

    pub(crate) fn input_schema(&self) -> Value {
        let props = match (self.args.properties)() {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        let mut schema = json!({
            "type": "object",
            "properties": props,
            "additionalProperties": false,
        });
        if !self.args.required.is_empty() {
            schema["required"] = json!(self.args.required);
        }
        schema
    }

    pub(super) fn to_json(&self) -> Value {
        let mut schema = self.input_schema();
        unlisted_limits(&mut schema);
        // MCP's defaults say the rest: openWorldHint is true, and destructiveHint only means
        // something for a tool that is not read-only.
        let annotations = if self.read_only {
            json!({"readOnlyHint": true})
        } else {
            json!({"readOnlyHint": false, "destructiveHint": false})
        };
        json!({
            "name": self.name,
            "description": self.description,
            "inputSchema": schema,
            "annotations": annotations,
        })
    }
}

/// Takes out of a listed schema what the server enforces only to refuse runaway input: the
/// size caps of strings and lists, the ceilings of ids, counts, timeouts and coordinates (see
/// `args::max`), and `additionalProperties: false`. The check before each call still uses the
/// whole schema ([`Tool::input_schema`]); listing these would cost every client tokens on every
/// session and tell an agent nothing. Limits that mean something (a quality of 0–100, a
/// throttling rate of 1–20) stay.
fn unlisted_limits(schema: &mut Value) {
    let Value::Object(map) = schema else {
        return;
    };
    map.remove("maxLength");
    map.remove("maxItems");
    map.remove("additionalProperties");
    let ceilings = [
        args::max::ID as f64,
        args::max::COUNT as f64,
        args::max::TIMEOUT_MS as f64,
        args::max::COORD,
    ];
    let ceiling = map.get("maximum").and_then(Value::as_f64);
    if ceiling.is_some_and(|c| ceilings.contains(&c)) {
        map.remove("maximum");
        let floor = map.get("minimum").and_then(Value::as_f64);
        if floor.is_some_and(|f| f == 0.0 || f == -args::max::COORD) {
            map.remove("minimum");
        }
    }
    // Into the schemas below this one (not into the names of properties).
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        props.values_mut().for_each(unlisted_limits);
    }
    if let Some(items) = map.get_mut("items") {
        unlisted_limits(items);
    }
}
