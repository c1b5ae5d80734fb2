//! The reference's answers kept as fixtures (`tests/fixtures/reference/`, see its README):
//! a [`Transcript`] makes a scenario's calls and either records the answers (when capturing,
//! against chrome-devtools-mcp) or compares each with the recorded one (against devtools-mcp).
//!
//! What differs from run to run (the fixture server's origin, a closed port) is written into
//! the fixture as a placeholder and put back before comparing.

use std::fs;
use std::path::PathBuf;

use serde_json::{json, Value};

use super::{Fixtures, Mcp};

/// Set to `1` to record the answers of the server under test (the reference, through
/// `DEVTOOLS_MCP_TEST_SERVER`) instead of comparing with them. `capture.sh` sets both.
pub const CAPTURE_ENV: &str = "CAPTURE_REFERENCE";

/// One scenario's calls and answers.
pub struct Transcript {
    name: String,
    /// `(value of this run, placeholder in the fixture)`.
    placeholders: Vec<(String, String)>,
    /// The recorded calls, when comparing; `None` when capturing.
    recorded: Option<Vec<Value>>,
    /// The calls made so far, normalised.
    made: Vec<Value>,
}

impl Transcript {
    /// Scenario `name` (its fixture is `tests/fixtures/reference/<name>.json`), with the
    /// fixture server's origin as `{origin}`.
    pub fn new(name: &str, fx: &Fixtures) -> Transcript {
        let recorded = if capturing() {
            None
        } else {
            let path = fixture_path(name);
            let text = fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}; capture it (README)", path.display()));
            let value: Value =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            Some(value["calls"].as_array().cloned().unwrap_or_default())
        };
        Transcript {
            name: name.to_owned(),
            placeholders: vec![(fx.origin(), "{origin}".to_owned())],
            recorded,
            made: Vec::new(),
        }
    }

    /// Writes `value` (e.g. a URL on a closed port) as `placeholder` in the fixture; replaced
    /// before the origin, which a longer URL may begin like.
    pub fn placeholder(&mut self, value: &str, placeholder: &str) {
        self.placeholders
            .insert(0, (value.to_owned(), placeholder.to_owned()));
    }

    /// Calls `tool` and checks its answer's text and `isError` against the reference's.
    pub fn call(&mut self, mcp: &Mcp, tool: &str, args: Value) {
        let result = mcp.call(tool, args.clone());
        let answer = json!({
            "tool": tool,
            "arguments": self.normalise(&args),
            "isError": result.is_error,
            "text": self.normalise(&json!(result.text)),
        });
        let n = self.made.len();
        if let Some(recorded) = &self.recorded {
            let expected = recorded.get(n).unwrap_or_else(|| {
                panic!(
                    "{}: call {n} ({tool}) is not in the fixture; re-capture",
                    self.name
                )
            });
            assert_eq!(
                expected["arguments"], answer["arguments"],
                "{}: call {n} ({tool}) is not the captured call; re-capture",
                self.name
            );
            assert_eq!(
                &answer, expected,
                "{}: call {n} ({tool}) answered unlike the reference",
                self.name
            );
        }
        self.made.push(answer);
    }

    /// Capturing: writes the fixture. Comparing: checks that every recorded call was made.
    pub fn finish(self) {
        match &self.recorded {
            Some(recorded) => assert_eq!(
                recorded.len(),
                self.made.len(),
                "{}: the fixture has calls this scenario no longer makes; re-capture",
                self.name
            ),
            None => {
                let fixture = json!({"scenario": self.name, "calls": self.made});
                let text = serde_json::to_string_pretty(&fixture).unwrap_or_default() + "\n";
                let path = fixture_path(&self.name);
                fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            }
        }
    }

    /// `value` with this run's variable parts replaced by their placeholders.
    fn normalise(&self, value: &Value) -> Value {
        let mut text = value.to_string();
        for (actual, placeholder) in &self.placeholders {
            text = text.replace(actual.as_str(), placeholder);
        }
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }
}

/// Whether this run records the reference's answers.
pub fn capturing() -> bool {
    std::env::var(CAPTURE_ENV).is_ok_and(|v| v == "1")
}

fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/reference")
        .join(format!("{name}.json"))
}
