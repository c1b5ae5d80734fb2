//! `--slim`: the reference's three slim tools, which replace all the others in that mode so a
//! client pays for three short schemas. Names, arguments and answers are the reference's: the
//! answer is the bare result line (or `Error: …`), with no page list or dialog section.

use std::time::Duration;

use serde_json::Value;

use super::args::{self, max, tool_args};
use super::call::{self, CallId};
use super::ctx::Ctx;
use super::result::ToolResult;
use super::tool::Tool;
use super::{dialogs, policies, screenshot};
use crate::browser::{self, navigation, pages};
use crate::cdp::generated::runtime;
use crate::error::Error;
use crate::pagetools::page_code;
use crate::settings::Category;

/// The reference's slim `navigate` waits this long for the load.
const NAVIGATE_TIMEOUT: Duration = Duration::from_secs(30);

pub(super) const TOOLS: &[Tool] = &[
    Tool {
        name: "screenshot",
        description: "Screenshot the selected page's viewport to a PNG file; returns its path.",
        args: args::schema::<ScreenshotArgs>(),
        read_only: false,
        category: Category::Debugging,
        run: take,
    },
    Tool {
        name: "navigate",
        description: "Load a URL in the selected page; returns the URL it ended on.",
        args: args::schema::<NavigateArgs>(),
        read_only: false,
        category: Category::Navigation,
        run: navigate,
    },
    Tool {
        name: "evaluate",
        description: "Run a JavaScript expression in the selected page; returns its value as JSON.",
        args: args::schema::<EvaluateArgs>(),
        read_only: false,
        category: Category::Debugging,
        run: evaluate,
    },
];

/// Whether `tool` is one of the slim tools (they are offered only with `--slim`).
pub(super) fn is_slim(tool: &Tool) -> bool {
    TOOLS.iter().any(|t| t.name == tool.name)
}

fn answer(cx: &mut Ctx, call: CallId, r: Result<String, Error>) {
    match r {
        Ok(line) => call::finish(cx, call, ToolResult::text(line)),
        Err(e) => call::fail(cx, call, e),
    }
}

tool_args! {
    struct ScreenshotArgs {}
}

fn take(cx: &mut Ctx, call: CallId, args: Value) {
    if call::args::<ScreenshotArgs>(cx, call, args).is_none() {
        return;
    }
    call::on_page(cx, call, None, move |cx, page| {
        let done = move |cx: &mut Ctx, r: Result<std::path::PathBuf, Error>| {
            answer(cx, call, r.map(|path| path.display().to_string()))
        };
        screenshot::viewport_to_temp_file(cx, call, page, Box::new(done));
    });
}

tool_args! {
    struct NavigateArgs {
        "url" url: String = {"type": "string", "maxLength": max::URL, "description": "URL to load"},
    }
}

fn navigate(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<NavigateArgs>(cx, call, args) else {
        return;
    };
    if let Some(refusal) = policies::refused_url(&cx.settings, &args.url) {
        return call::fail(cx, call, refusal);
    }
    call::on_page(cx, call, None, move |cx, page| {
        let done = move |cx: &mut Ctx, r: Result<(), Error>| {
            let r = r.map(|()| {
                let url = cx.browser.pages.get(page).map(|p| p.url.as_str());
                format!("Navigated to {}.", url.unwrap_or_default())
            });
            answer(cx, call, r)
        };
        navigation::goto(cx, page, args.url, NAVIGATE_TIMEOUT, Box::new(done));
    });
}

tool_args! {
    struct EvaluateArgs {
        "script" script: String = {"type": "string", "maxLength": max::SCRIPT, "description": "JavaScript expression (awaited if a promise)"},
    }
}

fn evaluate(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<EvaluateArgs>(cx, call, args) else {
        return;
    };
    call::limit_by_default(cx, call, |ms| {
        format!("evaluate timed out after {ms} ms: the script did not settle.")
    });
    call::on_live_page(cx, call, None, move |cx, page| {
        if let Some(message) = dialogs::blocked(cx, page) {
            return call::fail(cx, call, message);
        }
        let session = match pages::session_of(&cx.browser.pages, page) {
            Ok(s) => s,
            Err(e) => return call::fail(cx, call, e),
        };
        call::runs_page_code(cx, call, page, &session, None);
        let request = runtime::EvaluateParams {
            expression: args.script,
            context_id: cx.browser.pages.get(page).and_then(|p| p.context),
            return_by_value: Some(true),
            await_promise: Some(true),
            user_gesture: Some(true),
            ..Default::default()
        };
        browser::send(cx, Some(&session), request, move |cx, r| {
            let r = r
                .map_err(page_code::page_error)
                .and_then(|a| match a.exception_details {
                    Some(ex) => Err(Error::Page(thrown(&ex))),
                    None => as_json(a.result),
                });
            answer(cx, call, r)
        });
    });
}

/// What the page threw, as the reference words it: an object's message, and `undefined` for
/// a thrown primitive (`throw "x"`), whose `message` the reference reads.
fn thrown(ex: &runtime::ExceptionDetails) -> String {
    match &ex.exception {
        Some(e) if e.object_id.is_none() && e.r#type != runtime::RemoteObjectType::Object => {
            "undefined".into()
        }
        _ => page_code::exception_message(ex),
    }
}

/// The value as the reference prints it, `JSON.stringify` of what the page returned: nothing
/// for `undefined`, `null` for the numbers JSON cannot hold.
fn as_json(v: runtime::RemoteObject) -> Result<String, Error> {
    if let Some(u) = v.unserializable_value {
        return match u.as_str() {
            "-0" => Ok("0".into()),
            u if u.ends_with('n') => {
                Err(Error::Page("Do not know how to serialize a BigInt".into()))
            }
            _ => Ok("null".into()),
        };
    }
    Ok(match v.value {
        Some(value) => value.to_string(),
        // A `null` arrives as `"value": null`, which decodes as no value.
        None if v.subtype == Some(runtime::RemoteObjectSubtype::Null) => "null".into(),
        None => String::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(v: Value) -> Result<String, String> {
        let object = serde_json::from_value(v).map_err(|e| e.to_string())?;
        as_json(object).map_err(|e| e.to_string())
    }

    #[test]
    fn values_print_as_json_stringify_would() {
        let ok = |s: &str| Ok(s.to_owned());
        assert_eq!(text(json!({"type": "number", "value": 3})), ok("3"));
        assert_eq!(
            text(json!({"type": "string", "value": "a\"b"})),
            ok("\"a\\\"b\"")
        );
        assert_eq!(
            text(json!({"type": "object", "value": {"a": [1, true]}})),
            ok("{\"a\":[1,true]}")
        );
        assert_eq!(text(json!({"type": "undefined"})), ok(""));
        assert_eq!(
            text(json!({"type": "object", "subtype": "null", "value": null})),
            ok("null")
        );
        assert_eq!(
            text(json!({"type": "number", "unserializableValue": "NaN"})),
            ok("null")
        );
        assert_eq!(
            text(json!({"type": "number", "unserializableValue": "-0"})),
            ok("0")
        );
        assert!(text(json!({"type": "bigint", "unserializableValue": "12n"})).is_err());
    }
}
