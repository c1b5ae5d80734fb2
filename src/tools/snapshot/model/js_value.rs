//! JavaScript value semantics the output depends on: the reference is JavaScript, so its
//! truthiness, `String(value)` and `\s` decide what gets printed.

use serde_json::{Number, Value};

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

/// A number as JavaScript prints it (`String(n)`): no ".0" on integers, exponent notation
/// outside 1e-6..1e21, NaN and Infinity by name. (A JSON number goes through `f64` as in
/// JavaScript: integers beyond 2^53 print rounded, as there.)
pub fn js_number(n: f64) -> String {
    if n.is_nan() {
        return "NaN".into();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if n == 0.0 {
        return "0".into();
    }
    let abs = n.abs();
    if (1e-6..1e21).contains(&abs) {
        return format!("{n}");
    }
    // Exponent form: Rust writes `1.5e21` / `1e-7`, JavaScript `1.5e+21` / `1e-7`.
    let e = format!("{n:e}");
    match e.split_once('e') {
        Some((mantissa, exp)) if !exp.starts_with('-') => format!("{mantissa}e+{exp}"),
        _ => e,
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

    #[test]
    fn special_numbers_print_like_javascript() {
        assert_eq!(js_number(2.0), "2");
        assert_eq!(js_number(2.5), "2.5");
        assert_eq!(js_number(-3.0), "-3");
        assert_eq!(js_number(-0.0), "0");
        assert_eq!(js_number(f64::NAN), "NaN");
        assert_eq!(js_number(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(js_number(1e21), "1e+21");
        assert_eq!(js_number(1.5e-7), "1.5e-7");
        assert_eq!(js_number(0.000001), "0.000001");
        assert_eq!(js_number(0.1 + 0.2), "0.30000000000000004");
    }
}
