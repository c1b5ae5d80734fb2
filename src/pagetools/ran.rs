//! What the page said about one run of one of its tools, from the header of the shim's
//! envelope: whether it threw, how long it took to settle, how large its result was, and the
//! values the result could not carry. A page's table keeps its last run's, for
//! `devtools-mcp check`, which reads it after each call it makes; agents never see it.

use serde_json::Value;

use super::limits;

/// The last run of one of a page's tools.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Ran {
    /// The tool threw or rejected: its message (cut to `limits::MAX_REASON` characters).
    pub threw: Option<String>,
    /// It answered `undefined`.
    pub undefined: bool,
    /// Its result as JSON text, in UTF-16 code units.
    pub chars: u64,
    /// How long it took to settle, in milliseconds.
    pub ms: u64,
    /// How many values of its result could not be carried as they were (functions, class
    /// instances, cycles), and where the first ones were.
    pub lost: u64,
    pub lost_at: Vec<String>,
}

impl Ran {
    /// From a run's envelope: its header, and its body (the message when it failed).
    pub(crate) fn of(header: &Value, body: &str) -> Ran {
        let ok = header["ok"] == true;
        let lost_at = header["lostAt"].as_array().map_or(&[][..], Vec::as_slice);
        Ran {
            threw: (!ok).then(|| limits::cut(body)),
            undefined: header["undefined"] == true,
            chars: header["totalChars"].as_u64().unwrap_or(0),
            ms: header["ms"].as_u64().unwrap_or(0),
            lost: header["lost"].as_u64().unwrap_or(0),
            lost_at: (lost_at.iter().take(LOST_SHOWN))
                .filter_map(|p| p.as_str().map(limits::cut))
                .collect(),
        }
    }
}

/// The shim's LOST_SHOWN: how many places of lost values a header names.
const LOST_SHOWN: usize = 3;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_header_read_within_bounds() {
        let header = json!({"ok": true, "run": 3, "ms": 1500, "totalChars": 20,
            "lost": 5, "lostAt": ["a function at result.f", 7, "a circular reference at result", "x", "y"]});
        let ran = Ran::of(&header, "{}");
        assert_eq!(ran.threw, None);
        assert_eq!((ran.ms, ran.chars, ran.lost), (1500, 20, 5));
        assert_eq!(
            ran.lost_at,
            ["a function at result.f", "a circular reference at result"]
        );
        let failed = Ran::of(&json!({"ok": false, "run": 4}), &"x".repeat(1000));
        let message = failed.threw.unwrap();
        assert_eq!(message.chars().count(), limits::MAX_REASON + 1);
    }
}
