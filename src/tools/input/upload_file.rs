//! `upload_file`: files go straight into an `<input type=file>`; for any other element (a
//! styled button that opens a file chooser) the element is clicked with file choosers
//! intercepted, and the chooser it opens gets the files.

use std::time::Duration;

use serde_json::{json, Value};

use super::action::{said, Aim, Gesture, Input, InputCall, Target};
use super::click::click_element;
use super::element::{argument, failed, Element};
use super::watch::Outcome;
use crate::browser::{self, waiters, Flow, PageId};
use crate::cdp::generated::page::{FileChooserOpenedEvent, SetInterceptFileChooserDialogParams};
use crate::cdp::generated::{dom, runtime};
use crate::error::Error;
use crate::settings::{BrowserSource, Category};
use crate::tools::args::{self, max, tool_args};
use crate::tools::call::{self, CallId};
use crate::tools::ctx::{Ctx, Done, Once};
use crate::tools::tool::Tool;

pub(super) const TOOL: Tool = Tool {
    name: "upload_file",
    description:
        "Upload files through a file input, or an element that opens a file chooser, by uid.",
    args: args::schema::<Args>(),
    read_only: false,
    category: Category::Input,
    run,
};

tool_args! {
    struct Args {
        "uid" uid: String = {"type": "string", "maxLength": max::UID},
        "filePaths" file_paths: Vec<String> = {"type": "array", "items": {"type": "string", "maxLength": max::PATH}, "minItems": 1, "maxItems": max::ITEMS},
        "includeSnapshot" include_snapshot: Option<bool> = {"type": "boolean"},
        "pageId" page: Option<PageId> = (args::page_id()),
    }
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
    let Some(args) = call::args::<Args>(cx, call, args) else {
        return;
    };
    let files = match local_files(cx, &args.file_paths) {
        Ok(f) => f,
        Err(message) => return call::fail(cx, call, message),
    };
    let page = args.page;
    InputCall::new(call, Upload { args, files }).start(cx, page);
}

/// The call's part of an upload: the files as given (for the answer) and as the browser
/// gets them.
struct Upload {
    args: Args,
    files: Vec<String>,
}

impl Input for Upload {
    fn aim(&self) -> Aim {
        Aim::Elements(vec![self.args.uid.clone()])
    }

    fn gesture(&mut self, target: Target) -> Gesture {
        let files = std::mem::take(&mut self.files);
        Box::new(move |cx, done| {
            let Some(el) = target.elements.into_iter().next() else {
                return done(
                    cx,
                    Err(Error::Invalid("No element to upload through.".into())),
                );
            };
            let upload = Uploading {
                session: target.session,
                el,
                files,
                done,
            };
            upload.ask_kind(cx)
        })
    }

    fn answer(&self, outcome: &Outcome) -> (String, bool) {
        let shown = self.args.file_paths.join(", ");
        let line = said(
            outcome,
            &format!("File uploaded from {shown}."),
            "The files were given to the element and it opened a dialog.",
        );
        (line, self.args.include_snapshot == Some(true))
    }

    /// An upload is answered once the browser has the files: it waits for no navigation or
    /// DOM change after.
    fn settles(&self) -> bool {
        false
    }
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

/// Giving the files to the element, or to the file chooser it opens.
struct Uploading {
    /// The page's session, which a click goes through.
    session: String,
    el: Element,
    files: Vec<String>,
    done: Done<()>,
}

enum Step {
    /// What kind of element it is (see [`FILE_INPUT`]).
    Kind(Result<Option<String>, Error>),
}

impl Flow<Ctx> for Uploading {
    type Step = Step;

    fn next(self, cx: &mut Ctx, step: Step) {
        let kind = match step {
            Step::Kind(Ok(kind)) => kind,
            Step::Kind(Err(e)) => return (self.done)(cx, Err(e)),
        };
        match kind.as_deref().unwrap_or("other") {
            "file" => self.give(cx),
            "single" => (self.done)(
                cx,
                Err(Error::Invalid(
                    "Multiple file uploads only work with <input type=file multiple>".into(),
                )),
            ),
            "disabled" => (self.done)(cx, Err(failed(&self.el.uid, "The element is disabled."))),
            _ => upload_through_chooser(cx, self.session, self.el, self.files, self.done),
        }
    }
}

/// The kind of element the page answered.
fn kind(r: Result<runtime::CallFunctionOnReturns, Error>) -> Step {
    Step::Kind(r.map(|a| a.result.value.and_then(|v| v.as_str().map(str::to_owned))))
}

impl Uploading {
    fn ask_kind(self, cx: &mut Ctx) {
        let params = runtime::CallFunctionOnParams {
            function_declaration: FILE_INPUT.to_owned(),
            object_id: Some(self.el.object_id.clone()),
            arguments: Some(vec![argument(json!(self.files.len()))]),
            return_by_value: Some(true),
            ..Default::default()
        };
        let frame = self.el.session.clone();
        browser::send(cx, Some(&frame), params, self.then(kind));
    }

    /// A file input takes the files directly.
    fn give(self, cx: &mut Ctx) {
        let Uploading {
            el, files, done, ..
        } = self;
        let params = dom::SetFileInputFilesParams {
            files,
            object_id: Some(el.object_id),
            ..Default::default()
        };
        browser::send(cx, Some(&el.session), params, move |cx, r| {
            done(cx, r.map(|_| ()))
        });
    }
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
