//! Recording a trace: `Tracing.start` with the stream transfer mode, and at the end
//! `Tracing.end` and the browser's stream of the trace. The stream is read chunk by chunk
//! into a [`Capture`], each chunk written to the file (gzip when its name ends in `.gz`) and
//! fed to the analyser at once, so neither the server nor the file writer ever holds the
//! whole trace.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use flate2::write::GzEncoder;

use crate::browser::{self, waiters};
use crate::cdp::generated::{io, tracing};
use crate::error::Error;
use crate::tools::ctx::{Ctx, Done, Once};
use crate::tools::stream;
use crate::trace;

/// DevTools' default trace categories (its `TracingDefaultCategories`, which chrome-devtools-mcp
/// records with), everything else off, plus the two optional ones its Performance panel
/// turns on by default: JS sampling and screenshots.
const CATEGORIES: &[&str] = &[
    "blink.console",
    "blink.user_timing",
    "loading",
    "devtools.timeline",
    "disabled-by-default-devtools.target-rundown",
    "disabled-by-default-devtools.timeline.frame",
    "disabled-by-default-devtools.timeline.stack",
    "disabled-by-default-devtools.timeline",
    "disabled-by-default-devtools.v8-source-rundown-sources",
    "disabled-by-default-devtools.v8-source-rundown",
    "disabled-by-default-layout_shift.debug",
    "disabled-by-default-v8.inspector",
    "disabled-by-default-v8.cpu_profiler.hires",
    "disabled-by-default-lighthouse",
    "v8.execute",
    "v8",
    "cppgc",
    "navigation,rail",
    // JS sampling
    "disabled-by-default-v8.cpu_profiler",
    // screenshots
    "disabled-by-default-devtools.screenshot",
];

/// The browser's trace buffer (as the reference asks: 1.2 GB).
const BUFFER_KB: f64 = 1_200_000.0;
/// How long the browser may take to hand over the trace after `Tracing.end`.
const COMPLETE_TIMEOUT: Duration = Duration::from_secs(120);

/// Starts recording on `session`.
pub(super) fn start(cx: &mut Ctx, session: &str, done: Done<()>) {
    let params = tracing::StartParams {
        transfer_mode: Some(tracing::StartTransferMode::ReturnAsStream),
        trace_config: Some(tracing::TraceConfig {
            included_categories: Some(CATEGORIES.iter().map(|c| c.to_string()).collect()),
            excluded_categories: Some(vec!["*".into()]),
            trace_buffer_size_in_kb: Some(BUFFER_KB),
            ..Default::default()
        }),
        ..Default::default()
    };
    browser::send(cx, Some(session), params, move |cx, r| {
        done(cx, r.map(|_| ()))
    });
}

/// Where the trace's bytes go: the file (when asked for) and the analyser.
pub(super) struct Capture {
    analyser: trace::Analyser,
    out: Option<Out>,
    path: Option<PathBuf>,
}

enum Out {
    Plain(File),
    Gzip(GzEncoder<File>),
}

impl Capture {
    pub(super) fn new(file: Option<(PathBuf, File)>) -> Capture {
        let (path, out) = match file {
            Some((path, file)) => {
                let gzip = path.to_string_lossy().ends_with(".gz");
                let out = if gzip {
                    Out::Gzip(GzEncoder::new(file, flate2::Compression::default()))
                } else {
                    Out::Plain(file)
                };
                (Some(path), Some(out))
            }
            None => (None, None),
        };
        Capture {
            analyser: trace::Analyser::default(),
            out,
            path,
        }
    }

    fn take(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let written = match &mut self.out {
            Some(Out::Plain(f)) => f.write_all(bytes),
            Some(Out::Gzip(g)) => g.write_all(bytes),
            None => Ok(()),
        };
        written.map_err(|e| Error::Invalid(format!("Could not write the trace: {e}")))?;
        self.analyser.feed(bytes).map_err(|e| {
            Error::Invalid(format!(
                "There was an unexpected error parsing the trace: {e}"
            ))
        })
    }

    /// The file closed and the analyser's report: (where the trace was saved, the report).
    pub(super) fn finish(self) -> Result<(Option<PathBuf>, trace::Report), Error> {
        let closed = match self.out {
            Some(Out::Gzip(g)) => g.finish().and_then(|mut f| f.flush()),
            Some(Out::Plain(mut f)) => f.flush(),
            None => Ok(()),
        };
        closed.map_err(|e| Error::Invalid(format!("Could not write the trace: {e}")))?;
        let report = self.analyser.finish().map_err(|e| {
            Error::Invalid(format!(
                "There was an unexpected error parsing the trace: {e}"
            ))
        })?;
        Ok((self.path, report))
    }
}

/// Ends the recording; `done` gets the browser's word that the trace is complete, with the
/// stream it is read from.
/// A browser that refuses to end the recording fails `done` at once: no completion will come.
pub(super) fn stop(cx: &mut Ctx, session: &str, done: Done<tracing::TracingCompleteEvent>) {
    let once = Once::new(done);
    let on_error = once.clone();
    let waiter = waiters::wait(
        cx,
        session,
        |_: &tracing::TracingCompleteEvent| true,
        COMPLETE_TIMEOUT,
        "The browser did not hand over the trace.".into(),
        Box::new(move |cx, r| once.call(cx, r)),
    );
    browser::send(cx, Some(session), tracing::EndParams {}, move |cx, r| {
        if let Err(e) = r {
            waiters::cancel(cx, waiter);
            crate::log::log!("Tracing.end failed: {e}");
            on_error.call(cx, Err(e));
        }
    });
}

// Read piece by piece (Tracing.start asked for an uncompressed stream): each piece goes to
// the file and the analyser at once.
impl stream::Sink for Capture {
    fn put(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.take(bytes)
    }
}

/// Stops a recording that failed or whose call went away, drops what it recorded, and runs
/// `then` once the browser has ended it (a new `Tracing.start` before that is refused).
pub(super) fn abandon(cx: &mut Ctx, session: &str, then: Done<()>) {
    let once = Once::new(then);
    let on_error = once.clone();
    let owner = session.to_owned();
    let waiter = waiters::wait(
        cx,
        session,
        |_: &tracing::TracingCompleteEvent| true,
        COMPLETE_TIMEOUT,
        "The browser did not end the trace.".into(),
        Box::new(move |cx, r: Result<tracing::TracingCompleteEvent, Error>| {
            if let Some(handle) = r.as_ref().ok().and_then(|c| c.stream.clone()) {
                browser::fire(cx, Some(&owner), io::CloseParams { handle });
            }
            once.call(cx, r.map(|_| ()));
        }),
    );
    // Not recording after all (the start itself failed): no completion will come.
    browser::send(cx, Some(session), tracing::EndParams {}, move |cx, r| {
        if let Err(e) = r {
            waiters::cancel(cx, waiter);
            on_error.call(cx, Err(e));
        }
    });
}
