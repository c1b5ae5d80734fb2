//! `screencast_start` / `screencast_stop`: a video of the page, recorded by the browser
//! itself (`Page.startScreenRecording`, an mp4 stream it holds until the recording stops),
//! then read piece by piece into the file, as the reference's built-in recorder does.
//! [`Start::next`] and [`Stop::next`] are the two calls' stories.

pub(super) mod recording;

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;

use serde_json::Value;

use super::args::{self, max, tool_args, PageOnly};
use super::call::{self, CallId};
use super::ctx::Ctx;
use super::files::{self, Roots};
use super::response::{finish, Response};
use super::stream::{self, StreamRead};
use super::tool::Tool;
use crate::browser::{self, pages, Flow, PageId};
use crate::cdp::generated::page::{
    StartScreenRecordingParams, StartScreenRecordingReturns, StopScreenRecordingParams,
};
use crate::cdp::generated::runtime::{EvaluateParams, EvaluateReturns};
use crate::error::{Error, Fault};
use crate::settings::Category;
use recording::Recording;

pub(super) const TOOLS: &[Tool] = &[
    Tool {
        name: "screencast_start",
        description:
            "Start recording a video (mp4) of the page; screencast_stop ends it and saves the file.",
        args: args::schema::<StartArgs>(),
        category: Category::Debugging,
        read_only: false,
        run: screencast_start,
    },
    Tool {
        name: "screencast_stop",
        description: "Stop and save the recording.",
        args: args::schema::<PageOnly>(),
        category: Category::Debugging,
        read_only: false,
        run: screencast_stop,
    },
];

tool_args! {
    struct StartArgs {
        "filePath" file_path: Option<String> = {
            "type": "string", "maxLength": max::PATH,
            "description": "Default: a temporary file.",
        },
        "pageId" page: Option<PageId> = (args::page_id()),
    }
}

/// The largest frame side asked for: the page reports its own size, and a page is not
/// trusted to keep it reasonable.
const MAX_SIDE: f64 = 8192.0;

// ---------------------------------------------------------------------------------------
// screencast_start

fn screencast_start(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<StartArgs>(cx, call, args) else {
        return;
    };
    let start = Start {
        call,
        file_path: args.file_path,
        page: PageId::NONE,
        session: String::new(),
        file: None,
    };
    call::live_page(cx, call, args.page, start.then(StartStep::Page));
}

/// One `screencast_start` call: the file opened, the page's size read, the browser's
/// recording started.
struct Start {
    call: CallId,
    /// The file asked for (a temporary one when `None`).
    file_path: Option<String>,
    /// The page it records, once found.
    page: PageId,
    session: String,
    /// The file opened for the recording, and its real path.
    file: Option<(PathBuf, File)>,
}

enum StartStep {
    /// The page the call works on (a crashed page is an error).
    Page(Result<PageId, Error>),
    /// The viewport's size in device pixels, as the page reports it (`None`: it could not
    /// say, and the browser records at its default size).
    Size(Option<(i64, i64)>),
    /// `Page.startScreenRecording` answered with the recording's stream.
    Started(Result<StartScreenRecordingReturns, Error>),
}

impl Flow<Ctx> for Start {
    type Step = StartStep;

    fn next(self, cx: &mut Ctx, step: StartStep) {
        match step {
            StartStep::Page(Ok(page)) => self.open(cx, page),
            StartStep::Size(size) => self.record(cx, size),
            StartStep::Started(Ok(started)) => self.running(cx, started.stream),
            StartStep::Started(Err(e)) => {
                *cx.recordings.entry(self.page) = Recording::Idle;
                if let Some((path, _)) = &self.file {
                    let _ = std::fs::remove_file(path);
                }
                call::fail(cx, self.call, unsupported_or(e))
            }
            StartStep::Page(Err(e)) => call::fail(cx, self.call, e),
        }
    }
}

impl Start {
    /// One recording a page at a time; the file is opened, then the page's size asked for:
    /// without a size the browser scales frames down to a small default.
    fn open(mut self, cx: &mut Ctx, page: PageId) {
        self.page = page;
        let call = self.call;
        if !matches!(cx.recordings.get(page), None | Some(Recording::Idle)) {
            let mut resp = Response::for_page(page);
            resp.line("Error: a screencast recording is already in progress. Use screencast_stop to stop it before starting a new one.");
            return finish(cx, call, resp);
        }
        let given = match self.file_path.take() {
            Some(path) => path,
            None => match files::temp_dir() {
                Ok(dir) => dir.join("screencast.mp4").to_string_lossy().into_owned(),
                Err(message) => return call::fail(cx, call, message),
            },
        };
        self.file = match files::create_as(&Roots::of(cx, call), &given, "mp4") {
            Ok(opened) => Some(opened),
            Err(message) => return call::fail(cx, call, message),
        };
        self.session = match pages::session_of(&cx.browser.pages, page) {
            Ok(s) => s,
            Err(e) => return call::fail(cx, call, e),
        };
        call::limit_by_default(cx, call, |ms| {
            format!("The recording did not start within {ms} ms (is the page's main thread busy?).")
        });
        *cx.recordings.entry(page) = Recording::Starting;
        let params = EvaluateParams {
            expression: "[innerWidth * devicePixelRatio, innerHeight * devicePixelRatio]".into(),
            return_by_value: Some(true),
            ..Default::default()
        };
        let session = self.session.clone();
        browser::send_then(cx, Some(&session), params, self, |r| {
            StartStep::Size(pixel_size(r.ok()))
        });
    }

    /// Starts the browser's recording at the page's size.
    fn record(self, cx: &mut Ctx, size: Option<(i64, i64)>) {
        let params = StartScreenRecordingParams {
            max_width: size.map(|(w, _)| w),
            max_height: size.map(|(_, h)| h),
            ..Default::default()
        };
        let session = self.session.clone();
        browser::send_then(cx, Some(&session), params, self, StartStep::Started);
    }

    /// The recording runs: the page keeps it for `screencast_stop`.
    fn running(self, cx: &mut Ctx, stream: String) {
        let Some((path, file)) = self.file else {
            // Only a step out of order could get here; the call still gets its answer.
            return call::fail(
                cx,
                self.call,
                "The screencast's file was lost before it started.",
            );
        };
        let line = format!("Screencast recording started. The recording will be saved to {}. Use screencast_stop to stop recording.", path.display());
        *cx.recordings.entry(self.page) = Recording::Running { stream, path, file };
        let mut resp = Response::for_page(self.page);
        resp.line(line);
        finish(cx, self.call, resp);
    }
}

/// The viewport in device pixels from the page's answer, bounded; `None` when it cannot say.
fn pixel_size(answer: Option<EvaluateReturns>) -> Option<(i64, i64)> {
    let side = |v: &Value| {
        v.as_f64()
            .filter(|n| n.is_finite())
            .map(|n| n.round().clamp(1.0, MAX_SIDE) as i64)
    };
    answer.and_then(|r| r.result.value).and_then(|v| {
        let pair = v.as_array()?;
        Some((side(pair.first()?)?, side(pair.get(1)?)?))
    })
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

// ---------------------------------------------------------------------------------------
// screencast_stop

fn screencast_stop(cx: &mut Ctx, call: CallId, args: Value) {
    let Some(args) = call::args::<PageOnly>(cx, call, args) else {
        return;
    };
    let stop = Stop {
        call,
        page: PageId::NONE,
        session: String::new(),
        stream: String::new(),
        path: PathBuf::new(),
        file: None,
    };
    call::page(cx, call, args.page, stop.then(StopStep::Page));
}

/// One `screencast_stop` call: the browser's recording stopped, then its stream read into
/// the file.
struct Stop {
    call: CallId,
    /// The page it stops recording, once found.
    page: PageId,
    session: String,
    /// The browser's stream of the recording.
    stream: String,
    /// The recording's file, and its real path.
    path: PathBuf,
    file: Option<File>,
}

enum StopStep {
    /// The page the call works on.
    Page(Result<PageId, Error>),
    /// `Page.stopScreenRecording` answered: the stream is complete.
    Stopped(Result<(), Error>),
    /// The stream has been read to its end into the file.
    Read(Result<Recorded, Error>),
}

impl Flow<Ctx> for Stop {
    type Step = StopStep;

    fn next(self, cx: &mut Ctx, step: StopStep) {
        match step {
            StopStep::Page(Ok(page)) => self.stop(cx, page),
            StopStep::Stopped(Ok(())) => self.read(cx),
            StopStep::Read(Ok(_)) => self.reply(cx),
            StopStep::Page(Err(e)) | StopStep::Stopped(Err(e)) | StopStep::Read(Err(e)) => {
                call::fail(cx, self.call, e)
            }
        }
    }
}

impl Stop {
    /// Takes the page's running recording and stops it in the browser.
    fn stop(mut self, cx: &mut Ctx, page: PageId) {
        self.page = page;
        let recording = cx.recordings.get_mut(page).map(std::mem::take);
        let Some(Recording::Running { stream, path, file }) = recording else {
            if let Some(Recording::Starting) = recording {
                *cx.recordings.entry(page) = Recording::Starting;
            }
            let mut resp = Response::for_page(page);
            resp.line("Error: no active screencast recording to stop.");
            return finish(cx, self.call, resp);
        };
        self.session = match pages::session_of(&cx.browser.pages, page) {
            Ok(s) => s,
            Err(e) => return call::fail(cx, self.call, e),
        };
        self.stream = stream;
        self.path = path;
        self.file = Some(file);
        let session = self.session.clone();
        browser::send_then(
            cx,
            Some(&session),
            StopScreenRecordingParams {},
            self,
            |r| StopStep::Stopped(r.map(drop)),
        );
    }

    /// Reads the browser's stream into the file.
    fn read(mut self, cx: &mut Ctx) {
        let Some(file) = self.file.take() else {
            // Only a step out of order could get here; the call still gets its answer.
            return call::fail(
                cx,
                self.call,
                "The screencast's file was lost before it was read.",
            );
        };
        let (session, stream) = (self.session.clone(), std::mem::take(&mut self.stream));
        let read = StreamRead::new(session, stream, Recorded(file), self.then(StopStep::Read));
        read.start(cx);
    }

    fn reply(self, cx: &mut Ctx) {
        let mut resp = Response::for_page(self.page);
        resp.line(format!(
            "The screencast recording has been stopped and saved to {}.",
            self.path.display()
        ));
        finish(cx, self.call, resp);
    }
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
