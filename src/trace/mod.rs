//! Performance traces, analysed as they stream: a building block that takes the bytes of a
//! trace (DevTools' saved `{"metadata":…,"traceEvents":[…]}` or a bare event array, plain
//! or gzip) in chunks of any size, keeps only the events the metrics read, and at the end
//! computes what DevTools' trace engine computes for them: navigations and their insight
//! sets, LCP with its breakdown, CLS with its worst cluster, and the summary text
//! chrome-devtools-mcp prints. It never holds the whole trace.

mod analysis;
mod async_stacks;
mod blocking;
mod cls_text;
mod event;
mod format;
mod insights;
mod interactions;
mod lantern;
mod lcp_text;
mod main_thread;
mod metrics;
mod network;
mod page;
mod report;
mod request_text;
mod scan;
mod shifts;
mod summary;

use std::borrow::Cow;
use std::io::Write;

use flate2::write::GzDecoder;
use serde::Deserialize;
use serde_json::value::RawValue;

use event::{At, Event};
use metrics::Collected;

pub use blocking::Blocking;
pub use insights::ALL as INSIGHTS;
pub use report::{Cluster, InsightSet, Lcp, Report};
pub use summary::summary;

/// The analyser before it knows whether the input is gzip (its first two bytes say).
enum Input {
    Unknown(Vec<u8>),
    Plain(Box<Sink>),
    Gzip(Box<GzDecoder<Sink>>),
}

/// Where decoded bytes go: the splitter, then the collectors.
struct Sink {
    scanner: scan::Scanner,
    collected: Collected,
    metadata: Metadata,
    error: Option<String>,
}

/// The `metadata` fields the summary prints (DevTools saves the throttling it recorded with).
#[derive(Deserialize, Default, Clone)]
#[serde(rename_all = "camelCase")]
struct Metadata {
    #[serde(default)]
    cpu_throttling: Option<f64>,
    #[serde(default)]
    network_throttling: Option<String>,
}

impl Sink {
    fn new() -> Self {
        Sink {
            scanner: scan::Scanner::default(),
            collected: Collected::new(),
            metadata: Metadata::default(),
            error: None,
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.error.is_some() {
            return Ok(buf.len());
        }
        let Sink {
            scanner,
            collected,
            metadata,
            ..
        } = self;
        let mut index = scanner.events;
        let result = scanner.feed(buf, &mut |piece| match piece {
            scan::Piece::Event(bytes) => {
                collect(collected, index, bytes);
                index += 1;
            }
            scan::Piece::Oversize => index += 1,
            scan::Piece::Metadata(bytes) => {
                if let Ok(m) = serde_json::from_slice::<Metadata>(bytes) {
                    *metadata = m;
                }
            }
        });
        if let Err(e) = result {
            self.error = Some(e);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The fields every trace event has. `args` stays unparsed until the name says it matters.
#[derive(Deserialize)]
struct Raw<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default, borrow)]
    ph: Cow<'a, str>,
    #[serde(default)]
    ts: f64,
    #[serde(default)]
    dur: Option<f64>,
    #[serde(default)]
    pid: Option<i64>,
    #[serde(default)]
    tid: Option<i64>,
    #[serde(default, borrow)]
    args: Option<&'a RawValue>,
    /// Async events' id, as written (pairs `EventTiming` begins with their ends).
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
}

/// Takes one element of the events array (`index`: its position) to the collectors that
/// read it.
fn collect(c: &mut Collected, index: u64, bytes: &[u8]) {
    let Ok(raw) = serde_json::from_slice::<Raw>(bytes) else {
        c.malformed += 1;
        return;
    };
    let at = At {
        index,
        ts: raw.ts,
        pid: raw.pid.unwrap_or(0),
        tid: raw.tid.unwrap_or(0),
    };
    c.page.bounds(&raw.name, &raw.ph, raw.ts, raw.dur);
    let event = Event {
        at,
        name: &raw.name,
        ph: &raw.ph,
        dur: raw.dur,
        args: raw.args.map(|a| a.get()),
    };
    c.main_thread.take(&event);
    c.tasks.take(&event);
    if event.name == "EventTiming" {
        let id = raw.id.map(|v| v.get());
        if !c.timings.take(at, event.ph, id, event.args) {
            c.malformed += 1;
        }
        return;
    }
    if event.name == "RunTask" {
        return c.long_tasks.take(event.ph, at, raw.dur);
    }
    let Some(args) = event.args else { return };
    let ok = match event.name {
        "LayoutShift" => match c.page.shift(at, args) {
            Some(counted) => {
                if counted {
                    c.shift_details.shift(at, args);
                }
                true
            }
            None => false,
        },
        name @ ("PrePaint" | "PaintImage" | "LayoutImageUnsized") => {
            c.shift_details.take(name, event.ph, at, raw.dur, args)
        }
        name @ ("v8::Debugger::AsyncTaskRun"
        | "v8::Debugger::AsyncTaskScheduled"
        | "ProfileChunk") => {
            let dur = raw.dur.unwrap_or(0.0);
            c.async_stacks.take(name, event.ph, at, dur, raw.id, args)
        }
        name => match c.page.take(name, at, args) {
            Some(ok) => ok,
            None => c.requests.take(name, at, args, &mut c.page.final_urls),
        },
    };
    if !ok {
        c.malformed += 1;
    }
}

/// A trace being analysed.
pub struct Analyser {
    input: Input,
    bytes: u64,
}

impl Default for Analyser {
    fn default() -> Self {
        Analyser {
            input: Input::Unknown(Vec::new()),
            bytes: 0,
        }
    }
}

impl Analyser {
    /// Takes the next bytes of the file (plain or gzip, as the file is).
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.bytes += bytes.len() as u64;
        if let Input::Unknown(head) = &mut self.input {
            head.extend_from_slice(bytes);
            if head.len() < 2 {
                return Ok(());
            }
            let head = std::mem::take(head);
            let sink = Sink::new();
            self.input = if head.starts_with(&[0x1f, 0x8b]) {
                Input::Gzip(Box::new(GzDecoder::new(sink)))
            } else {
                Input::Plain(Box::new(sink))
            };
            return self.write(&head);
        }
        self.write(bytes)
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        let result = match &mut self.input {
            Input::Unknown(_) => Ok(()),
            Input::Plain(sink) => sink.write_all(bytes),
            Input::Gzip(decoder) => decoder.write_all(bytes),
        };
        result.map_err(|e| format!("the trace is not valid gzip: {e}"))?;
        match self.sink() {
            Some(Sink { error: Some(e), .. }) => Err(e.clone()),
            _ => Ok(()),
        }
    }

    fn sink(&mut self) -> Option<&mut Sink> {
        match &mut self.input {
            Input::Unknown(_) => None,
            Input::Plain(sink) => Some(sink),
            Input::Gzip(decoder) => Some(decoder.get_mut()),
        }
    }

    /// Bytes taken so far (as stored, before gunzip).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Ends the input and computes the report.
    pub fn finish(mut self) -> Result<Report, String> {
        if let Input::Unknown(head) = &self.input {
            let head = head.clone();
            self.input = Input::Plain(Box::new(Sink::new()));
            self.write(&head)?;
        }
        let sink = match self.input {
            Input::Gzip(decoder) => decoder
                .finish()
                .map_err(|e| format!("the trace is not valid gzip: {e}"))?,
            Input::Plain(sink) => *sink,
            Input::Unknown(_) => return Err("the trace is empty".into()),
        };
        if let Some(e) = sink.error {
            return Err(e);
        }
        sink.scanner.finish()?;
        let events = sink.scanner.events;
        if events == 0 {
            return Err("No trace events were found in the trace buffer.".into());
        }
        let mut report = metrics::report(sink.collected, events);
        report.cpu_throttling = sink.metadata.cpu_throttling;
        report.network_throttling = sink.metadata.network_throttling;
        Ok(report)
    }
}

/// Reads a whole trace file through the analyser, in fixed-size chunks.
pub fn analyse_reader(mut reader: impl std::io::Read) -> Result<Report, String> {
    let mut analyser = Analyser::default();
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("reading the trace: {e}")),
        };
        analyser.feed(&buf[..n])?;
    }
    analyser.finish()
}

/// TBT of a navigation set: its FCP to its TTI on the thread the navigation started on.
pub fn total_blocking_time(report: &Report, set: &InsightSet) -> Option<Blocking> {
    let nav = set.navigation.as_ref()?;
    let fcp = nav.at.ts + set.fcp?;
    Some(report.long_tasks.blocking(nav.at, fcp, set.bounds.max))
}

/// `performance_analyze_insight`'s answer for one insight of one set, or the reference's
/// error text.
pub fn insight(report: &Report, set_id: &str, name: &str) -> Result<String, String> {
    analysis::insight(report, set_id, name)
}
