//! JSON-RPC 2.0 framing for MCP over stdio: one message per line.
//!
//! Parsing never fails the server: a bad line becomes an [`Incoming::Invalid`] that carries
//! the error to send back, so the caller answers it and carries on.

use serde_json::{json, Value};

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;

/// One line read from the client, classified.
#[derive(Debug, PartialEq)]
pub enum Incoming {
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    /// A response to a request we sent (`roots/list`): its id and its result (`None` for an
    /// error answer).
    Response {
        id: Value,
        result: Option<Value>,
    },
    /// Not a valid JSON-RPC message; answer with this error (id is null when unknown).
    Invalid {
        id: Value,
        code: i64,
        message: String,
    },
}

/// Classifies one line. Blank lines are the caller's business (skip them).
pub fn parse_line(line: &[u8]) -> Incoming {
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return Incoming::Invalid {
                id: Value::Null,
                code: PARSE_ERROR,
                message: format!("Parse error: {e}"),
            }
        }
    };
    classify(value)
}

fn classify(value: Value) -> Incoming {
    let Value::Object(mut obj) = value else {
        let what = if value.is_array() {
            "batches are not supported"
        } else {
            "a message must be a JSON object"
        };
        return invalid(Value::Null, format!("Invalid Request: {what}"));
    };
    let id = obj.remove("id");
    if let Some(id) = &id {
        if !(id.is_string() || id.is_number() || id.is_null()) {
            return invalid(
                Value::Null,
                "Invalid Request: id must be a string or a number",
            );
        }
    }
    let id_or_null = id.clone().unwrap_or(Value::Null);
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid(id_or_null, "Invalid Request: jsonrpc must be \"2.0\"");
    }
    let method = match obj.remove("method") {
        Some(Value::String(m)) => m,
        Some(_) => return invalid(id_or_null, "Invalid Request: method must be a string"),
        None if obj.contains_key("result") || obj.contains_key("error") => {
            return Incoming::Response {
                id: id_or_null,
                result: obj.remove("result"),
            }
        }
        None => return invalid(id_or_null, "Invalid Request: method is missing"),
    };
    let params = match obj.remove("params") {
        None | Some(Value::Null) => Value::Object(Default::default()),
        Some(p @ (Value::Object(_) | Value::Array(_))) => p,
        Some(_) => return invalid(id_or_null, "Invalid Request: params must be an object"),
    };
    match id {
        Some(id) => Incoming::Request { id, method, params },
        None => Incoming::Notification { method, params },
    }
}

fn invalid(id: Value, message: impl Into<String>) -> Incoming {
    Incoming::Invalid {
        id,
        code: INVALID_REQUEST,
        message: message.into(),
    }
}

/// A message built from its members, moving them in (`json!` would deep-copy a value given
/// to it, and a result can be a megabyte of text).
fn message(members: [(&str, Value); 3]) -> Value {
    let mut m = serde_json::Map::with_capacity(3);
    for (k, v) in members {
        m.insert(k.into(), v);
    }
    Value::Object(m)
}

/// A success response.
pub fn response(id: &Value, result: Value) -> Value {
    message([
        ("jsonrpc", "2.0".into()),
        ("id", id.clone()),
        ("result", result),
    ])
}

/// An error response.
pub fn error(id: &Value, code: i64, text: &str) -> Value {
    message([
        ("jsonrpc", "2.0".into()),
        ("id", id.clone()),
        ("error", json!({"code": code, "message": text})),
    ])
}

/// A notification.
pub fn notification(method: &str, params: Value) -> Value {
    message([
        ("jsonrpc", "2.0".into()),
        ("method", method.into()),
        ("params", params),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_of(i: Incoming) -> i64 {
        match i {
            Incoming::Invalid { code, .. } => code,
            other => panic!("expected invalid, got {other:?}"),
        }
    }

    #[test]
    fn request_and_notification() {
        let r = parse_line(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        assert_eq!(
            r,
            Incoming::Request {
                id: json!(1),
                method: "ping".into(),
                params: json!({})
            }
        );
        let n = parse_line(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert!(
            matches!(n, Incoming::Notification { method, .. } if method == "notifications/initialized")
        );
    }

    #[test]
    fn malformed_lines() {
        assert_eq!(code_of(parse_line(b"{not json")), PARSE_ERROR);
        assert_eq!(code_of(parse_line(b"[1,2]")), INVALID_REQUEST);
        assert_eq!(code_of(parse_line(b"42")), INVALID_REQUEST);
        assert_eq!(
            code_of(parse_line(br#"{"id":1,"method":"ping"}"#)),
            INVALID_REQUEST
        );
        assert_eq!(
            code_of(parse_line(br#"{"jsonrpc":"2.0","id":1,"method":7}"#)),
            INVALID_REQUEST
        );
        assert_eq!(
            code_of(parse_line(br#"{"jsonrpc":"2.0","id":{},"method":"x"}"#)),
            INVALID_REQUEST
        );
        assert_eq!(
            code_of(parse_line(
                br#"{"jsonrpc":"2.0","id":1,"method":"x","params":3}"#
            )),
            INVALID_REQUEST
        );
    }

    #[test]
    fn invalid_keeps_the_id_when_it_is_known() {
        match parse_line(br#"{"jsonrpc":"1.0","id":"a","method":"x"}"#) {
            Incoming::Invalid { id, .. } => assert_eq!(id, json!("a")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn responses_are_told_apart() {
        assert_eq!(
            parse_line(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            Incoming::Response {
                id: json!(1),
                result: Some(json!({}))
            }
        );
        assert_eq!(
            parse_line(br#"{"jsonrpc":"2.0","id":"r","error":{"code":1,"message":"no"}}"#),
            Incoming::Response {
                id: json!("r"),
                result: None
            }
        );
    }

    #[test]
    fn builders() {
        let r = response(&json!(3), json!({}));
        assert_eq!(r, json!({"jsonrpc": "2.0", "id": 3, "result": {}}));
        let e = error(&Value::Null, PARSE_ERROR, "bad");
        assert_eq!(e["error"]["code"], PARSE_ERROR);
        assert!(e["id"].is_null());
    }
}
