//! The few JavaScript behaviours DevTools' heap model leans on, so that names, filters and
//! lengths come out as they do there: `parseInt`, lengths in UTF-16 units, and the pattern
//! of a WeakMap ephemeron edge's name.

/// `parseInt(s, 10)`: leading white space, a sign, then the longest run of digits; `None`
/// where JavaScript gives NaN.
pub(crate) fn parse_int(s: &str) -> Option<f64> {
    let t = s.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    let (negative, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let value: f64 = t[..digits].parse().ok()?;
    Some(if negative { -value } else { value })
}

/// A string's length as JavaScript counts it.
pub(crate) fn length(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// A line terminator, which JavaScript's `.` does not match.
fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// For an edge name of the form `<n> / part of key (<k> @<id>) -> value (<v> @<id>) pair in
/// WeakMap (table @<table>)`: the part after the leading number (which identifies the
/// key–value pair) and the table's id.
pub(crate) fn weak_map_edge(name: &str) -> Option<(&str, f64)> {
    let digits = name.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let pair = &name[digits..];
    let rest = pair.strip_prefix(" / part of key (")?;
    let rest = rest.strip_suffix(')')?;
    let table_digits = rest.bytes().rev().take_while(u8::is_ascii_digit).count();
    if table_digits == 0 {
        return None;
    }
    let (rest, table) = rest.split_at(rest.len() - table_digits);
    let middle = rest.strip_suffix(" pair in WeakMap (table @")?;
    // `middle` is `<k> @<id>) -> value (<v> @<id>)`, each `<…>` free of line terminators.
    let middle = strip_id_suffix(middle.strip_suffix(')')?)?;
    let key_end = middle.match_indices(") -> value (").find_map(|(at, _)| {
        let key = strip_id_suffix(&middle[..at])?;
        let value = &middle[at + ") -> value (".len()..];
        (!key.contains(is_line_terminator) && !value.contains(is_line_terminator)).then_some(())
    });
    key_end?;
    Some((pair, table.parse().ok()?))
}

/// `s` without a trailing ` @<digits>`.
fn strip_id_suffix(s: &str) -> Option<&str> {
    let digits = s.bytes().rev().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    s[..s.len() - digits].strip_suffix(" @")
}

/// A property name as DevTools shows it in a plain object's class name: quoted as JSON when
/// it holds a comma, a quote or a brace.
pub(crate) fn property_name(name: &str) -> std::borrow::Cow<'_, str> {
    if name.contains([',', '\'', '"', '{', '}']) {
        serde_json::to_string(name).map_or(name.into(), Into::into)
    } else {
        name.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_int_is_javascripts() {
        assert_eq!(parse_int("12abc"), Some(12.0));
        assert_eq!(parse_int("  -3"), Some(-3.0));
        assert_eq!(parse_int("map"), None);
        assert_eq!(parse_int(""), None);
    }

    #[test]
    fn weak_map_edge_names() {
        let name = "12 / part of key (Object @5) -> value (Array @7) pair in WeakMap (table @99)";
        assert_eq!(weak_map_edge(name), Some((&name[2..], 99.0)));
        assert_eq!(
            weak_map_edge("12 / part of key (x @5) pair in WeakMap (table @9)"),
            None
        );
        assert_eq!(weak_map_edge("map"), None);
        let odd = "1 / part of key (a) -> value (b @1) -> value (c @2) pair in WeakMap (table @3)";
        // As the pattern's lazy key part: it may hold `) -> value (`.
        assert_eq!(weak_map_edge(odd).map(|m| m.1), Some(3.0));
    }

    #[test]
    fn property_names_quote_as_json() {
        assert_eq!(property_name("plain"), "plain");
        assert_eq!(property_name("a,b"), "\"a,b\"");
        assert_eq!(property_name("say \"hi\""), "\"say \\\"hi\\\"\"");
    }
}
