//! CDP message framing: requests out, responses and events in.
//!
//! Incoming messages are decoded into a loose shape on purpose: an event or field that a newer
//! Chromium adds is just another `method` string or an ignored key, never a decode failure.

use serde::Deserialize;
use serde_json::Value;

/// An error answer from the browser to one command.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct CdpError {
    #[serde(default)]
    pub code: i64,
    #[serde(default)]
    pub message: String,
    #[serde(default)]
    pub data: Option<String>,
}

#[derive(Debug, PartialEq)]
pub enum Incoming {
    Response {
        id: u64,
        result: Result<Value, CdpError>,
    },
    Event {
        session: Option<String>,
        method: String,
        params: Value,
    },
    /// Undecodable. Carries the id when one could be read, so that call can still be failed.
    Garbled { id: Option<u64>, error: String },
}

#[derive(Deserialize)]
struct Raw {
    id: Option<u64>,
    method: Option<String>,
    #[serde(rename = "sessionId")]
    session_id: Option<String>,
    params: Option<Value>,
    result: Option<Value>,
    error: Option<CdpError>,
}

pub fn decode(bytes: &[u8]) -> Incoming {
    let raw: Raw = match serde_json::from_slice(bytes) {
        Ok(raw) => raw,
        Err(e) => {
            return Incoming::Garbled {
                id: leading_id(bytes),
                error: e.to_string(),
            }
        }
    };
    match (raw.id, raw.method) {
        (Some(id), _) => Incoming::Response {
            id,
            result: match raw.error {
                Some(err) => Err(err),
                None => Ok(raw.result.unwrap_or(Value::Null)),
            },
        },
        (None, Some(method)) => Incoming::Event {
            session: raw.session_id,
            method,
            params: raw.params.unwrap_or(Value::Null),
        },
        (None, None) => Incoming::Garbled {
            id: None,
            error: "a message with neither id nor method".into(),
        },
    }
}

/// Chromium writes `{"id":N,...` first; read it without a full parse (used when the full
/// parse failed, e.g. a value nested deeper than the JSON parser allows).
fn leading_id(bytes: &[u8]) -> Option<u64> {
    let rest = bytes.strip_prefix(b"{\"id\":")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()
}

/// One request as the browser expects it.
pub fn encode(id: u64, session: Option<&str>, method: &str, params: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    out.extend_from_slice(format!("{{\"id\":{id},\"method\":").as_bytes());
    // serde_json cannot fail to write a &str or a Value into a Vec.
    let _ = serde_json::to_writer(&mut out, method);
    if let Some(session) = session {
        out.extend_from_slice(b",\"sessionId\":");
        let _ = serde_json::to_writer(&mut out, session);
    }
    out.extend_from_slice(b",\"params\":");
    let _ = serde_json::to_writer(&mut out, params);
    out.push(b'}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn responses_and_errors() {
        let ok = decode(br#"{"id":7,"result":{"x":1},"sessionId":"S"}"#);
        assert_eq!(
            ok,
            Incoming::Response {
                id: 7,
                result: Ok(json!({"x":1}))
            }
        );
        let err = decode(br#"{"id":8,"error":{"code":-32000,"message":"nope"}}"#);
        assert!(matches!(err, Incoming::Response { id: 8, result: Err(e) } if e.message == "nope"));
    }

    #[test]
    fn unknown_events_are_just_events() {
        let ev = decode(br#"{"method":"Future.somethingNew","params":{"a":[1]},"extra":true}"#);
        assert!(
            matches!(ev, Incoming::Event { method, session: None, .. } if method == "Future.somethingNew")
        );
    }

    #[test]
    fn too_deep_keeps_the_id() {
        let deep = format!(
            r#"{{"id":9,"result":{}{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        assert!(matches!(
            decode(deep.as_bytes()),
            Incoming::Garbled { id: Some(9), .. }
        ));
    }

    #[test]
    fn encodes_with_session() {
        let bytes = encode(
            1,
            Some("S1"),
            "Runtime.evaluate",
            &json!({"expression":"1"}),
        );
        let v: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(v["sessionId"], "S1");
        assert_eq!(v["params"]["expression"], "1");
    }
}
