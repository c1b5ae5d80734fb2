//! `upload_file`: files go straight into an `<input type=file>`; for any other element (a
//! styled button that opens a file chooser) the element is clicked with file choosers
//! intercepted, and the chooser it opens gets the files.

use serde_json::{json, Value};

use super::element::{failed, Element};
use super::{begin, click_element, elements, reply, said, str_arg, watch};
use crate::browser;
use crate::error::Error;
use crate::tools::fail;
use crate::tools::CallId;
use crate::tools::{Ctx, Done};

/// Whether the element is a file input, and whether it takes the files given.
const FILE_INPUT: &str = r#"function(count) {
  if (!(this instanceof HTMLInputElement) || this.type !== 'file') return 'other';
  if (count > 1 && !this.multiple) return 'single';
  if (this.disabled) return 'disabled';
  return 'file';
}"#;

/// How long clicking a non-input element may take to open a file chooser.
const FILE_CHOOSER_LIMIT: std::time::Duration = std::time::Duration::from_secs(3);

pub(super) fn upload_file(cx: &mut Ctx, call: CallId, args: Value) {
    let uid = str_arg(&args, "uid");
    let include_snapshot = args["includeSnapshot"].as_bool().unwrap_or(false);
    let given: Vec<String> = args["filePaths"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|p| p.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let mut files = Vec::new();
    let local = matches!(cx.settings.source, crate::settings::BrowserSource::Launch);
    for path in given.iter().filter(|p| !p.trim().is_empty()) {
        if !local {
            // The files live where the browser runs; we cannot check them from here.
            files.push(path.clone());
            continue;
        }
        match std::fs::canonicalize(path) {
            Ok(p) if p.is_file() => files.push(p.to_string_lossy().into_owned()),
            Ok(_) => {
                return fail(
                    cx,
                    call,
                    format!("Failed to upload file. {path} is not a file."),
                )
            }
            Err(e) => {
                return fail(
                    cx,
                    call,
                    format!("Failed to upload file. Cannot read {path}: {e}."),
                )
            }
        }
    }
    begin(cx, call, &args, move |cx, page| {
        elements(cx, call, page, vec![uid], move |cx, session, els| {
            let Some(el) = els.into_iter().next() else {
                return fail(cx, call, "No element to upload through.");
            };
            let list = files.clone();
            let action: watch::Action =
                Box::new(move |cx, done| upload(cx, session, el, list, done));
            watch::act(
                cx,
                page,
                false,
                action,
                Box::new(move |cx, r| match r {
                    Err(e) => fail(cx, call, e),
                    Ok(o) => {
                        let shown = given.join(", ");
                        let line = said(
                            &o,
                            &format!("File uploaded from {shown}."),
                            "The files were given to the element and it opened a dialog.",
                        );
                        reply(cx, call, page, line, o, include_snapshot)
                    }
                }),
            );
        });
    });
}

fn upload(cx: &mut Ctx, session: String, el: Element, files: Vec<String>, done: Done<()>) {
    let s = session.clone();
    browser::send_raw(
        cx,
        Some(&session),
        "Runtime.callFunctionOn",
        json!({
            "functionDeclaration": FILE_INPUT,
            "objectId": el.object_id,
            "arguments": [{"value": files.len()}],
            "returnByValue": true,
        }),
        Box::new(move |cx, r| {
            let kind = match r {
                Ok(v) => v["result"]["value"].as_str().unwrap_or("other").to_owned(),
                Err(e) => return done(cx, Err(e)),
            };
            match kind.as_str() {
                "file" => {
                    let params = json!({"files": files, "objectId": el.object_id});
                    browser::send_raw(
                        cx,
                        Some(&s),
                        "DOM.setFileInputFiles",
                        params,
                        Box::new(move |cx, r| done(cx, r.map(|_| ()))),
                    );
                }
                "single" => done(
                    cx,
                    Err(Error::Invalid(
                        "Multiple file uploads only work with <input type=file multiple>".into(),
                    )),
                ),
                "disabled" => done(cx, Err(failed(&el.uid, "The element is disabled."))),
                _ => upload_through_chooser(cx, s, el, files, done),
            }
        }),
    );
}

/// For an element that is not a file input: click it with file choosers intercepted, and
/// give the files to the chooser it opens.
fn upload_through_chooser(
    cx: &mut Ctx,
    session: String,
    el: Element,
    files: Vec<String>,
    done: Done<()>,
) {
    let once = crate::tools::Once::new(done);
    let s = session.clone();
    let on_chooser = once.clone();
    browser::fire_raw(
        cx,
        Some(&session),
        "Page.setInterceptFileChooserDialog",
        json!({"enabled": true}),
    );
    browser::waiters::wait_raw(
        cx,
        &session,
        "Page.fileChooserOpened",
        |_| true,
        FILE_CHOOSER_LIMIT,
        String::new(),
        Box::new(move |cx, r| {
            browser::fire_raw(
                cx,
                Some(&s),
                "Page.setInterceptFileChooserDialog",
                json!({"enabled": false}),
            );
            let opened = match r {
                Ok(e) => e,
                Err(_) => return on_chooser.call(cx, Err(no_chooser())),
            };
            let Some(node) = opened["backendNodeId"].as_i64() else {
                return on_chooser.call(cx, Err(no_chooser()));
            };
            browser::send_raw(
                cx,
                Some(&s),
                "DOM.setFileInputFiles",
                json!({"files": files, "backendNodeId": node}),
                Box::new(move |cx, r| on_chooser.call(cx, r.map(|_| ()))),
            );
        }),
    );
    let on_click = once.clone();
    let s = session.clone();
    click_element(
        cx,
        session,
        el,
        false,
        Box::new(move |cx, r| {
            if r.is_err() {
                browser::fire_raw(
                    cx,
                    Some(&s),
                    "Page.setInterceptFileChooserDialog",
                    json!({"enabled": false}),
                );
                on_click.call(cx, Err(no_chooser()));
            }
        }),
    );
}

fn no_chooser() -> Error {
    Error::Page("Failed to upload file. The element could not accept the file directly, and clicking it did not trigger a file chooser.".into())
}
