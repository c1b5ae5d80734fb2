//! What one page may register, and the arguments' validators. A page's registrations are
//! untrusted: every one is bounded in size before the server keeps it, and a tool's schema
//! is compiled only when the tool is first run, once per distinct schema text (pages that
//! share a schema share its validator), so a page registering many tools costs little and
//! never delays other pages' calls. The limits are listed in README ("For page authors").

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};
use std::sync::OnceLock;

use serde_json::{json, Value};

/// Groups one page may register; later ones are left out.
pub(crate) const MAX_GROUPS: usize = 32;
/// Tools one group may hold; later ones are left out.
pub(crate) const MAX_TOOLS: usize = 64;
/// Bytes of a group's or tool's name.
pub(crate) const MAX_NAME: usize = 128;
/// Bytes of a group's or tool's description.
pub(crate) const MAX_DESCRIPTION: usize = 4096;
/// Bytes of a tool's inputSchema as JSON text.
pub(crate) const MAX_SCHEMA: usize = 32 * 1024;
/// `pattern`s and `patternProperties` keys in one inputSchema (regexes are what compiling
/// costs most).
pub(crate) const MAX_PATTERNS: usize = 32;
/// Refused registrations listed one by one (the rest are counted in one line), and the
/// longest reason kept (a reason quotes page-supplied names).
pub(crate) const MAX_PROBLEMS: usize = 64;
pub(crate) const MAX_REASON: usize = 300;

/// A name as shown in a reason: cut short when it is over the limit.
pub(crate) fn shown(name: &str) -> String {
    if name.len() <= MAX_NAME {
        return name.to_owned();
    }
    let mut end = 40;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &name[..end])
}

/// A page-supplied reason or message, cut to its first `MAX_REASON` characters.
pub(crate) fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_REASON) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
    }
}

/// Why a name or description is refused, if it is.
pub(crate) fn text_problem(what: &str, name: &str, description: Option<&str>) -> Option<String> {
    if name.len() > MAX_NAME {
        return Some(format!(
            "its name is {} bytes, over the limit of {MAX_NAME}",
            name.len()
        ));
    }
    let len = description.map_or(0, str::len);
    (len > MAX_DESCRIPTION).then(|| {
        format!("the {what}'s description is {len} bytes, over the limit of {MAX_DESCRIPTION}")
    })
}

/// Why an inputSchema is refused, if it is: over a limit, or not a valid JSON Schema (by
/// the meta-schema, and every pattern a regular expression). Cheap: nothing is compiled.
pub(crate) fn schema_problem(schema: &Value) -> Option<String> {
    schema_refusal(schema).map(|r| r.reason)
}

/// An inputSchema refused, and whether for a limit (else it is not a valid JSON Schema).
pub(crate) struct Refusal {
    pub over_limit: bool,
    pub reason: String,
}

/// [`schema_problem`], saying which kind of problem it is.
pub(crate) fn schema_refusal(schema: &Value) -> Option<Refusal> {
    let over = |reason: String| Refusal {
        over_limit: true,
        reason,
    };
    let mut counter = Counter(0);
    if serde_json::to_writer(&mut counter, schema).is_err() {
        return Some(over(format!(
            "its inputSchema is over the limit of {MAX_SCHEMA} bytes"
        )));
    }
    let mut patterns = Vec::new();
    collect_patterns(schema, &mut patterns);
    if patterns.len() > MAX_PATTERNS {
        return Some(over(format!(
            "its inputSchema has {} patterns, over the limit of {MAX_PATTERNS}",
            patterns.len()
        )));
    }
    let invalid = |e: String| Refusal {
        over_limit: false,
        reason: format!("its inputSchema is not a valid JSON Schema: {e}"),
    };
    if let Err(e) = jsonschema::meta::validate(schema) {
        return Some(invalid(e.to_string()));
    }
    let regex = regex_format();
    for p in patterns {
        if !regex.is_valid(&json!(p)) {
            return Some(invalid(format!("\"{p}\" is not a \"regex\"")));
        }
    }
    None
}

/// Counts JSON bytes and stops the writer past the limit.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        if self.0 > MAX_SCHEMA {
            return Err(std::io::Error::other("over the limit"));
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn collect_patterns<'a>(schema: &'a Value, out: &mut Vec<&'a str>) {
    match schema {
        Value::Object(map) => {
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("pattern", Value::String(p)) => out.push(p),
                    ("patternProperties", Value::Object(props)) => {
                        out.extend(props.keys().map(String::as_str))
                    }
                    _ => {}
                }
                collect_patterns(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_patterns(v, out)),
        _ => {}
    }
}

/// Checks a string is a regular expression the validator would accept (parsing only).
fn regex_format() -> &'static jsonschema::Validator {
    static REGEX: OnceLock<jsonschema::Validator> = OnceLock::new();
    REGEX.get_or_init(|| {
        jsonschema::options()
            .should_validate_formats(true)
            .build(&json!({"format": "regex"}))
            .unwrap_or_else(|e| unreachable!("a fixed schema: {e}"))
    })
}

thread_local! {
    /// Compiled validators by schema text, held by the tools that use them.
    static VALIDATORS: RefCell<HashMap<String, Weak<jsonschema::Validator>>> =
        RefCell::new(HashMap::new());
}

/// The validator for `schema`: compiled now unless a tool with the same schema text has one.
pub(crate) fn validator(schema: &Value) -> Result<Rc<jsonschema::Validator>, String> {
    let text = serde_json::to_string(schema).map_err(|e| e.to_string())?;
    if let Some(v) = VALIDATORS.with_borrow(|m| m.get(&text).and_then(Weak::upgrade)) {
        return Ok(v);
    }
    let compiled = Rc::new(jsonschema::validator_for(schema).map_err(|e| e.to_string())?);
    VALIDATORS.with_borrow_mut(|m| {
        if m.len() >= 1024 {
            m.retain(|_, v| v.strong_count() > 0);
        }
        m.insert(text, Rc::downgrade(&compiled));
    });
    Ok(compiled)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_over_the_limits_or_invalid_are_refused_cheaply() {
        let ok =
            json!({"type": "object", "properties": {"s": {"type": "string", "pattern": "^a+$"}}});
        assert_eq!(schema_problem(&ok), None);
        let props: serde_json::Map<_, _> = (0..MAX_PATTERNS + 1)
            .map(|i| {
                (
                    format!("p{i}"),
                    json!({"type": "string", "pattern": "(a+)+$"}),
                )
            })
            .collect();
        let many = json!({"type": "object", "properties": props});
        assert!(schema_problem(&many)
            .unwrap()
            .contains("patterns, over the limit of 32"));
        let big = json!({"description": "x".repeat(MAX_SCHEMA)});
        assert!(schema_problem(&big)
            .unwrap()
            .contains("over the limit of 32768 bytes"));
        let bad = json!({"properties": {"s": {"pattern": "("}}});
        assert!(schema_problem(&bad)
            .unwrap()
            .contains("not a valid JSON Schema"));
        assert!(schema_problem(&json!({"type": "no-such-type"})).is_some());
    }

    #[test]
    fn one_schema_text_one_validator() {
        let a = validator(&json!({"type": "object", "required": ["x"]})).unwrap();
        let b = validator(&json!({"type": "object", "required": ["x"]})).unwrap();
        assert!(Rc::ptr_eq(&a, &b));
        assert!(!b.is_valid(&json!({})));
    }
}
