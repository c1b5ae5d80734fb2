//! `screencast_start` / `screencast_stop`: a video of the page, recorded by the browser
//! itself (`Page.startScreenRecording`, an mp4 stream it holds until the recording stops),
//! then read piece by piece into the file, as the reference's built-in recorder does.

use crate::tools::args::Schema;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;

use serde_json::{json, Value};

use crate::browser::{self, pages, PageId};
use crate::cdp::generated::{page as cdp_page, runtime};
use crate::error::{Error, Fault};
use crate::settings::Category;
use crate::tools::args::{self, max};
use crate::tools::files::{self, Roots};
use crate::tools::response::{finish, Response};
use crate::tools::{call, fail, stream, CallId, Ctx, Done, Tool};

pub const TOOLS: &[Tool] = &[
    Tool {
        name: "screencast_start",
        description:
            "Start recording a video (mp4) of the page; screencast_stop ends it and saves the file.",
        args: Schema {
            properties: || {
                json!({
                    "filePath": {
                        "type": "string", "maxLength": max::PATH,
                        "description": "Default: a temporary file.",
                    },
                })
            },
            required: &[],
        },
        category: Category::Debugging,
        read_only: false,
        page_scoped: true,
        run: screencast_start,
    },
    Tool {
        name: "screencast_stop",
        description: "Stop and save the recording.",
        args: Schema {
            properties: || json!({}),
            required: &[],
        },
        category: Category::Debugging,
        read_only: false,
        page_scoped: true,
        run: screencast_stop,
    },
];

/// The largest frame side asked for: the page reports its own size, and a page is not
/// trusted to keep it reasonable.
const MAX_SIDE: f64 = 8192.0;

/// A page's recording: nothing, starting, or running into `path`.
#[derive(Default)]
pub enum Recording {
    #[default]
    Idle,
    Starting,
    Running {
        stream: String,
        path: PathBuf,
        file: File,
    },
}

fn screencast_start(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = crate::tools::call::args::<args::OnlyShared>(cx, call, args) else {
        return;
    };
    let given = args.shared.file_path.clone();
    call::on_live_page(cx, call, args.shared.page(), move |cx, page| {
        if !matches!(cx.recordings.get(page), None | Some(Recording::Idle)) {
            let mut resp = Response::for_page(page);
            resp.line("Error: a screencast recording is already in progress. Use screencast_stop to stop it before starting a new one.");
            return finish(cx, call, resp);
        }
        let given = match given {
            Some(path) => path,
            None => match files::temp_dir() {
                Ok(dir) => dir.join("screencast.mp4").to_string_lossy().into_owned(),
                Err(message) => return fail(cx, call, message),
            },
        };
        let (path, file) = match files::create_as(&Roots::of(cx), &given, "mp4") {
            Ok(opened) => opened,
            Err(message) => return fail(cx, call, message),
        };
        let session = match pages::session_of(&cx.browser.pages, page) {
            Ok(s) => s,
            Err(e) => return fail(cx, call, e),
        };
        call::limit_by_default(cx, call, |ms| {
            format!("The recording did not start within {ms} ms (is the page's main thread busy?).")
        });
        *cx.recordings.entry(page) = Recording::Starting;
        start(cx, page, session, path, file, call);
    });
}

/// Records at the page's size in device pixels: without a size the browser scales frames
/// down to a small default.
fn start(cx: &mut Ctx, page: PageId, session: String, path: PathBuf, file: File, call: CallId) {
    let s = session.clone();
    pixel_size(cx, &session, move |cx, size| {
        let params = cdp_page::StartScreenRecordingParams {
            max_width: size.map(|(w, _)| w),
            max_height: size.map(|(_, h)| h),
            ..Default::default()
        };
        browser::send(cx, Some(&s), params, move |cx, r| {
            let started = match r {
                Ok(started) => started,
                Err(e) => {
                    *cx.recordings.entry(page) = Recording::Idle;
                    let _ = std::fs::remove_file(&path);
                    return fail(cx, call, unsupported_or(e));
                }
            };
            let line = format!("Screencast recording started. The recording will be saved to {}. Use screencast_stop to stop recording.", path.display());
            *cx.recordings.entry(page) = Recording::Running {
                stream: started.stream,
                path,
                file,
            };
            let mut resp = Response::for_page(page);
            resp.line(line);
            finish(cx, call, resp);
        });
    });
}

/// The reference's words for a browser without the command.
fn unsupported_or(e: Error) -> String {
    match e {
        Error::Cdp {
            fault: Fault::UnknownMethod,
            ..
        } => {
            "The connected Chrome does not support screen recording. Update Chrome to a newer version.".to_owned()
        }
        e => e.to_string(),
    }
}

/// The viewport in device pixels as the page reports it, bounded; `None` when it cannot say.
fn pixel_size(
    cx: &mut Ctx,
    session: &str,
    then: impl FnOnce(&mut Ctx, Option<(i64, i64)>) + 'static,
) {
    let params = runtime::EvaluateParams {
        expression: "[innerWidth * devicePixelRatio, innerHeight * devicePixelRatio]".into(),
        return_by_value: Some(true),
        ..Default::default()
    };
    browser::send(cx, Some(session), params, move |cx, r| {
        let side = |v: &Value| {
            v.as_f64()
                .filter(|n| n.is_finite())
                .map(|n| n.round().clamp(1.0, MAX_SIDE) as i64)
        };
        let size = r.ok().and_then(|r| r.result.value).and_then(|v| {
            let pair = v.as_array()?;
            Some((side(pair.first()?)?, side(pair.get(1)?)?))
        });
        then(cx, size)
    });
}

fn screencast_stop(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = crate::tools::call::args::<args::OnlyShared>(cx, call, args) else {
        return;
    };
    call::on_page(cx, call, args.shared.page(), move |cx, page| {
        let recording = cx.recordings.get_mut(page).map(std::mem::take);
        let Some(Recording::Running { stream, path, file }) = recording else {
            if let Some(Recording::Starting) = recording {
                *cx.recordings.entry(page) = Recording::Starting;
            }
            let mut resp = Response::for_page(page);
            resp.line("Error: no active screencast recording to stop.");
            return finish(cx, call, resp);
        };
        let session = match pages::session_of(&cx.browser.pages, page) {
            Ok(s) => s,
            Err(e) => return fail(cx, call, e),
        };
        stop(
            cx,
            session,
            stream,
            file,
            Box::new(move |cx, r| match r {
                Ok(()) => {
                    let mut resp = Response::for_page(page);
                    resp.line(format!(
                        "The screencast recording has been stopped and saved to {}.",
                        path.display()
                    ));
                    finish(cx, call, resp);
                }
                Err(e) => fail(cx, call, e),
            }),
        );
    });
}

/// Stops the recording, then reads the browser's stream into the file.
fn stop(cx: &mut Ctx, session: String, stream_handle: String, file: File, done: Done<()>) {
    let s = session.clone();
    browser::send(
        cx,
        Some(&session),
        cdp_page::StopScreenRecordingParams {},
        move |cx, r| {
            if let Err(e) = r {
                return done(cx, Err(e));
            }
            let sink = Recorded(file);
            stream::read_to_end(
                cx,
                s,
                stream_handle,
                sink,
                Box::new(|cx, r| done(cx, r.map(drop))),
            );
        },
    );
}

/// The recording's file, as the stream's sink.
struct Recorded(File);

impl stream::Sink for Recorded {
    fn put(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.0
            .write_all(bytes)
            .map_err(|e| Error::Page(format!("Could not write the recording: {e}")))
    }
}
