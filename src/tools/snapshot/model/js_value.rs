//! JavaScript value semantics the output depends on: the reference is JavaScript, so its
//! truthiness, `String(value)` and `\s` decide what gets printed.

use serde_json::{Number, Value};

pub(super) use crate::numbers::js_number;

pub(super) fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(_)) | Some(Value::Object(_)) => true,
    }
}

/// A node's name as printed; empty when JavaScript would treat it as absent.
pub(super) fn js_name(v: Option<&Value>) -> String {
    if !truthy(v) {
        return String::new();
    }
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => json_number(n),
        Some(Value::Bool(b)) => b.to_string(),
        _ => String::new(),
    }
}

pub(super) fn js_string(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => json_number(n),
        Some(Value::Bool(b)) => b.to_string(),
        _ => String::new(),
    }
}

/// [`js_number`] of a JSON number.
pub(super) fn json_number(n: &Number) -> String {
    js_number(n.as_f64().unwrap_or(f64::NAN))
}

/// Removes what JavaScript's `\s` matches (not quite Rust's `char::is_whitespace`).
pub(super) fn strip_js_whitespace(s: &str) -> String {
    s.chars()
        .filter(|&c| {
            !matches!(c,
                '\u{9}'..='\u{d}' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'..='\u{200a}'
                | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}')
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_print_like_javascript() {
        let cases = [
            (json!(3), "3"),
            (json!(-7), "-7"),
            (json!(2.0), "2"),
            (json!(0.5), "0.5"),
            (json!(-0.0), "0"),
            (json!(1e21), "1e+21"),
            (json!(1.5e-7), "1.5e-7"),
            (json!(123456.789), "123456.789"),
            (json!(9007199254740993u64), "9007199254740992"),
        ];
        for (value, expected) in cases {
            let n = value.as_number().expect("number");
            assert_eq!(json_number(n), expected, "{value}");
        }
    }
}
