//! MCP 2026-07-28 ("modern"), served beside the handshake versions: no `initialize`, every
//! request carries its protocol version and client capabilities in `_meta`, every result says
//! `resultType` and names the server, and change notices go only to `subscriptions/listen`
//! streams. This file is the pure part: the envelope check, the result shapes and the
//! messages of a listen stream. The server decides which requests are modern.

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use super::identity::{PROTOCOL_VERSIONS, SERVER_NAME, SERVER_VERSION};
use super::jsonrpc::{self, Reply, INVALID_PARAMS};

/// The versions served without a handshake.
const MODERN_VERSIONS: &[&str] = &["2026-07-28"];

const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// `UnsupportedProtocolVersionError`.
const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// How long a client may cache what cannot change while this process runs (`server/discover`,
/// and `tools/list` when page tools are not exposed as MCP tools).
const STEADY_TTL_MS: u64 = 3_600_000;

/// Whether a request speaks the modern protocol: its `_meta` names a protocol version. That key
/// exists only in the modern envelope (legacy requests may carry `_meta` for a progress token),
/// so a half-built envelope still counts and is told what it lacks.
pub(super) fn has_envelope(params: &Value) -> bool {
    params["_meta"].get(PROTOCOL_VERSION_KEY).is_some()
}

/// The protocol version a modern request's `_meta` names, when it names one as a string.
pub(super) fn envelope_version(params: &Value) -> Option<String> {
    params["_meta"][PROTOCOL_VERSION_KEY]
        .as_str()
        .map(str::to_owned)
}

/// Why a modern request's envelope is refused.
#[derive(Debug, PartialEq)]
pub(super) enum Refusal {
    /// A required field is missing or of the wrong type (-32602).
    Malformed(String),
    /// The version is not one we serve without a handshake (-32022).
    Unsupported(String),
}

impl Refusal {
    pub(super) fn reply(&self, id: &RawValue) -> Reply {
        match self {
            Refusal::Malformed(message) => jsonrpc::error(id, INVALID_PARAMS, message),
            Refusal::Unsupported(requested) => {
                let data = json!({"supported": supported_versions(), "requested": requested});
                let message = "Unsupported protocol version";
                jsonrpc::error_with_data(id, UNSUPPORTED_PROTOCOL_VERSION, message, data)
            }
        }
    }
}

/// Checks the per-request fields every modern request must carry.
pub(super) fn check_envelope(params: &Value) -> Result<(), Refusal> {
    let meta = &params["_meta"];
    let malformed = |what: &str| Err(Refusal::Malformed(format!("_meta.{what}")));
    let version = match meta.get(PROTOCOL_VERSION_KEY) {
        None => return malformed(&format!("{PROTOCOL_VERSION_KEY} is required")),
        Some(Value::String(v)) => v,
        Some(_) => return malformed(&format!("{PROTOCOL_VERSION_KEY} must be a string")),
    };
    match meta.get(CLIENT_CAPABILITIES_KEY) {
        None => return malformed(&format!("{CLIENT_CAPABILITIES_KEY} is required")),
        Some(Value::Object(_)) => {}
        Some(_) => return malformed(&format!("{CLIENT_CAPABILITIES_KEY} must be an object")),
    }
    if !MODERN_VERSIONS.contains(&version.as_str()) {
        return Err(Refusal::Unsupported(version.clone()));
    }
    Ok(())
}

/// Every version this binary speaks, newest first: the modern ones per request, the others
/// through `initialize` (a client that knows only those falls back to the handshake).
fn supported_versions() -> Vec<&'static str> {
    let mut all: Vec<&str> = MODERN_VERSIONS.iter().rev().copied().collect();
    all.extend(PROTOCOL_VERSIONS.iter().rev());
    all
}

fn server_info() -> Value {
    json!({"name": SERVER_NAME, "version": SERVER_VERSION})
}

/// A modern result: `resultType: "complete"` and the server's identity in `_meta` (kept beside
/// what `_meta` the result already has).
pub(super) fn complete(mut result: Value) -> Value {
    if let Value::Object(members) = &mut result {
        members.insert("resultType".into(), "complete".into());
        let meta = members
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta) = meta {
            meta.insert(SERVER_INFO_KEY.into(), server_info());
        }
    }
    result
}

/// The answer to `server/discover`.
pub(super) fn discover() -> Value {
    complete(json!({
        "supportedVersions": MODERN_VERSIONS,
        "capabilities": {"tools": {"listChanged": true}},
        "ttlMs": STEADY_TTL_MS,
        "cacheScope": "public",
    }))
}

/// The answer to `tools/list`. Exposed page tools change with the page and carry what the page
/// says, so such a list is stale at once and private; otherwise it is fixed for the process.
pub(super) fn tools_list(tools: Vec<Value>, page_tools_exposed: bool) -> Value {
    let (ttl, scope) = match page_tools_exposed {
        true => (0, "private"),
        false => (STEADY_TTL_MS, "public"),
    };
    let mut result = Map::with_capacity(5);
    result.insert("tools".into(), Value::Array(tools));
    result.insert("ttlMs".into(), ttl.into());
    result.insert("cacheScope".into(), scope.into());
    complete(Value::Object(result))
}

/// What a `subscriptions/listen` asked for that we honour: only tool list changes exist here.
/// `None` when the filter is not an object.
pub(super) fn honoured(params: &Value) -> Option<bool> {
    let filter = params.get("notifications")?.as_object()?;
    Some(filter.get("toolsListChanged") == Some(&Value::Bool(true)))
}

/// One open `subscriptions/listen` stream: its request's id as the client wrote it (every
/// message on the stream carries it), and whether it wants tool list changes.
pub(super) struct Subscription {
    pub(super) id: Box<RawValue>,
    pub(super) tools: bool,
}

#[derive(Serialize)]
struct StreamMeta<'a> {
    #[serde(rename = "io.modelcontextprotocol/subscriptionId")]
    subscription: &'a RawValue,
    #[serde(rename = "io.modelcontextprotocol/serverInfo")]
    #[serde(skip_serializing_if = "Option::is_none")]
    server: Option<Value>,
}

#[derive(Serialize)]
struct NoteParams<'a> {
    #[serde(rename = "_meta")]
    meta: StreamMeta<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    notifications: Option<Value>,
}

/// A notification on a listen stream.
#[derive(Serialize)]
pub(super) struct StreamNote<'a> {
    jsonrpc: &'static str,
    method: &'static str,
    params: NoteParams<'a>,
}

#[derive(Serialize)]
struct ClosedResult<'a> {
    #[serde(rename = "resultType")]
    result_type: &'static str,
    #[serde(rename = "_meta")]
    meta: StreamMeta<'a>,
}

/// The answer that ends a listen stream gracefully.
#[derive(Serialize)]
pub(super) struct Closed<'a> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    result: ClosedResult<'a>,
}

impl Subscription {
    /// The first message of the stream: what it will deliver.
    pub(super) fn acknowledged(&self) -> StreamNote<'_> {
        let notifications = match self.tools {
            true => json!({"toolsListChanged": true}),
            false => json!({}),
        };
        self.note(
            "notifications/subscriptions/acknowledged",
            Some(notifications),
        )
    }

    pub(super) fn tools_changed(&self) -> StreamNote<'_> {
        self.note("notifications/tools/list_changed", None)
    }

    fn note(&self, method: &'static str, notifications: Option<Value>) -> StreamNote<'_> {
        let meta = StreamMeta {
            subscription: &self.id,
            server: None,
        };
        StreamNote {
            jsonrpc: "2.0",
            method,
            params: NoteParams {
                meta,
                notifications,
            },
        }
    }

    pub(super) fn closed(&self) -> Closed<'_> {
        let meta = StreamMeta {
            subscription: &self.id,
            server: Some(server_info()),
        };
        Closed {
            jsonrpc: "2.0",
            id: &self.id,
            result: ClosedResult {
                result_type: "complete",
                meta,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envelope(version: Value, caps: Option<Value>) -> Value {
        let mut meta = json!({ PROTOCOL_VERSION_KEY: version });
        if let Some(c) = caps {
            meta[CLIENT_CAPABILITIES_KEY] = c;
        }
        json!({ "_meta": meta })
    }

    #[test]
    fn only_the_version_key_marks_a_modern_request() {
        assert!(has_envelope(&envelope(json!("2026-07-28"), None)));
        assert!(!has_envelope(&json!({"_meta": {"progressToken": 1}})));
        assert!(!has_envelope(&json!({})));
        assert!(!has_envelope(&json!([1])));
    }

    #[test]
    fn envelopes_are_checked() {
        let ok = envelope(json!("2026-07-28"), Some(json!({})));
        assert_eq!(check_envelope(&ok), Ok(()));
        let no_caps = check_envelope(&envelope(json!("2026-07-28"), None));
        assert!(matches!(no_caps, Err(Refusal::Malformed(m)) if m.contains("clientCapabilities")));
        let bad_caps = check_envelope(&envelope(json!("2026-07-28"), Some(json!([]))));
        assert!(matches!(bad_caps, Err(Refusal::Malformed(_))));
        let bad_version = check_envelope(&envelope(json!(2026), Some(json!({}))));
        assert!(matches!(bad_version, Err(Refusal::Malformed(m)) if m.contains("protocolVersion")));
        let none = check_envelope(&json!({}));
        assert!(matches!(none, Err(Refusal::Malformed(_))));
        for old in ["2025-11-25", "2099-01-01"] {
            let r = check_envelope(&envelope(json!(old), Some(json!({}))));
            assert_eq!(r, Err(Refusal::Unsupported(old.into())));
        }
    }

    #[test]
    fn an_unsupported_version_names_every_version_newest_first() {
        let id = RawValue::from_string("7".into()).unwrap();
        let reply = Refusal::Unsupported("1900-01-01".into()).reply(&id);
        let v = serde_json::to_value(reply).unwrap();
        assert_eq!(v["error"]["code"], -32022);
        assert_eq!(v["error"]["data"]["requested"], "1900-01-01");
        let supported = v["error"]["data"]["supported"].as_array().unwrap().clone();
        assert_eq!(supported.first().unwrap(), "2026-07-28");
        assert_eq!(supported.last().unwrap(), "2024-11-05");
        assert_eq!(supported.len(), 5);
    }

    #[test]
    fn results_are_complete_and_signed_keeping_their_meta() {
        let r = complete(json!({"content": [], "_meta": {"x": 1}}));
        assert_eq!(r["resultType"], "complete");
        assert_eq!(r["_meta"]["x"], 1);
        assert_eq!(r["_meta"][SERVER_INFO_KEY]["name"], "devtools-mcp");
        let list = tools_list(vec![], true);
        assert_eq!(
            (list["ttlMs"].clone(), list["cacheScope"].clone()),
            (json!(0), json!("private"))
        );
        let d = discover();
        assert_eq!(d["supportedVersions"], json!(["2026-07-28"]));
        assert_eq!(d["cacheScope"], "public");
    }

    #[test]
    fn stream_messages_carry_the_id_as_written() {
        let s = Subscription {
            id: RawValue::from_string("18446744073709551616".into()).unwrap(),
            tools: true,
        };
        let ack = serde_json::to_string(&s.acknowledged()).unwrap();
        assert_eq!(
            ack,
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":18446744073709551616},"notifications":{"toolsListChanged":true}}}"#
        );
        let closed = serde_json::to_value(s.closed()).unwrap();
        assert_eq!(closed["result"]["resultType"], "complete");
        assert!(serde_json::to_string(&s.closed())
            .unwrap()
            .starts_with(r#"{"jsonrpc":"2.0","id":18446744073709551616,"#));
        assert_eq!(
            honoured(&json!({"notifications": {"promptsListChanged": true}})),
            Some(false)
        );
        assert_eq!(honoured(&json!({})), None);
    }
}
