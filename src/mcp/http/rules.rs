//! The small rules of MCP over HTTP: which version header means the stateless era, what HTTP
//! status a modern error has, the headers a modern request must agree with, agent names and
//! session ids.

use serde_json::Value;

use crate::mcp::identity::PROTOCOL_VERSIONS;
pub(crate) use crate::mcp::jsonrpc::INVALID_REQUEST;
use crate::mcp::jsonrpc::{self, INVALID_PARAMS, METHOD_NOT_FOUND, PARSE_ERROR};
use crate::mcp::modern;

/// `HeaderMismatch`: a routing header disagrees with the body.
pub(super) const HEADER_MISMATCH: i64 = -32020;
/// `MissingRequiredClientCapability` and `UnsupportedProtocolVersion`.
const MISSING_CAPABILITY: i64 = -32021;
const UNSUPPORTED_VERSION: i64 = -32022;
/// An unknown or ended session (as the MCP SDKs answer it).
pub(super) const SESSION_NOT_FOUND: i64 = -32001;
/// What a full server answers with: an error of the implementation's own range.
pub(super) const SERVER_FULL: i64 = -32000;

/// Whether a request with this `MCP-Protocol-Version` is a stateless (2026-07-28) one: any
/// version but the handshake ones is, so that an unknown one is told which are served.
pub(super) fn is_modern(version: Option<&str>) -> bool {
    version.is_some_and(|v| !PROTOCOL_VERSIONS.contains(&v))
}

/// The HTTP status of a modern request's answer, by its JSON-RPC error code (as the MCP
/// SDKs map them): a request the server could not take is a 4xx, anything else 200.
pub(super) fn status_of(code: Option<i64>) -> u16 {
    match code {
        Some(PARSE_ERROR | INVALID_REQUEST | INVALID_PARAMS) => 400,
        Some(HEADER_MISMATCH | MISSING_CAPABILITY | UNSUPPORTED_VERSION) => 400,
        Some(METHOD_NOT_FOUND) => 404,
        _ => 200,
    }
}

/// A JSON-RPC error with a null id, as a response body.
pub(crate) fn error_body(code: i64, message: &str) -> Vec<u8> {
    let reply = jsonrpc::error(&jsonrpc::null_id(), code, message);
    serde_json::to_vec(&reply).unwrap_or_default()
}

/// What a modern request's routing headers must say: the envelope's version, its method, and
/// for `tools/call` the tool's name. `Err` names the first that disagrees. A request without
/// the envelope is the session's to refuse, in its own words.
pub(super) fn headers_agree(
    version: Option<&str>,
    mcp_method: Option<&str>,
    mcp_name: Option<&str>,
    method: &str,
    params: &Value,
) -> Result<(), String> {
    let Some(enveloped) = modern::envelope_version(params) else {
        return Ok(());
    };
    if version != Some(enveloped.as_str()) {
        return Err("MCP-Protocol-Version header does not match the request's _meta".into());
    }
    if mcp_method != Some(method) {
        return Err("Mcp-Method header does not match the request's method".into());
    }
    if method == "tools/call" {
        let name = params["name"].as_str();
        if name.is_some() && decoded(mcp_name).as_deref() != name {
            return Err("Mcp-Name header does not match the request's tool name".into());
        }
    }
    Ok(())
}

/// A header value as the client meant it: values that do not fit a header are sent as
/// `=?base64?<payload>?=`.
fn decoded(value: Option<&str>) -> Option<String> {
    let value = value?;
    let Some(payload) = value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    else {
        return Some(value.to_owned());
    };
    String::from_utf8(base64_decode(payload)?).ok()
}

/// Standard base64, padded; `None` when it is not.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let bytes = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for &c in bytes {
        acc = (acc << 6) | u32::from(value(c)?);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// Whether `name` may name an agent in `/mcp/<name>`: 1 to 64 letters, digits, `.`, `_`, `-`.
pub(crate) fn agent_name_ok(name: &str) -> bool {
    let allowed = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-');
    (1..=64).contains(&name.len()) && name.bytes().all(allowed)
}

/// A new session id: 128 random bits from the kernel, in hex. `None` when the kernel gives
/// none (no session is opened then).
pub(super) fn session_id() -> Option<String> {
    let mut bytes = [0u8; 16];
    let mut filled = 0;
    while filled < bytes.len() {
        let rest = &mut bytes[filled..];
        // SAFETY: getrandom writes at most `rest.len()` bytes into the buffer it is given.
        let n = unsafe { libc::getrandom(rest.as_mut_ptr().cast(), rest.len(), 0) };
        match n {
            n if n > 0 => filled += n as usize,
            _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
            _ => return None,
        }
    }
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_handshake_versions_are_the_only_stateful_ones() {
        assert!(!is_modern(None));
        assert!(!is_modern(Some("2025-06-18")));
        assert!(is_modern(Some("2026-07-28")));
        assert!(is_modern(Some("1999-01-01")));
    }

    #[test]
    fn modern_errors_have_the_sdks_statuses() {
        assert_eq!(status_of(None), 200);
        assert_eq!(status_of(Some(-32602)), 400);
        assert_eq!(status_of(Some(-32022)), 400);
        assert_eq!(status_of(Some(-32601)), 404);
        assert_eq!(status_of(Some(-32603)), 200);
    }

    #[test]
    fn routing_headers_must_repeat_the_body() {
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
        let params = json!({"_meta": meta, "name": "list_pages"});
        let v = Some("2026-07-28");
        let ok = headers_agree(
            v,
            Some("tools/call"),
            Some("list_pages"),
            "tools/call",
            &params,
        );
        assert_eq!(ok, Ok(()));
        let b64 = Some("=?base64?bGlzdF9wYWdlcw==?=");
        assert!(headers_agree(v, Some("tools/call"), b64, "tools/call", &params).is_ok());
        assert!(headers_agree(v, Some("tools/list"), None, "tools/call", &params).is_err());
        assert!(headers_agree(v, Some("tools/call"), Some("x"), "tools/call", &params).is_err());
        let other = Some("2025-06-18");
        assert!(headers_agree(other, Some("tools/call"), None, "tools/call", &params).is_err());
        // No envelope: the session says what is missing.
        assert!(headers_agree(None, None, None, "tools/list", &json!({})).is_ok());
    }

    #[test]
    fn agent_names_and_session_ids() {
        assert!(agent_name_ok("ci-job_7.a"));
        assert!(!agent_name_ok(""));
        assert!(!agent_name_ok("a/b"));
        assert!(!agent_name_ok(&"a".repeat(65)));
        let (a, b) = (session_id().unwrap(), session_id().unwrap());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }
}
