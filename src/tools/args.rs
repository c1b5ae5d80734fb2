//! Typed tool arguments. Each tool declares a `#[derive(Deserialize)]` struct beside its
//! schema and parses its arguments with [`parse`] once they have passed the schema check;
//! the arguments many tools share (`pageId`, `timeout`, `filePath`) are read the same way
//! everywhere through [`Shared`], flattened into the tool's own struct.

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::browser::PageId;
use crate::error::Error;

/// Upper bounds of the arguments, written into every tool's schema so the schema check
/// refuses an oversized value before any work starts. Lengths count characters.
pub(crate) mod max {
    /// JavaScript source: a function, a script, an init script.
    pub(crate) const SCRIPT: u32 = 1 << 20;
    /// Free text an agent sends into the page: typed or filled text, a prompt's answer.
    pub(crate) const TEXT: u32 = 1 << 20;
    /// A third-party tool's parameters, as a JSON string.
    pub(crate) const PARAMS: u32 = 4 << 20;
    /// A URL, a user agent, a header set.
    pub(crate) const URL: u32 = 1 << 16;
    /// A file path.
    pub(crate) const PATH: u32 = 4096;
    /// An element uid from a snapshot.
    pub(crate) const UID: u32 = 100;
    /// A short name: a key combination, a tool's name, an id.
    pub(crate) const NAME: u32 = 1000;
    /// The items of a list argument.
    pub(crate) const ITEMS: u32 = 1000;
    /// An id the server handed out (a page, a message, a request): JavaScript's largest
    /// exact integer.
    pub(crate) const ID: u64 = (1 << 53) - 1;
    /// A count or page index of a paged list.
    pub(crate) const COUNT: u64 = 1_000_000_000;
    /// A time limit in milliseconds: the longest a JavaScript timer waits (about 24 days).
    pub(crate) const TIMEOUT_MS: u64 = i32::MAX as u64;
    /// A coordinate in CSS pixels, either way from the viewport's origin.
    pub(crate) const COORD: f64 = 1e7;
}

/// A tool's arguments, declared once: [`tool_args!`] makes from one list both the typed
/// struct the handler reads and the JSON Schema properties the server lists and checks.
pub(crate) trait Args: DeserializeOwned {
    /// The names of the properties a call must give (the fields that are not `Option`).
    const REQUIRED: &'static [&'static str];
    /// Whether the tool works on one page: it takes `pageId`.
    const PAGE_SCOPED: bool;
    /// The schema's `properties`, in declaration order (the order `tools/list` shows).
    fn properties() -> Value;
}

/// What the registry keeps of a tool's argument list.
#[derive(Clone, Copy)]
pub(crate) struct Schema {
    pub properties: fn() -> Value,
    pub required: &'static [&'static str],
    pub page_scoped: bool,
}

/// The schema of the arguments `A`.
pub(crate) const fn schema<A: Args>() -> Schema {
    Schema {
        properties: A::properties,
        required: A::REQUIRED,
        page_scoped: A::PAGE_SCOPED,
    }
}

/// Whether `names` holds `name` (for the constants [`tool_args!`] declares).
pub(crate) const fn has_name(names: &[&str], name: &str) -> bool {
    let mut i = 0;
    while i < names.len() {
        let (a, b) = (names[i].as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return true;
            }
        }
        i += 1;
    }
    false
}

/// Declares a tool's arguments: each field as `"jsonName" field: Type = {schema},` (with a
/// visibility before the field's name where another module reads it). A field
/// of type `Option<T>` is optional; any other is required. The schema is `json!` syntax, or a
/// parenthesised expression that gives a `Value`. A page-scoped tool declares `pageId` last
/// (the order `tools/list` shows the properties in).
///
/// ```text
/// tool_args! {
///     struct ExecuteArgs {
///         "toolName" tool_name: String = {"type": "string", "maxLength": max::NAME},
///         "pageId" page: Option<PageId> = (args::page_id()),
///     }
/// }
/// ```
macro_rules! tool_args {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident { $($fields:tt)* }
    ) => {
        $crate::tools::args::tool_args!(@fields
            [$(#[$meta])* $vis $name] [] [] []
            $($fields)*
        );
    };
    (@fields [$($head:tt)*] [$($field:tt)*] [$($prop:tt)*] [$($req:tt)*]
        $(#[$fmeta:meta])* $json:literal $fvis:vis $f:ident : Option<$t:ty> = $schema:tt, $($rest:tt)*
    ) => {
        $crate::tools::args::tool_args!(@fields [$($head)*]
            [$($field)* $(#[$fmeta])* #[serde(rename = $json)] $fvis $f: Option<$t>,]
            [$($prop)* ($json, $schema)]
            [$($req)*]
            $($rest)*
        );
    };
    (@fields [$($head:tt)*] [$($field:tt)*] [$($prop:tt)*] [$($req:tt)*]
        $(#[$fmeta:meta])* $json:literal $fvis:vis $f:ident : $t:ty = $schema:tt, $($rest:tt)*
    ) => {
        $crate::tools::args::tool_args!(@fields [$($head)*]
            [$($field)* $(#[$fmeta])* #[serde(rename = $json)] $fvis $f: $t,]
            [$($prop)* ($json, $schema)]
            [$($req)* $json,]
            $($rest)*
        );
    };
    (@fields [$(#[$meta:meta])* $vis:vis $name:ident] [$($field:tt)*] [$(($json:literal, $schema:tt))*] [$($req:tt)*]) => {
        $(#[$meta])*
        #[derive(serde::Deserialize)]
        $vis struct $name { $($field)* }

        impl $crate::tools::args::Args for $name {
            const REQUIRED: &'static [&'static str] = &[$($req)*];
            const PAGE_SCOPED: bool = $crate::tools::args::has_name(&[$($json),*], "pageId");
            fn properties() -> serde_json::Value {
                // A tool without arguments inserts nothing.
                #[allow(unused_mut)]
                let mut properties = serde_json::Map::new();
                $( properties.insert($json.into(), serde_json::json!($schema)); )*
                serde_json::Value::Object(properties)
            }
        }
    };
}
pub(crate) use tool_args;

tool_args! {
    /// The arguments of a tool that takes only the page it works on.
    pub(crate) struct PageOnly {
        "pageId" pub page: Option<PageId> = (page_id()),
    }
}

/// The schema of `pageId`, the page a page-scoped tool works on.
pub(crate) fn page_id() -> Value {
    serde_json::json!({"type": "number", "minimum": 0, "maximum": max::ID, "description": "Default: selected page"})
}

/// A `timeout` argument when it is a positive number of milliseconds, else `default`.
pub(crate) fn timeout_or(timeout: Option<f64>, default: Duration) -> Duration {
    match timeout {
        Some(ms) if ms >= 1.0 && ms.is_finite() => Duration::from_millis(ms as u64),
        _ => default,
    }
}

/// A JSON-text argument (`params`, or WebMCP's `input`: `what`) as the reference reads it:
/// absent or empty → `{}`, else a JSON object.
pub(crate) fn json_object(text: Option<&str>, what: &str) -> Result<Map<String, Value>, Error> {
    let Some(text) = text.filter(|t| !t.is_empty()) else {
        return Ok(Map::new());
    };
    let fails = |why: String| Error::Invalid(format!("Failed to parse {what} as JSON: {why}"));
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(fails(format!("Parsed {what} is not an object"))),
        Err(e) => Err(fails(e.to_string())),
    }
}

/// The arguments as the tool's struct. They were checked against the tool's schema first,
/// so a failure here is a schema that says less than the struct expects.
pub(crate) fn parse<T: DeserializeOwned>(args: Value) -> Result<T, Error> {
    serde_json::from_value(args).map_err(|e| Error::Invalid(format!("Invalid arguments: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    tool_args! {
        struct Example {
            "name" name: String = {"type": "string"},
            "timeout" timeout: Option<f64> = {"type": "integer"},
            "pageId" page: Option<PageId> = (page_id()),
        }
    }

    tool_args! {
        struct Pageless {
            "uid" uid: Option<String> = {"type": "string"},
        }
    }

    #[test]
    fn one_list_gives_the_struct_and_the_schema() {
        let e: Example = parse(json!({"name": "x", "pageId": 3, "timeout": 1500})).unwrap();
        assert_eq!(e.name, "x");
        assert_eq!(e.page, Some(PageId::from_arg(3.0)));
        let d = Duration::from_secs(25);
        assert_eq!(timeout_or(e.timeout, d), Duration::from_millis(1500));
        let bare: Example = parse(json!({"name": "y"})).unwrap();
        assert_eq!(bare.page, None);
        assert_eq!(timeout_or(bare.timeout, d), d);
        let names: Vec<String> = Example::properties()
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(names, ["name", "timeout", "pageId"]);
        assert_eq!(Example::REQUIRED, ["name"]);
        const { assert!(Example::PAGE_SCOPED && !Pageless::PAGE_SCOPED) };
        assert!(Pageless::REQUIRED.is_empty());
        let p: Pageless = parse(json!({"uid": "1_2"})).unwrap();
        assert_eq!(p.uid.as_deref(), Some("1_2"));
    }

    #[test]
    fn a_json_text_argument_is_an_object_or_nothing() {
        assert!(json_object(Some("[1]"), "input").is_err());
        assert!(json_object(None, "input").unwrap().is_empty());
        assert!(json_object(Some(""), "input").unwrap().is_empty());
        let m = json_object(Some(r#"{"a": 1}"#), "params").unwrap();
        assert_eq!(m["a"], 1);
    }

    #[test]
    fn a_wrong_type_is_an_invalid_argument() {
        let e = parse::<Example>(json!({"name": 5})).err().unwrap();
        assert!(matches!(e, Error::Invalid(m) if m.starts_with("Invalid arguments: ")));
    }
}
