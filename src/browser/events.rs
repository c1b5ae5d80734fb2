//! Routing browser events: target lifecycle, documents, execution contexts, dialogs,
//! crashes, the shim's binding calls; then any waiter that asked for the event.

use serde_json::Value;

use crate::app::App;
use crate::browser::{self, pages};
use crate::error::Error;
use crate::log::log;

pub fn on_event(app: &mut App, session: Option<&str>, method: &str, params: Value) {
    match (session, method) {
        (_, "Target.attachedToTarget") => pages::attached(app, &params),
        (_, "Target.detachedFromTarget") => {
            if let Some(s) = params["sessionId"].as_str() {
                pages::detached(app, s);
            }
        }
        (_, "Target.targetInfoChanged") => pages::update_info(app, &params["targetInfo"]),
        (_, "Target.targetCrashed") => {
            let target = params["targetId"].as_str().unwrap_or("");
            if let Some(s) = app
                .browser
                .pages
                .by_target(target)
                .map(|p| p.session.clone())
            {
                crashed(app, &s);
            }
        }
        (Some(s), "Inspector.targetCrashed") => crashed(app, s),
        (Some(s), "Page.frameNavigated") => frame_navigated(app, s, &params["frame"]),
        (Some(s), "Page.lifecycleEvent") if params["name"] == "load" => {
            let frame = params["frameId"].as_str().unwrap_or("");
            if let Some(page) = app.browser.pages.by_session_mut(s) {
                if page.target_id == frame {
                    page.loaded_loader = params["loaderId"].as_str().map(str::to_owned);
                }
            }
        }
        (Some(s), "Page.javascriptDialogOpening") => dialog_opening(app, s, &params),
        (Some(s), "Page.javascriptDialogClosed") => {
            if let Some(page) = app.browser.pages.by_session_mut(s) {
                page.dialog = None;
            }
        }
        (Some(s), "Runtime.executionContextCreated") => {
            let ctx = &params["context"];
            let aux = &ctx["auxData"];
            if aux["isDefault"] == true {
                if let Some(page) = app.browser.pages.by_session_mut(s) {
                    if aux["frameId"].as_str() == Some(page.target_id.as_str()) {
                        page.context = ctx["id"].as_i64();
                    }
                }
            }
        }
        (Some(s), "Runtime.executionContextDestroyed") => {
            let id = params["executionContextId"].as_i64();
            if let Some(page) = app.browser.pages.by_session_mut(s) {
                if page.context == id {
                    page.context = None;
                }
            }
        }
        (Some(s), "Runtime.executionContextsCleared") => {
            if let Some(page) = app.browser.pages.by_session_mut(s) {
                page.context = None;
            }
        }
        (Some(s), "Runtime.bindingCalled") => crate::thirdparty::on_binding(app, s, &params),
        _ => {}
    }
    if let Some(s) = session {
        crate::tools::on_page_event(app, s, method, &params);
    }
    // Browser-level events are waited for under the session "".
    browser::waiters::on_event(app, session.unwrap_or(""), method, &params);
}

/// A new document in the main frame: everything tied to the old one is void.
fn frame_navigated(app: &mut App, session: &str, frame: &Value) {
    if !frame["parentId"].is_null() {
        return;
    }
    let Some(page) = app.browser.pages.by_session_mut(session) else {
        return;
    };
    if frame["id"].as_str() != Some(page.target_id.as_str()) {
        return;
    }
    page.document += 1;
    page.crashed = false;
    page.loaded_loader = None;
    if let Some(url) = frame["url"].as_str() {
        page.url = format!("{}{}", url, frame["urlFragment"].as_str().unwrap_or(""));
    }
    page.snapshot = None;
    page.extra_elements.clear();
    page.loader_id = frame["loaderId"].as_str().unwrap_or("").to_owned();
    let had_tools = page.tools.reset();
    if had_tools {
        crate::tools::page_tools_changed(app);
    }
}

fn crashed(app: &mut App, session: &str) {
    let Some(page) = app.browser.pages.by_session_mut(session) else {
        return;
    };
    log!("page {} crashed", page.id);
    page.crashed = true;
    page.context = None;
    page.snapshot = None;
    page.tools.reset();
    browser::fail_session(app, session, Error::Crashed);
}

/// A dialog opened. While a call runs page code here, the dialog is answered at once by
/// that call's policy (it would otherwise block the page's main thread and so the call) and
/// the call reports it; otherwise it stays open for `handle_dialog`, and answers mention it.
fn dialog_opening(app: &mut App, session: &str, params: &Value) {
    let dialog = pages::Dialog {
        kind: params["type"].as_str().unwrap_or("alert").to_owned(),
        message: params["message"].as_str().unwrap_or("").to_owned(),
        default_prompt: params["defaultPrompt"].as_str().unwrap_or("").to_owned(),
    };
    let live: Vec<(u64, String)> = match app.browser.pages.by_session(session) {
        Some(page) => page
            .script_calls
            .iter()
            .filter(|(call, _)| app.calls.contains(*call))
            .cloned()
            .collect(),
        None => return,
    };
    let Some(page) = app.browser.pages.by_session_mut(session) else {
        return;
    };
    page.script_calls = live;
    let Some((call, policy)) = page.script_calls.first().cloned() else {
        page.dialog = Some(dialog);
        return;
    };
    let (accept, text, verb) = match policy.as_str() {
        "dismiss" => (false, String::new(), "dismissed"),
        "accept" => (true, dialog.default_prompt.clone(), "accepted"),
        other => (true, other.to_owned(), "accepted"),
    };
    page.dialog_notes.push((
        call,
        format!(
            "{} {} dialog opened while the script ran (\"{}\"); it was {verb}.",
            if dialog.kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "An"
            } else {
                "A"
            },
            dialog.kind,
            dialog.message
        ),
    ));
    browser::fire(
        app,
        Some(session),
        "Page.handleJavaScriptDialog",
        serde_json::json!({"accept": accept, "promptText": text}),
    );
}
