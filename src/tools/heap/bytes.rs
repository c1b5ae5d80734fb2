//! Byte sizes and ranges as the reference's heap tools take them: `1024`, `1.5KiB`, `2MB`,
//! `1MB-2MB`, `-1MB`, `1MB-` (decimal and binary units; a single size is a minimum).

/// An inclusive range of bytes; no upper bound when `max` is `None`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct ByteRange {
    pub min: f64,
    pub max: Option<f64>,
}

fn unit(name: &str) -> Option<f64> {
    Some(match name.to_ascii_lowercase().as_str() {
        "b" | "byte" | "bytes" => 1.0,
        "k" | "kb" => 1e3,
        "kib" => 1024.0,
        "m" | "mb" => 1e6,
        "mib" => 1024.0 * 1024.0,
        "g" | "gb" => 1e9,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "t" | "tb" => 1e12,
        "tib" => 1024.0f64.powi(4),
        _ => return None,
    })
}

/// JavaScript's `Math.round`: halves up.
fn js_round(x: f64) -> f64 {
    (x + 0.5).floor()
}

/// `123`, `1.5 KB`: the number and its unit, as the pattern `^(\d+(?:\.\d+)?)\s*([a-zA-Z]+)?$`
/// splits it.
fn split(s: &str) -> Option<(&str, Option<&str>)> {
    let int = s.bytes().take_while(u8::is_ascii_digit).count();
    if int == 0 {
        return None;
    }
    let mut end = int;
    if let Some(frac) = s[int..].strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        end += 1 + digits;
    }
    let (number, rest) = s.split_at(end);
    let unit = rest.trim_start();
    if unit.is_empty() {
        return Some((number, None));
    }
    unit.bytes()
        .all(|b| b.is_ascii_alphabetic())
        .then_some((number, Some(unit)))
}

pub(super) fn parse_size(value: &str) -> Result<f64, String> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Err(format!("Invalid byte size: \"{value}\""));
    }
    let (number, unit_name) = split(trimmed).ok_or_else(|| {
        format!("Invalid byte size format: \"{value}\". Expected a number or format like \"1024\", \"1M\", \"1MB\", \"1G\", \"1GB\".")
    })?;
    let n: f64 = number
        .parse()
        .map_err(|_| format!("Invalid byte size: \"{value}\""))?;
    let Some(unit_name) = unit_name else {
        return Ok(js_round(n));
    };
    let multiplier = unit(unit_name).ok_or_else(|| {
        format!("Unknown unit \"{unit_name}\" in \"{value}\". Supported units: B, KB, KiB, MB, MiB, GB, GiB, TB, TiB.")
    })?;
    let bytes = js_round(n * multiplier);
    if !bytes.is_finite() {
        return Err(format!("Invalid byte size: \"{value}\""));
    }
    Ok(bytes)
}

pub(super) fn parse_range(value: &str) -> Result<ByteRange, String> {
    let trimmed = value.trim();
    if !trimmed.contains('-') {
        return Ok(ByteRange {
            min: parse_size(trimmed)?,
            max: None,
        });
    }
    let parts: Vec<&str> = trimmed.split('-').collect();
    if parts.len() != 2 {
        return Err(format!("Invalid byte size range: \"{value}\". Expected a size or range like \"1MB\", \"1MB-2MB\", \"-1MB\", or \"1MB-\"."));
    }
    let (low, high) = (parts[0].trim(), parts[1].trim());
    if low.is_empty() && high.is_empty() {
        return Err(format!(
            "Invalid byte size range: \"{value}\". At least one bound is required."
        ));
    }
    let min = if low.is_empty() {
        0.0
    } else {
        parse_size(low)?
    };
    let max = if high.is_empty() {
        None
    } else {
        Some(parse_size(high)?)
    };
    if max.is_some_and(|m| min > m) {
        return Err(format!("Invalid byte size range: \"{value}\". The lower bound must not exceed the upper bound."));
    }
    Ok(ByteRange { min, max })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_ranges_read_as_the_reference_reads_them() {
        assert_eq!(parse_size("1.5KiB"), Ok(1536.0));
        assert_eq!(parse_size(" 2 mb "), Ok(2e6));
        assert_eq!(parse_size("100"), Ok(100.0));
        assert!(parse_size("abc")
            .unwrap_err()
            .starts_with("Invalid byte size format"));
        assert!(parse_size("5 parsecs")
            .unwrap_err()
            .starts_with("Unknown unit \"parsecs\""));
        let r = parse_range("1KB-1MB").unwrap();
        assert_eq!((r.min, r.max), (1e3, Some(1e6)));
        assert_eq!(parse_range("-2kb").unwrap().max, Some(2e3));
        assert_eq!(parse_range("200-").unwrap().max, None);
        assert!(parse_range("2MB-1MB").unwrap_err().contains("lower bound"));
        assert!(parse_range("1-2-3")
            .unwrap_err()
            .contains("Expected a size or range"));
    }
}
