//! What running code in a page can end with, in the words agents read: an exception the
//! page threw, or a document that went away under the call. Shared by page tools and by
//! the tools that run the agent's own scripts.

use crate::cdp::generated::runtime;
use crate::error::{Error, Fault};

/// What an agent should read when the page threw, as the reference words it: an Error's
/// message (without its name and stack: the reference's answer is `Error: <message>`), or the
/// thrown value itself.
pub(crate) fn exception_message(ex: &runtime::ExceptionDetails) -> String {
    let Some(exception) = &ex.exception else {
        return thrown_text(ex);
    };
    if let Some(desc) = &exception.description {
        if exception.subtype == Some(runtime::RemoteObjectSubtype::Error) {
            return error_message(desc, exception.class_name.as_deref().unwrap_or(""));
        }
        return desc.clone();
    }
    // A thrown `null` arrives as `"value": null`, which decodes as no value.
    if exception.subtype == Some(runtime::RemoteObjectSubtype::Null) {
        return "null".into();
    }
    match &exception.value {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => thrown_text(ex),
    }
}

fn thrown_text(ex: &runtime::ExceptionDetails) -> String {
    if ex.text.is_empty() {
        "The script threw an exception.".into()
    } else {
        ex.text.clone()
    }
}

/// The message part of an Error's description (`<Name>: <message>` then stack frames).
fn error_message(description: &str, class_name: &str) -> String {
    let head = match description.find("\n    at ") {
        Some(i) => &description[..i],
        None => description,
    };
    let name = if class_name.is_empty() {
        head.split(':').next().unwrap_or("")
    } else {
        class_name
    };
    match head.strip_prefix(name) {
        Some("") => String::new(),
        Some(rest) => rest.strip_prefix(": ").unwrap_or(head).to_owned(),
        None => head.to_owned(),
    }
}

/// `Runtime.evaluate` of `expression` in the page: its promise awaited, its value answered as
/// JSON.
pub(crate) fn awaited(expression: String) -> runtime::EvaluateParams {
    runtime::EvaluateParams {
        expression,
        await_promise: Some(true),
        return_by_value: Some(true),
        ..Default::default()
    }
}

/// A command that ran page code failed: a lost document becomes [`Error::PageGone`] in the
/// page's terms; anything else stays as it is.
pub(crate) fn page_error(e: Error) -> Error {
    match &e {
        Error::Cdp {
            fault: Fault::ContextLost,
            ..
        } => Error::PageGone(
            "The page navigated away (or reloaded) before the script finished.".into(),
        ),
        _ => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn message(ex: Value) -> String {
        exception_message(&serde_json::from_value(ex).unwrap())
    }

    #[test]
    fn an_error_is_reported_by_its_message() {
        let ex = |class: &str, desc: &str| json!({"exception": {"type": "object", "subtype": "error", "className": class, "description": desc}});
        let stack = "\n    at <anonymous>:7:15\n    at <anonymous>:8:2";
        assert_eq!(
            message(ex("Error", &format!("Error: boom here{stack}"))),
            "boom here"
        );
        assert_eq!(
            message(ex(
                "TypeError",
                &format!("TypeError: x is not a function{stack}")
            )),
            "x is not a function"
        );
        assert_eq!(
            message(ex("SyntaxError", "SyntaxError: Unexpected token ')'")),
            "Unexpected token ')'"
        );
        assert_eq!(message(ex("Error", &format!("Error{stack}"))), "");
        // A message over several lines keeps them all.
        assert_eq!(
            message(ex(
                "TypeError",
                &format!("TypeError: first\n    --> second{stack}")
            )),
            "first\n    --> second"
        );
        // A thrown value that is not an Error is shown as it is.
        assert_eq!(
            message(json!({"exception": {"type": "string", "value": "plain"}})),
            "plain"
        );
        assert_eq!(
            message(json!({"exception": {"type": "number", "value": 42, "description": "42"}})),
            "42"
        );
        assert_eq!(
            message(json!({"exception": {"type": "object", "subtype": "null", "value": null}})),
            "null"
        );
        assert_eq!(
            message(json!({"text": "Uncaught", "exception": {"type": "undefined"}})),
            "Uncaught"
        );
    }

    #[test]
    fn a_lost_document_reads_in_the_pages_terms() {
        let method = <runtime::EvaluateParams as crate::cdp::Command>::METHOD;
        let cdp = |m: &str| Error::cdp(method, m.into());
        assert!(matches!(
            page_error(cdp("Execution context was destroyed.")),
            Error::PageGone(_)
        ));
        assert_eq!(page_error(cdp("other")), cdp("other"));
    }
}
