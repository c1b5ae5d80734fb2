//! Printed properties: which CDP properties a node prints after its role and name, under which
//! key, and how their values are read.

use super::js_value::truthy;
use serde_json::{Number, Value};
use std::collections::BTreeMap;

/// Printed as they are (strings, numbers, booleans).
const VALUES: [&str; 6] = [
    "value",
    "description",
    "keyshortcuts",
    "roledescription",
    "valuetext",
    "url",
];

/// Boolean states: kept whenever present, as their truthiness (`focused` not on the root).
const STATES: [&str; 11] = [
    "disabled",
    "expanded",
    "focused",
    "modal",
    "multiline",
    "multiselectable",
    "readonly",
    "required",
    "selected",
    "busy",
    "atomic",
];

/// `"true"`, `"mixed"` or anything else (false).
const TRISTATES: [&str; 2] = ["checked", "pressed"];

/// Numeric values, read like [`VALUES`].
const NUMBERS: [&str; 3] = ["level", "valuemax", "valuemin"];

/// Tokens: kept only when truthy and not the string `"false"`.
const TOKENS: [&str; 8] = [
    "autocomplete",
    "haspopup",
    "invalid",
    "orientation",
    "live",
    "relevant",
    "errormessage",
    "details",
];

/// A property value as JavaScript would see it. Values of other types are never printed, so
/// they are not kept.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Prop {
    Bool(bool),
    Num(Number),
    Str(String),
}

/// A property value kept for printing: strings, numbers and booleans only.
fn as_prop(v: Option<&Value>) -> Option<Prop> {
    match v? {
        Value::Bool(b) => Some(Prop::Bool(*b)),
        Value::Number(n) => Some(Prop::Num(n.clone())),
        Value::String(s) => Some(Prop::Str(s.clone())),
        _ => None,
    }
}

/// `(name, value.value)` of each entry in a payload's `properties`.
pub(super) fn properties(payload: &Value) -> impl Iterator<Item = (&str, Option<&Value>)> {
    payload
        .get("properties")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| {
            let name = p.get("name")?.as_str()?;
            Some((name, p.get("value").and_then(|v| v.get("value"))))
        })
}

/// A CDP node's properties, looked up by printed key. Property names compare lower-cased and
/// the last one wins; name, value and description come from the payload's own fields when it
/// has them.
pub(super) struct PropLookup<'a> {
    payload: &'a Value,
    listed: Vec<(&'a str, Option<&'a Value>)>,
}

impl<'a> PropLookup<'a> {
    pub(super) fn new(payload: &'a Value) -> PropLookup<'a> {
        PropLookup {
            payload,
            listed: properties(payload).collect(),
        }
    }

    /// `None`: absent; `Some(None)`: present without a value.
    pub(super) fn get(&self, key: &str) -> Option<Option<&'a Value>> {
        if matches!(key, "name" | "value" | "description") {
            if let Some(v) = self.payload.get(key) {
                return Some(v.get("value"));
            }
        }
        self.listed
            .iter()
            .rev()
            .find(|(name, _)| name.eq_ignore_ascii_case(key))
            .map(|(_, v)| *v)
    }

    /// The printable properties of a node with this role.
    pub(super) fn printed(&self, role: &str) -> BTreeMap<&'static str, Prop> {
        let mut props = BTreeMap::new();
        self.insert_values(&VALUES, &mut props);
        self.insert_states(role, &mut props);
        self.insert_tristates(&mut props);
        self.insert_values(&NUMBERS, &mut props);
        self.insert_tokens(&mut props);
        props
    }

    fn insert_values(&self, keys: &[&'static str], props: &mut BTreeMap<&'static str, Prop>) {
        for &key in keys {
            if let Some(prop) = self.get(key).and_then(as_prop) {
                props.insert(key, prop);
            }
        }
    }

    fn insert_states(&self, role: &str, props: &mut BTreeMap<&'static str, Prop>) {
        for key in STATES {
            if key == "focused" && role == "RootWebArea" {
                continue;
            }
            if let Some(v) = self.get(key) {
                props.insert(key, Prop::Bool(truthy(v)));
            }
        }
    }

    fn insert_tristates(&self, props: &mut BTreeMap<&'static str, Prop>) {
        for key in TRISTATES {
            if let Some(v) = self.get(key) {
                let prop = match v.and_then(Value::as_str) {
                    Some("mixed") => Prop::Str("mixed".into()),
                    Some("true") => Prop::Bool(true),
                    _ => Prop::Bool(false),
                };
                props.insert(key, prop);
            }
        }
    }

    fn insert_tokens(&self, props: &mut BTreeMap<&'static str, Prop>) {
        for key in TOKENS {
            let v = self.get(key).flatten();
            if !truthy(v) || v.and_then(Value::as_str) == Some("false") {
                continue;
            }
            if let Some(prop) = as_prop(v) {
                props.insert(key, prop);
            }
        }
    }
}
