//! The ways a value breaks a JSON Schema, as text an agent reads — bounded. The values come
//! from clients and pages, and a schema error quotes the value: an oversized argument must
//! not come back as an oversized error, nor a long list of bad items as a list as long.

use jsonschema::ValidationError;
use serde_json::Value;

/// At most this many problems are named; the rest are counted.
const MAX_PROBLEMS: usize = 10;
/// A value echoed in a problem is cut to this many characters...
const ECHO_CHARS: usize = 100;
/// ...and a problem's whole text (which may name a property) to this many.
const PROBLEM_CHARS: usize = 500;

/// Each problem as `render(instance path, message)`, echoed values cut short, at most
/// [`MAX_PROBLEMS`] of them and then "N more". Empty when there is none.
pub(crate) fn bounded<'a>(
    errors: impl Iterator<Item = ValidationError<'a>>,
    render: impl Fn(&str, String) -> String,
) -> Vec<String> {
    let mut errors = errors;
    let mut problems: Vec<String> = errors
        .by_ref()
        .take(MAX_PROBLEMS)
        .map(|e| {
            let message = e.masked_with(echo(e.instance())).to_string();
            let path = e.instance_path().to_string();
            cut(&render(&path, message), PROBLEM_CHARS)
        })
        .collect();
    let rest = errors.count();
    if rest > 0 {
        problems.push(format!("{rest} more"));
    }
    problems
}

/// `value` as JSON, cut to [`ECHO_CHARS`]; a large value is never written out in full.
fn echo(value: &Value) -> String {
    /// Takes bytes until it has enough, then refuses the rest (which stops the writer).
    struct Prefix(Vec<u8>);
    impl std::io::Write for Prefix {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let room = (ECHO_CHARS * 4 + 4).saturating_sub(self.0.len());
            if room == 0 {
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            let n = buf.len().min(room);
            self.0.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut out = Prefix(Vec::new());
    // An error only means the value was longer than what is kept.
    let _ = serde_json::to_writer(&mut out, value);
    cut(&String::from_utf8_lossy(&out.0), ECHO_CHARS)
}

/// A name the client wrote (a method, a tool), as an error may echo it: cut short like any
/// echoed value, so that a megabyte of name does not come back as a megabyte of error.
pub(crate) fn echoed(name: &str) -> String {
    cut(name, ECHO_CHARS)
}

/// The first `max` characters of `text`, and "…" when there were more.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn echoed_names_are_cut() {
        assert_eq!(echoed("click"), "click");
        let long = "é".repeat(1_000_000);
        assert_eq!(echoed(&long), format!("{}…", "é".repeat(ECHO_CHARS)));
    }

    #[test]
    fn a_page_tools_huge_params_give_a_short_error() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "number"}}});
        let v = jsonschema::validator_for(&schema).unwrap();
        let params = json!({"a": "y".repeat(4_000_000)});
        let problems = bounded(v.iter_errors(&params), |p, m| format!("data{p} {m}"));
        assert_eq!(problems.len(), 1);
        assert!(problems[0].starts_with(&format!("data/a \"{}…", "y".repeat(99))));
        assert!(problems[0].len() < 600, "{}", problems[0].len());
    }
}
