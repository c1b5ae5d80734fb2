//! How console messages read: an argument as a word of the message text, a stack trace as
//! `at <function> (<file>:<line>:<column>)` lines, and a script URL as DevTools names it.

use serde_json::Value;

use crate::cdp::generated::runtime::{
    CallFrame, RemoteObject, RemoteObjectSubtype, RemoteObjectType, StackTrace,
};
use crate::tools::text::cut;

/// Longest string kept from one message (text, one argument); longer ones are cut.
pub(super) const MAX_TEXT: usize = 10_000;
/// Stack trace lines kept per message (as many as the reference prints).
pub(super) const MAX_STACK_LINES: usize = 50;

/// Formatted stack trace lines (at most [`MAX_STACK_LINES`]) and how many there were; and
/// the trace itself while a frame of it is in a script with a source map, to be told again
/// once the map is loaded.
pub(super) struct Stack {
    pub(super) lines: Vec<String>,
    pub(super) total: usize,
    pub(super) raw: Option<Box<StackTrace>>,
}

/// How a frame reads when a source map places it (`None`: at its generated position).
pub(super) type FrameMap<'a> = &'a dyn Fn(&CallFrame) -> Option<String>;

/// No source map.
pub(super) fn generated(_: &CallFrame) -> Option<String> {
    None
}

const STACK_NOTE: &str = "Note: line and column numbers use 1-based indexing";

pub(super) fn stack_of(trace: &StackTrace) -> Stack {
    let mut lines = Vec::new();
    let total = stack_lines(trace, &mut lines, MAX_STACK_LINES, &generated);
    Stack {
        lines,
        total,
        raw: Some(Box::new(trace.clone())),
    }
}

/// A stack's lines with the frames its source maps place at their original positions.
pub(super) fn mapped(stack: &Stack, map: FrameMap<'_>) -> Option<Stack> {
    let raw = stack.raw.as_deref()?;
    let mut lines = Vec::new();
    let total = stack_lines(raw, &mut lines, MAX_STACK_LINES, map);
    Some(Stack {
        lines,
        total,
        raw: None,
    })
}

/// Appends the lines of a CDP `StackTrace` (frames, then each async parent under a
/// `--- <description> ---` rule), keeping at most `keep` lines in `out` overall. Returns
/// how many lines there were in all.
pub(super) fn stack_lines(
    trace: &StackTrace,
    out: &mut Vec<String>,
    keep: usize,
    map: FrameMap<'_>,
) -> usize {
    let line = |f: &CallFrame| map(f).unwrap_or_else(|| frame_line(f));
    let mut total = 0;
    let mut push = |line: String, out: &mut Vec<String>| {
        total += 1;
        if out.len() < keep {
            out.push(line);
        }
    };
    for f in &trace.call_frames {
        push(line(f), out);
    }
    let mut parent = trace.parent.as_deref();
    let mut depth = 0;
    while let Some(p) = parent.filter(|_| depth < 64) {
        if !p.call_frames.is_empty() {
            let name = p
                .description
                .as_deref()
                .filter(|d| !d.is_empty())
                .unwrap_or("async");
            let prefix = format!("--- {name} ");
            let rule = "-".repeat(40usize.saturating_sub(prefix.chars().count()));
            push(format!("{prefix}{rule}"), out);
            for f in &p.call_frames {
                push(line(f), out);
            }
        }
        parent = p.parent.as_deref();
        depth += 1;
    }
    total
}

/// A stack trace as text: at most [`MAX_STACK_LINES`] lines with a count of the rest, and
/// optionally the note that numbers are 1-based.
pub(super) fn stack_text(stack: &Stack, note: bool) -> String {
    let mut lines: Vec<String> = stack.lines.clone();
    if stack.total > lines.len() {
        lines.push(format!("... and {} more frames", stack.total - lines.len()));
    }
    if note {
        lines.push(STACK_NOTE.to_owned());
    }
    lines.join("\n")
}

/// `at <function> (<file>:<line>:<column>)`, 1-based, the file named as DevTools names it
/// (a script without a URL is `VM<script id>`).
fn frame_line(f: &CallFrame) -> String {
    let file = if f.url.is_empty() {
        format!("VM{}", f.script_id)
    } else {
        display_name(&f.url)
    };
    let line = f.line_number + 1;
    let column = f.column_number + 1;
    format!("at {} ({file}:{line}:{column})", f.function_name)
}

/// The short name DevTools gives a script's URL: its last path segment (with the query),
/// `(index)` for a bare origin, the whole string when it is not a `scheme://` URL; cut at
/// 100 characters.
pub(super) fn display_name(url: &str) -> String {
    let name = match split_url(url) {
        Some((path, query)) => {
            let last = last_path_component(path);
            if query.is_empty() {
                percent_decode(last).unwrap_or_else(|| last.to_owned())
            } else {
                format!("{last}?{query}")
            }
        }
        None => url.to_owned(),
    };
    if name.is_empty() {
        return "(index)".to_owned();
    }
    if name.chars().count() > 100 {
        let mut short: String = name.chars().take(99).collect();
        short.push('…');
        return short;
    }
    name
}

/// The path and query of a `scheme://authority/path?query#fragment` URL.
fn split_url(url: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = url.split_once("://")?;
    let mut chars = scheme.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c));
    if !valid {
        return None;
    }
    let rest = rest.split('#').next().unwrap_or("");
    let path_start = rest.find(['/', '?']).unwrap_or(rest.len());
    let after_authority = &rest[path_start..];
    let (path, query) = after_authority
        .split_once('?')
        .unwrap_or((after_authority, ""));
    Some((if path.is_empty() { "/" } else { path }, query))
}

/// The last segment of a path, a trailing slash kept (`/a/b/` → `b/`).
fn last_path_component(path: &str) -> &str {
    if path.len() < 2 {
        return path.strip_prefix('/').unwrap_or(path);
    }
    match path[..path.len() - 1].rfind('/') {
        Some(i) => &path[i + 1..],
        None => path,
    }
}

pub(super) fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// An argument as one word of the message text: primitives as JavaScript prints them
/// (null and undefined as nothing), an Error as its first line, other objects as
/// `[<subtype or type> <class>]`.
pub(super) fn text_token(ro: &RemoteObject) -> String {
    if ro.object_id.is_some() {
        let description = ro.description.as_deref().unwrap_or("");
        if ro.subtype == Some(RemoteObjectSubtype::Error) && !description.is_empty() {
            return description.lines().next().unwrap_or("").to_owned();
        }
        // A type left out decodes as an empty one.
        let kind = ro
            .subtype
            .as_ref()
            .map(RemoteObjectSubtype::as_str)
            .filter(|s| !s.is_empty())
            .or_else(|| Some(ro.r#type.as_str()).filter(|t| !t.is_empty()))
            .unwrap_or("object");
        let class = ro.class_name.as_deref().unwrap_or("undefined");
        return format!("[{kind} {class}]");
    }
    match primitive(ro) {
        Primitive::Undefined | Primitive::Null => String::new(),
        Primitive::Text(t) => t,
    }
}

pub(super) enum Primitive {
    Undefined,
    Null,
    Text(String),
}

/// A remote object without a handle: its value as JavaScript's `String()` gives it.
pub(super) fn primitive(ro: &RemoteObject) -> Primitive {
    if let Some(u) = &ro.unserializable_value {
        return Primitive::Text(match u.as_str() {
            "-0" => "0".to_owned(),
            big if ro.r#type == RemoteObjectType::Bigint => big.trim_end_matches('n').to_owned(),
            other => other.to_owned(),
        });
    }
    // A type left out decodes as an empty one.
    let undefined = ro.r#type == RemoteObjectType::Undefined || ro.r#type.as_str().is_empty();
    match value_of(ro) {
        None if undefined => Primitive::Undefined,
        None => Primitive::Text(ro.description.clone().unwrap_or_default()),
        Some(Value::Null) => Primitive::Null,
        Some(Value::String(s)) => Primitive::Text(s.clone()),
        Some(Value::Number(n)) => Primitive::Text(
            // V8's description is JavaScript's own number formatting.
            ro.description.clone().unwrap_or_else(|| n.to_string()),
        ),
        Some(other) => Primitive::Text(other.to_string()),
    }
}

/// A remote object's `value`. A JSON `null` there decodes as no value at all, so a null is
/// told by its subtype.
pub(super) fn value_of(ro: &RemoteObject) -> Option<&Value> {
    static NULL: Value = Value::Null;
    let null = ro.subtype == Some(RemoteObjectSubtype::Null);
    ro.value.as_ref().or(null.then_some(&NULL))
}

/// An Error's description up to its stack frames (its name and message).
pub(super) fn error_head(description: &str) -> String {
    description
        .split_once("\n    at ")
        .map_or(description, |(head, _)| head)
        .to_owned()
}

/// What a thrown or rejected value reads as: an Error's head, or the primitive itself.
pub(super) fn thrown_head(ex: &RemoteObject) -> String {
    if let Some(d) = &ex.description {
        return error_head(d);
    }
    match value_of(ex) {
        None => ex.unserializable_value.clone().unwrap_or_default(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// A stored string, cut at [`MAX_TEXT`] characters.
pub(super) fn cut_stored(text: &str) -> String {
    cut(text, MAX_TEXT)
}

/// Test JSON as the generated type it stands for, decoded as events are.
#[cfg(test)]
pub(super) fn decode<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).unwrap_or_else(|e| panic!("undecodable test value: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn display_names_follow_devtools() {
        assert_eq!(display_name("http://127.0.0.1:9/console.js"), "console.js");
        assert_eq!(
            display_name("http://127.0.0.1:9/nav.html?n=1"),
            "nav.html?n=1"
        );
        assert_eq!(display_name("http://127.0.0.1:9/"), "(index)");
        assert_eq!(display_name("http://127.0.0.1:9"), "(index)");
        assert_eq!(display_name("http://h/a/dir/"), "dir/");
        assert_eq!(display_name("http://h/a%20b.js#x"), "a b.js");
        assert_eq!(display_name("pptr:x"), "pptr:x");
        let long = format!("http://h/{}", "a".repeat(150));
        assert_eq!(display_name(&long).chars().count(), 100);
    }

    #[test]
    fn tokens_read_like_the_reference() {
        let t = |v: Value| text_token(&decode(v));
        assert_eq!(t(json!({"type": "string", "value": "hi"})), "hi");
        assert_eq!(
            t(json!({"type": "number", "value": 42, "description": "42"})),
            "42"
        );
        assert_eq!(
            t(json!({"type": "number", "unserializableValue": "-0"})),
            "0"
        );
        assert_eq!(
            t(json!({"type": "bigint", "unserializableValue": "10n"})),
            "10"
        );
        assert_eq!(t(json!({"type": "undefined"})), "");
        assert_eq!(
            t(json!({"type": "object", "subtype": "null", "value": null})),
            ""
        );
        assert_eq!(
            t(json!({"type": "object", "className": "Object", "objectId": "1"})),
            "[object Object]"
        );
        assert_eq!(
            t(
                json!({"type": "object", "subtype": "error", "className": "Error",
                "description": "Error: x\n    at f (a.js:1:1)", "objectId": "1"})
            ),
            "Error: x"
        );
        assert_eq!(
            t(json!({"type": "symbol", "objectId": "1", "description": "Symbol(s)"})),
            "[symbol undefined]"
        );
        assert_eq!(
            thrown_head(&decode(json!({"type": "string", "value": "s"}))),
            "s"
        );
        assert_eq!(
            thrown_head(&decode(
                json!({"type": "number", "value": 42, "description": "42"})
            )),
            "42"
        );
    }

    fn frame(name: &str) -> Value {
        json!({"functionName": name, "url": "http://h/b.js", "lineNumber": 1, "columnNumber": 1, "scriptId": "1"})
    }

    #[test]
    fn stacks_have_async_rules_and_a_cap() {
        let trace = json!({"callFrames": [frame("f")], "parent": {"description": "setTimeout",
            "callFrames": [{"functionName": "", "url": "", "scriptId": "7", "lineNumber": 1, "columnNumber": 0}]}});
        assert_eq!(
            stack_of(&decode(trace)).lines,
            vec![
                "at f (b.js:2:2)",
                "--- setTimeout -------------------------",
                "at  (VM7:2:1)"
            ]
        );
        let many = json!({"callFrames": vec![frame("g"); 60]});
        let s = stack_of(&decode(many));
        assert_eq!(s.lines.len(), MAX_STACK_LINES);
        assert!(stack_text(&s, true).ends_with(&format!("... and 10 more frames\n{STACK_NOTE}")));
    }
}
