//! Typed tool arguments. Each tool declares a `#[derive(Deserialize)]` struct beside its
//! schema and parses its arguments with [`parse`] once they have passed the schema check;
//! the arguments many tools share (`pageId`, `timeout`, `filePath`) are read the same way
//! everywhere through [`Shared`], flattened into the tool's own struct.

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

use super::{CallId, Ctx};
use crate::browser::PageId;
use crate::error::Error;

/// Upper bounds of the arguments, written into every tool's schema so the schema check
/// refuses an oversized value before any work starts. Lengths count characters.
pub mod max {
    /// JavaScript source: a function, a script, an init script.
    pub const SCRIPT: u32 = 1 << 20;
    /// Free text an agent sends into the page: typed or filled text, a prompt's answer.
    pub const TEXT: u32 = 1 << 20;
    /// A third-party tool's parameters, as a JSON string.
    pub const PARAMS: u32 = 4 << 20;
    /// A URL, a user agent, a header set.
    pub const URL: u32 = 1 << 16;
    /// A file path.
    pub const PATH: u32 = 4096;
    /// An element uid from a snapshot.
    pub const UID: u32 = 100;
    /// A short name: a key combination, a tool's name, an id.
    pub const NAME: u32 = 1000;
    /// The items of a list argument.
    pub const ITEMS: u32 = 1000;
    /// An id the server handed out (a page, a message, a request): JavaScript's largest
    /// exact integer.
    pub const ID: u64 = (1 << 53) - 1;
    /// A count or page index of a paged list.
    pub const COUNT: u64 = 1_000_000_000;
    /// A time limit in milliseconds: the longest a JavaScript timer waits (about 24 days).
    pub const TIMEOUT_MS: u64 = i32::MAX as u64;
    /// A coordinate in CSS pixels, either way from the viewport's origin.
    pub const COORD: f64 = 1e7;
}

/// The arguments as the tool's struct. They were checked against the tool's schema first,
/// so a failure here is a schema that says less than the struct expects.
pub fn parse<T: DeserializeOwned>(args: Value) -> Result<T, Error> {
    serde_json::from_value(args).map_err(|e| Error::Invalid(format!("Invalid arguments: {e}")))
}

/// [`parse`] for a handler: the arguments as the tool's struct, or `None` after answering
/// the call with the error.
pub fn for_call<T: DeserializeOwned>(cx: &mut Ctx, call: CallId, args: Value) -> Option<T> {
    match parse(args) {
        Ok(a) => Some(a),
        Err(e) => {
            super::call::fail(cx, call, e);
            None
        }
    }
}

/// Arguments shared by many tools; `#[serde(flatten)]` it into a tool's struct.
#[derive(Debug, Default, Deserialize)]
pub struct Shared {
    /// The page to work on (`list_pages` ids); the selected page when absent.
    #[serde(rename = "pageId")]
    page_id: Option<f64>,
    /// A time limit in milliseconds.
    timeout: Option<f64>,
    /// Where to write the result instead of answering with it.
    #[serde(rename = "filePath")]
    pub file_path: Option<String>,
}

/// The arguments of a tool that takes only the shared ones.
#[derive(Deserialize)]
pub struct OnlyShared {
    #[serde(flatten)]
    pub shared: Shared,
}

impl Shared {
    pub fn page(&self) -> Option<PageId> {
        self.page_id.map(PageId::from_arg)
    }

    /// `timeout` when it is a positive number of milliseconds, else `default`.
    pub fn timeout_or(&self, default: Duration) -> Duration {
        match self.timeout {
            Some(ms) if ms >= 1.0 && ms.is_finite() => Duration::from_millis(ms as u64),
            _ => default,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Deserialize)]
    struct Example {
        #[serde(flatten)]
        shared: Shared,
        name: String,
    }

    #[test]
    fn shared_arguments_flatten_into_a_tools_struct() {
        let e: Example = parse(json!({"name": "x", "pageId": 3, "timeout": 1500})).unwrap();
        assert_eq!(e.name, "x");
        assert_eq!(e.shared.page(), Some(PageId::from_arg(3.0)));
        let d = Duration::from_secs(25);
        assert_eq!(e.shared.timeout_or(d), Duration::from_millis(1500));
        let bare: Example = parse(json!({"name": "y"})).unwrap();
        assert_eq!(bare.shared.page(), None);
        assert_eq!(bare.shared.timeout_or(d), d);
        assert!(bare.shared.file_path.is_none());
    }

    #[test]
    fn a_wrong_type_is_an_invalid_argument() {
        let e = parse::<Example>(json!({"name": 5})).err().unwrap();
        assert!(matches!(e, Error::Invalid(m) if m.starts_with("Invalid arguments: ")));
    }
}
