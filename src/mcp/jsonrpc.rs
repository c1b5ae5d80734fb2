//! JSON-RPC 2.0 framing for MCP over stdio: one message per line.
//!
//! Parsing never fails the server: a bad line becomes an [`Incoming::Invalid`] that carries
//! the error to send back, so the caller answers it and carries on.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{json, Value};

pub(super) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
pub(super) const METHOD_NOT_FOUND: i64 = -32601;
pub(super) const INVALID_PARAMS: i64 = -32602;

/// A request's id exactly as the client wrote it (`18446744073709551616` and `1e2` come back
/// as written, not as a float), so the answer carries the same text.
pub(super) type Id = Box<RawValue>;

/// The id of an answer to a line whose id is not known.
pub(crate) fn null_id() -> Id {
    // serde_json's default raw value is `null`.
    Id::default()
}

/// One line read from the client, classified.
#[derive(Debug)]
pub(super) enum Incoming {
    Request {
        id: Id,
        method: String,
        params: Value,
    },
    /// Its params as written (`None` when absent or null): `notifications/cancelled` needs
    /// its `requestId` exactly.
    Notification { method: String, params: Option<Id> },
    /// A response to a request we sent (`roots/list`): its id and its result (`None` for an
    /// error answer).
    Response { id: Id, result: Option<Value> },
    /// Not a valid JSON-RPC message; answer with this error (id is null when unknown).
    Invalid { id: Id, code: i64, message: String },
}

/// The members of a message we read, as written. A member given twice counts once, the last
/// (as when the line is read into a JSON object).
type Members<'a> = HashMap<Cow<'a, str>, &'a RawValue>;

/// The members that matter. One that is present, even as `null`, is `Some`.
struct Envelope<'a> {
    id: Option<Id>,
    jsonrpc: Option<Value>,
    method: Option<Value>,
    /// Kept as text until the kind of message is known: a notification's are read as it
    /// needs (`requestId` keeps its exact text), a request's parsed once.
    params: Option<&'a RawValue>,
    result: Option<Value>,
    error: Option<Value>,
}

impl<'a> Envelope<'a> {
    fn of(mut members: Members<'a>) -> Envelope<'a> {
        // Valid JSON already: parsing it again cannot fail.
        let mut value = |name: &str| {
            let raw = members.remove(name)?;
            Some(serde_json::from_str(raw.get()).unwrap_or(Value::Null))
        };
        let (jsonrpc, method) = (value("jsonrpc"), value("method"));
        let (result, error) = (value("result"), value("error"));
        Envelope {
            id: members.remove("id").map(|raw| raw.to_owned()),
            jsonrpc,
            method,
            params: members.remove("params"),
            result,
            error,
        }
    }
}

/// Classifies one line. Blank lines are the caller's business (skip them).
pub(super) fn parse_line(line: &[u8]) -> Incoming {
    match serde_json::from_slice::<Members>(line) {
        Ok(members) => classify(Envelope::of(members)),
        Err(e) => not_a_message(line, e),
    }
}

/// Why a line is no message: bad JSON, a batch, or not an object.
fn not_a_message(line: &[u8], e: serde_json::Error) -> Incoming {
    let what = match serde_json::from_slice::<Value>(line) {
        Err(e) => {
            return Incoming::Invalid {
                id: null_id(),
                code: PARSE_ERROR,
                message: format!("Parse error: {e}"),
            }
        }
        Ok(Value::Array(_)) => "batches are not supported".to_owned(),
        Ok(Value::Object(_)) => e.to_string(),
        Ok(_) => "a message must be a JSON object".to_owned(),
    };
    invalid(null_id(), format!("Invalid Request: {what}"))
}

fn classify(e: Envelope) -> Incoming {
    if let Some(id) = &e.id {
        if !matches!(id_key(id), IdKey::Str(_) | IdKey::Num { .. } | IdKey::Null) {
            return invalid(
                null_id(),
                "Invalid Request: id must be a string or a number",
            );
        }
    }
    let id_or_null = || e.id.clone().unwrap_or_else(null_id);
    if e.jsonrpc.as_ref().and_then(Value::as_str) != Some("2.0") {
        return invalid(id_or_null(), "Invalid Request: jsonrpc must be \"2.0\"");
    }
    let method = match e.method {
        Some(Value::String(m)) => m,
        Some(_) => return invalid(id_or_null(), "Invalid Request: method must be a string"),
        None if e.result.is_some() || e.error.is_some() => {
            return Incoming::Response {
                id: id_or_null(),
                result: e.result,
            }
        }
        None => return invalid(id_or_null(), "Invalid Request: method is missing"),
    };
    let params = e.params.filter(|p| p.get() != "null");
    if params.is_some_and(|p| !matches!(p.get().as_bytes().first(), Some(b'{' | b'['))) {
        return invalid(id_or_null(), "Invalid Request: params must be an object");
    }
    let Some(id) = e.id else {
        let params = params.map(|p| p.to_owned());
        return Incoming::Notification { method, params };
    };
    // Valid JSON already; but a number it holds may not fit a float (`-1e999`).
    let params = match params.map(|p| serde_json::from_str(p.get())) {
        Some(Ok(p)) => p,
        Some(Err(e)) => {
            return Incoming::Invalid {
                id,
                code: INVALID_PARAMS,
                message: unreadable_params(params.map_or("", |p| p.get()), &e),
            }
        }
        None => Value::Object(Default::default()),
    };
    Incoming::Request { id, method, params }
}

/// What is wrong with params that are valid JSON and still cannot be read: a number out of
/// range, named as written (cut short).
fn unreadable_params(text: &str, e: &serde_json::Error) -> String {
    // A message is one line; the error's column is where the number ends (bytes, from 1).
    let before = text.get(..e.column().min(text.len())).unwrap_or(text);
    let number_char = |c: char| c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E');
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| number_char(*c))
        .last()
        .map_or(before.len(), |(i, _)| i);
    match &before[start..] {
        "" => format!("Invalid params: {e}"),
        number => format!(
            "Invalid params: the number {} is out of range (numbers must fit a 64-bit float)",
            crate::schema_problems::echoed(number)
        ),
    }
}

fn invalid(id: Id, message: impl Into<String>) -> Incoming {
    Incoming::Invalid {
        id,
        code: INVALID_REQUEST,
        message: message.into(),
    }
}

/// An id in a form two ids can be compared in (to match `notifications/cancelled`'s
/// `requestId` with a call, and a response with our request). The rule: ids are the same
/// when they are the same JSON value — strings by their content once unescaped (`"a"` and
/// `"\u0061"` match), numbers by their exact decimal value whatever their size or form (`1`,
/// `1.0`, `1e0` and `10e-1` match; `18446744073709551616` matches only itself, not
/// `18446744073709551617`), never a string with a number (`"1"` is not `1`).
#[derive(Debug, PartialEq, Eq)]
pub(super) enum IdKey {
    Null,
    Str(String),
    /// `±0.digits × 10^exp` with no leading or trailing zero digit (zero has no digits).
    Num {
        negative: bool,
        digits: String,
        exp: i64,
    },
    /// Anything else (an object, an array, a number whose exponent does not fit in i64):
    /// compared by its text.
    Other(String),
}

/// The `requestId` of `notifications/cancelled`'s params.
pub(super) fn request_id(params: Option<&RawValue>) -> Option<IdKey> {
    #[derive(Deserialize)]
    struct Cancelled<'a> {
        #[serde(rename = "requestId", borrow)]
        request_id: &'a RawValue,
    }
    let c: Cancelled = serde_json::from_str(params?.get()).ok()?;
    Some(id_key(c.request_id))
}

pub(super) fn id_key(id: &RawValue) -> IdKey {
    let text = id.get();
    match text.as_bytes().first() {
        Some(b'n') => IdKey::Null,
        Some(b'"') => match serde_json::from_str(text) {
            Ok(s) => IdKey::Str(s),
            Err(_) => IdKey::Other(text.to_owned()),
        },
        Some(b'-' | b'0'..=b'9') => {
            number_key(text).unwrap_or_else(|| IdKey::Other(text.to_owned()))
        }
        _ => IdKey::Other(text.to_owned()),
    }
}

/// A JSON number's exact value (the text is valid JSON already).
fn number_key(text: &str) -> Option<IdKey> {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exp) = match unsigned.find(['e', 'E']) {
        Some(i) => (&unsigned[..i], unsigned[i + 1..].parse::<i64>().ok()?),
        None => (unsigned, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all: String = [int, frac].concat();
    let lead = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_matches('0');
    if digits.is_empty() {
        return Some(IdKey::Num {
            negative: false,
            digits: String::new(),
            exp: 0,
        });
    }
    // The value is 0.<digits> × 10^exp once the leading zeros are gone.
    let int_len = i64::try_from(int.len()).ok()?;
    let lead = i64::try_from(lead).ok()?;
    Some(IdKey::Num {
        negative,
        digits: digits.to_owned(),
        exp: exp.checked_add(int_len)?.checked_sub(lead)?,
    })
}

/// A message to the client: `jsonrpc`, the id as the client wrote it, then the result or the
/// error. Serialized straight into the output.
#[derive(Serialize)]
pub(crate) struct Reply {
    jsonrpc: &'static str,
    id: Id,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<Value>,
}

impl Reply {
    /// The error's code, when it is an error.
    pub(super) fn code(&self) -> Option<i64> {
        self.error.as_ref().and_then(|e| e["code"].as_i64())
    }
}

/// A success response.
pub(super) fn response(id: &RawValue, result: Value) -> Reply {
    Reply {
        jsonrpc: "2.0",
        id: id.to_owned(),
        result: Some(result),
        error: None,
    }
}

/// An error response.
pub(crate) fn error(id: &RawValue, code: i64, text: &str) -> Reply {
    Reply {
        jsonrpc: "2.0",
        id: id.to_owned(),
        result: None,
        error: Some(json!({"code": code, "message": text})),
    }
}

/// An error response with `data` (what the client needs to recover, e.g. the versions we
/// speak).
pub(super) fn error_with_data(id: &RawValue, code: i64, text: &str, data: Value) -> Reply {
    Reply {
        jsonrpc: "2.0",
        id: id.to_owned(),
        result: None,
        error: Some(json!({"code": code, "message": text, "data": data})),
    }
}

/// A notification, built from its members, moving them in (`json!` would deep-copy a value
/// given to it).
pub(super) fn notification(method: &str, params: Value) -> Value {
    let mut m = serde_json::Map::with_capacity(3);
    m.insert("jsonrpc".into(), "2.0".into());
    m.insert("method".into(), method.into());
    m.insert("params".into(), params);
    Value::Object(m)
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
        assert!(
            matches!(&r, Incoming::Request { id, method, params } if id.get() == "1" && method == "ping" && *params == json!({})),
            "{r:?}"
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
            Incoming::Invalid { id, .. } => assert_eq!(id.get(), r#""a""#),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn responses_are_told_apart() {
        let ok = parse_line(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        assert!(
            matches!(&ok, Incoming::Response { id, result: Some(r) } if id.get() == "1" && *r == json!({})),
            "{ok:?}"
        );
        let err = parse_line(br#"{"jsonrpc":"2.0","id":"r","error":{"code":1,"message":"no"}}"#);
        assert!(
            matches!(&err, Incoming::Response { id, result: None } if id.get() == r#""r""#),
            "{err:?}"
        );
    }

    #[test]
    fn builders() {
        let three = RawValue::from_string("3".into()).unwrap();
        let r = serde_json::to_value(response(&three, json!({}))).unwrap();
        assert_eq!(r, json!({"jsonrpc": "2.0", "id": 3, "result": {}}));
        let e = serde_json::to_value(error(&null_id(), PARSE_ERROR, "bad")).unwrap();
        assert_eq!(e["error"]["code"], PARSE_ERROR);
        assert!(e["id"].is_null());
    }

    fn key(text: &str) -> IdKey {
        id_key(&RawValue::from_string(text.into()).unwrap())
    }

    #[test]
    fn ids_are_kept_as_written() {
        for id in [
            "18446744073709551616",
            "1e2",
            "-0.50",
            r#""a\u0062""#,
            "null",
        ] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            let Incoming::Request { id: got, .. } = parse_line(line.as_bytes()) else {
                panic!("{line}");
            };
            let answer = serde_json::to_string(&response(&got, json!({}))).unwrap();
            assert_eq!(
                answer,
                format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#)
            );
        }
    }

    #[test]
    fn a_member_given_twice_counts_as_the_last_and_a_null_id_is_an_id() {
        let r = parse_line(br#"{"jsonrpc":"2.0","id":1,"id":"b","method":"ping"}"#);
        assert!(
            matches!(&r, Incoming::Request { id, .. } if id.get() == r#""b""#),
            "{r:?}"
        );
        let r = parse_line(br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#);
        assert!(
            matches!(&r, Incoming::Request { id, .. } if id.get() == "null"),
            "{r:?}"
        );
        let r = parse_line(br#"{"jsonrpc":"2.0","id":2,"result":null}"#);
        assert!(
            matches!(
                &r,
                Incoming::Response {
                    result: Some(Value::Null),
                    ..
                }
            ),
            "{r:?}"
        );
    }

    #[test]
    fn ids_compare_by_value() {
        assert_eq!(key("1"), key("1.0"));
        assert_eq!(key("1"), key("1e0"));
        assert_eq!(key("1"), key("10e-1"));
        assert_eq!(key("100"), key("1E+2"));
        assert_eq!(key("0"), key("-0.0"));
        assert_eq!(key(r#""a""#), key(r#""\u0061""#));
        assert_ne!(key("18446744073709551616"), key("18446744073709551617"));
        assert_ne!(key("1"), key(r#""1""#));
        assert_ne!(key("-1"), key("1"));
        assert_ne!(key("0.1"), key("1"));
    }
}
