//! `upload_file`: files go straight into an `<input type=file>`; for any other element (a
//! styled button that opens a file chooser) the element is clicked with file choosers
//! intercepted, and the chooser it opens gets the files.

use crate::tools::args::Schema;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};

use super::click::click_element;
use super::element::{argument, failed, Element};
use super::{begin, elements, reply, said, watch};
use crate::browser::{self, waiters};
use crate::cdp::generated::page::{FileChooserOpenedEvent, SetInterceptFileChooserDialogParams};
use crate::cdp::generated::{dom, runtime};
use crate::error::Error;
use crate::settings::BrowserSource;
use crate::settings::Category;
use crate::tools::args::{max, Shared};
use crate::tools::{fail, CallId, Ctx, Done, Once, Tool};

pub const TOOL: Tool = Tool {
    name: "upload_file",
    description:
        "Upload files through a file input, or an element that opens a file chooser, by uid.",
    args: Schema {
        properties: || {
            json!({
                "uid": {"type": "string", "maxLength": max::UID},
                "filePaths": {"type": "array", "items": {"type": "string", "maxLength": max::PATH}, "minItems": 1, "maxItems": max::ITEMS},
                "includeSnapshot": {"type": "boolean"},
            })
        },
        required: &["uid", "filePaths"],
    },
    read_only: false,
    page_scoped: true,
    category: Category::Input,
    run,
};

#[derive(Deserialize)]
struct Args {
    #[serde(flatten)]
    shared: Shared,
    uid: String,
    #[serde(rename = "filePaths")]
    file_paths: Vec<String>,
    #[serde(rename = "includeSnapshot", default)]
    include_snapshot: bool,
}

/// Whether the element is a file input, and whether it takes the files given.
const FILE_INPUT: &str = r#"function(count) {
  if (!(this instanceof HTMLInputElement) || this.type !== 'file') return 'other';
  if (count > 1 && !this.multiple) return 'single';
  if (this.disabled) return 'disabled';
  return 'file';
}"#;

/// How long clicking a non-input element may take to open a file chooser.
const FILE_CHOOSER_LIMIT: Duration = Duration::from_secs(3);

fn run(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(a) = crate::tools::call::args::<Args>(cx, call, args) else {
        return;
    };
    let files = match local_files(cx, &a.file_paths) {
        Ok(f) => f,
        Err(message) => return fail(cx, call, message),
    };
    let (uid, given) = (a.uid, a.file_paths);
    begin(cx, call, a.shared.page(), move |cx, page| {
        elements(cx, call, page, vec![uid], move |cx, session, els| {
            let Some(el) = els.into_iter().next() else {
                return fail(cx, call, "No element to upload through.");
            };
            let action: watch::Action =
                Box::new(move |cx, done| upload(cx, session, el, files, done));
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
                            format!("File uploaded from {shown}."),
                            "The files were given to the element and it opened a dialog.".into(),
                        );
                        reply::reply(cx, call, page, line, o, a.include_snapshot)
                    }
                }),
            );
        });
    });
}

/// The files to give, blank paths left out. With a browser we launched they are on this
/// machine: each must be a file, and goes by its full path.
fn local_files(cx: &Ctx, given: &[String]) -> Result<Vec<String>, String> {
    let local = matches!(cx.settings.source, BrowserSource::Launch);
    let mut files = Vec::new();
    for path in given.iter().filter(|p| !p.trim().is_empty()) {
        if !local {
            // The files live where the browser runs; we cannot check them from here.
            files.push(path.clone());
            continue;
        }
        match std::fs::canonicalize(path) {
            Ok(p) if p.is_file() => files.push(p.to_string_lossy().into_owned()),
            Ok(_) => return Err(format!("Failed to upload file. {path} is not a file.")),
            Err(e) => return Err(format!("Failed to upload file. Cannot read {path}: {e}.")),
        }
    }
    Ok(files)
}

fn upload(cx: &mut Ctx, session: String, el: Element, files: Vec<String>, done: Done<()>) {
    let s = session.clone();
    let params = runtime::CallFunctionOnParams {
        function_declaration: FILE_INPUT.to_owned(),
        object_id: Some(el.object_id.clone()),
        arguments: Some(vec![argument(json!(files.len()))]),
        return_by_value: Some(true),
        ..Default::default()
    };
    browser::send(cx, Some(&el.session.clone()), params, move |cx, r| {
        let kind = match r {
            Ok(r) => r.result.value.and_then(|v| v.as_str().map(str::to_owned)),
            Err(e) => return done(cx, Err(e)),
        };
        match kind.as_deref().unwrap_or("other") {
            "file" => {
                let params = dom::SetFileInputFilesParams {
                    files,
                    object_id: Some(el.object_id),
                    ..Default::default()
                };
                browser::send(cx, Some(&el.session), params, move |cx, r| {
                    done(cx, r.map(|_| ()))
                });
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
    });
}

/// Turns the interception of file choosers on or off.
fn intercept(cx: &mut Ctx, session: &str, enabled: bool) {
    let params = SetInterceptFileChooserDialogParams {
        enabled,
        ..Default::default()
    };
    browser::fire(cx, Some(session), params);
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
    let once = Once::new(done);
    let s = session.clone();
    let on_chooser = once.clone();
    intercept(cx, &session, true);
    waiters::wait(
        cx,
        &session,
        |_: &FileChooserOpenedEvent| true,
        FILE_CHOOSER_LIMIT,
        String::new(),
        Box::new(move |cx, r| {
            intercept(cx, &s, false);
            let Some(node) = r
                .ok()
                .and_then(|e: FileChooserOpenedEvent| e.backend_node_id)
            else {
                return on_chooser.call(cx, Err(no_chooser()));
            };
            let params = dom::SetFileInputFilesParams {
                files,
                backend_node_id: Some(node),
                ..Default::default()
            };
            browser::send(cx, Some(&s), params, move |cx, r| {
                on_chooser.call(cx, r.map(|_| ()))
            });
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
                intercept(cx, &s, false);
                on_click.call(cx, Err(no_chooser()));
            }
        }),
    );
}

fn no_chooser() -> Error {
    Error::Page("Failed to upload file. The element could not accept the file directly, and clicking it did not trigger a file chooser.".into())
}
