//! Numbers written as the reference writes them: it is JavaScript, so an answer that prints
//! a number prints `String(n)`. Shared by the snapshot's values, the emulation's lines and the heap snapshot's answers.

/// A number as JavaScript prints it (`String(n)`): no ".0" on integers, exponent notation
/// outside 1e-6..1e21, NaN and Infinity by name. (A JSON number goes through `f64` as in
/// JavaScript: integers beyond 2^53 print rounded, as there.)
pub(crate) fn js_number(n: f64) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

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
