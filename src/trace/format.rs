//! Numbers printed the way DevTools' formatters print them (JavaScript's number to string,
//! and `Intl.NumberFormat('en-US')` with narrow units and a no-break space before them).

use super::event::Bounds;

/// A number as JavaScript's `String(x)` prints it (for the magnitudes traces hold).
pub(super) fn js(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e21 {
        format!("{x:.0}")
    } else {
        format!("{x}")
    }
}

/// `{min: …µs, max: …µs}`.
pub(super) fn bounds(b: Bounds) -> String {
    format!("{{min: {}µs, max: {}µs}}", js(b.min), js(b.max))
}

/// JavaScript's `Math.round`: halves go up.
pub(super) fn round(x: f64) -> f64 {
    (x + 0.5).floor()
}

/// An integer with en-US grouping (`1,043`).
fn grouped(x: f64) -> String {
    let digits = format!("{:.0}", x.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if x < 0.0 && digits != "0" {
        out.insert(0, '-');
    }
    out
}

/// DevTools' `millis`: whole ms with grouping, one decimal below 1 ms.
pub(super) fn millis(ms: f64) -> String {
    if !ms.is_finite() {
        return "-".into();
    }
    if ms < 1.0 {
        let tenths = (ms * 10.0).round() / 10.0;
        return format!("{}\u{a0}ms", js(tenths));
    }
    format!("{}\u{a0}ms", grouped(ms.round()))
}

/// DevTools' `micros`: µs below 100 µs, else as `millis`.
pub(super) fn micros(us: f64) -> String {
    if !us.is_finite() {
        return "-".into();
    }
    if us < 100.0 {
        return format!("{}\u{a0}μs", grouped(us.round()));
    }
    millis(us / 1000.0)
}

/// DevTools' `bytes`: B, kB or MB (powers of 1000), at most one decimal, a no-break space
/// before the unit.
pub(super) fn bytes(x: f64) -> String {
    let (value, unit) = if x < 1000.0 {
        (x.round(), "B")
    } else if x < 1_000_000.0 {
        ((x / 100.0).round() / 10.0, "kB")
    } else {
        ((x / 100_000.0).round() / 10.0, "MB")
    };
    let tenths = (value.fract() * 10.0).round();
    let whole = grouped(value.trunc());
    if tenths == 0.0 {
        format!("{whole}\u{a0}{unit}")
    } else {
        format!("{whole}.{tenths}\u{a0}{unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_devtools_prints_them() {
        assert_eq!(js(10206954729.0), "10206954729");
        assert_eq!(js(1.5), "1.5");
        assert_eq!(grouped(1003.0), "1,003");
        assert_eq!(grouped(1234567.0), "1,234,567");
        assert_eq!(grouped(27.0), "27");
        assert_eq!(micros(27064.0), "27\u{a0}ms");
        assert_eq!(micros(1003142.0), "1,003\u{a0}ms");
        assert_eq!(micros(500.0), "0.5\u{a0}ms");
        assert_eq!(micros(42.4), "42\u{a0}μs");
        assert_eq!(round(2.5), 3.0);
        assert_eq!(round(-2.5), -2.0);
        assert_eq!(bytes(3202.0), "3.2\u{a0}kB");
        assert_eq!(bytes(999.0), "999\u{a0}B");
        assert_eq!(bytes(1_000.0), "1\u{a0}kB");
        assert_eq!(bytes(2_345_678.0), "2.3\u{a0}MB");
    }
}
