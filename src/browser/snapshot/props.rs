//! Printed properties: the values a node prints after its role and name.

use serde_json::{Number, Value};

/// A property value as JavaScript would see it. Values of other types are never printed, so
/// they are not kept.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Prop {
    Bool(bool),
    Num(Number),
    Str(String),
}

/// A property value kept for printing: strings, numbers and booleans only.
pub(super) fn as_prop(v: Option<&Value>) -> Option<Prop> {
    match v? {
        Value::Bool(b) => Some(Prop::Bool(*b)),
        Value::Number(n) => Some(Prop::Num(n.clone())),
        Value::String(s) => Some(Prop::Str(s.clone())),
        _ => None,
    }
}
