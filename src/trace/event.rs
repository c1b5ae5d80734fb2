//! What every part of the analyser speaks of: where an event sits in the trace (`At`), one
//! event as the collectors see it while the trace streams (`Event`), and a span of the
//! trace's time (`Bounds`).

/// Where an event sits: its position in the file's events array (what DevTools' event keys
/// name), its time (µs) and its process and thread.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct At {
    pub(super) index: u64,
    pub(super) ts: f64,
    pub(super) pid: i64,
    pub(super) tid: i64,
}

/// One trace event as the collectors see it while the trace streams: `args` as written,
/// for each collector to parse what it reads.
pub(super) struct Event<'a> {
    pub(super) at: At,
    pub(super) name: &'a str,
    pub(super) ph: &'a str,
    pub(super) dur: Option<f64>,
    pub(super) args: Option<&'a str>,
}

/// A span of the trace, in µs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Bounds {
    pub(super) min: f64,
    pub(super) max: f64,
}

impl Bounds {
    pub(super) fn range(&self) -> f64 {
        self.max - self.min
    }

    /// DevTools' `eventIsInBounds`: whether an event from `ts` lasting `dur` overlaps the span.
    pub(super) fn holds(&self, ts: f64, dur: f64) -> bool {
        ts <= self.max && self.min < ts + dur
    }

    /// From the earliest start to the latest end of `spans`; None without a span.
    pub(super) fn union(spans: impl IntoIterator<Item = Bounds>) -> Option<Bounds> {
        spans.into_iter().reduce(|a, b| Bounds {
            min: a.min.min(b.min),
            max: a.max.max(b.max),
        })
    }
}
