//! Interactions, for INP: `EventTiming` begin and end events paired by id, the way DevTools'
//! UserInteractions handler pairs them, with nested events of one interaction removed (the
//! earliest event per kind and end time stays, with the widest processing span).

use std::collections::HashMap;

use serde::Deserialize;

use super::event::At;

/// An `EventTiming` begin's args. `frame` is read as the page's events read it: a begin
/// whose frame is not a string is malformed.
#[derive(Deserialize)]
struct Args {
    data: Option<TimingData>,
    #[serde(default, rename = "frame")]
    _frame: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct TimingData {
    #[serde(default)]
    duration: f64,
    #[serde(default)]
    interaction_id: Option<i64>,
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    time_stamp: Option<f64>,
    #[serde(default)]
    processing_start: Option<f64>,
    #[serde(default)]
    processing_end: Option<f64>,
}

/// An `EventTiming` begin event of an interaction (duration ≥ 1 ms, an interaction id).
struct Start {
    at: At,
    id: String,
    data: TimingData,
}

/// `EventTiming` begins and ends as the stream brings them.
#[derive(Default)]
pub(super) struct Timings {
    starts: Vec<Start>,
    ends: Vec<(At, String)>,
}

impl Timings {
    /// Takes an `EventTiming` event (`id`: its id as written); false when a begin's args are
    /// malformed.
    pub(super) fn take(&mut self, at: At, ph: &str, id: Option<&str>, args: Option<&str>) -> bool {
        let id = id.unwrap_or_default().to_owned();
        match ph {
            "e" => self.ends.push((at, id)),
            "b" => {
                let Ok(parsed) = serde_json::from_str::<Args>(args.unwrap_or("{}")) else {
                    return false;
                };
                let Some(data) = parsed.data else {
                    return true;
                };
                if data.duration < 1.0 || data.interaction_id.unwrap_or(0) == 0 {
                    return true;
                }
                self.starts.push(Start { at, id, data });
            }
            _ => {}
        }
        true
    }

    /// The interactions, begins paired with their ends.
    pub(super) fn finish(self) -> Vec<Interaction> {
        interactions(self.starts, self.ends)
    }
}

/// One interaction event with its three subparts (µs).
#[derive(Clone, Debug)]
pub(super) struct Interaction {
    /// The begin event: the interaction's time and key (`s-N`).
    pub(super) begin: At,
    pub(super) dur: f64,
    pub(super) kind: String,
    interaction_id: i64,
    processing_start: f64,
    processing_end: f64,
}

impl Interaction {
    fn end(&self) -> f64 {
        self.begin.ts + self.dur
    }
    pub(super) fn input_delay(&self) -> f64 {
        self.processing_start - self.begin.ts
    }
    pub(super) fn handling(&self) -> f64 {
        self.processing_end - self.processing_start
    }
    pub(super) fn presentation_delay(&self) -> f64 {
        self.end() - self.processing_end
    }
}

/// Pairs begins with ends (the latest open begin of the same id) and removes nesting.
fn interactions(mut starts: Vec<Start>, mut ends: Vec<(At, String)>) -> Vec<Interaction> {
    starts.sort_by(|a, b| a.at.ts.total_cmp(&b.at.ts));
    ends.sort_by(|a, b| a.0.ts.total_cmp(&b.0.ts));
    let mut open: HashMap<String, Vec<Start>> = HashMap::new();
    let mut out = Vec::new();
    let mut starts = starts.into_iter().peekable();
    for (end, id) in ends {
        while let Some(s) = starts.next_if(|s| s.at.ts <= end.ts) {
            open.entry(s.id.clone()).or_default().push(s);
        }
        let Some(begin) = open.get_mut(&id).and_then(Vec::pop) else {
            continue;
        };
        let d = &begin.data;
        let (Some(kind), Some(iid), Some(stamp), Some(ps), Some(pe)) = (
            d.kind.clone(),
            d.interaction_id,
            d.time_stamp,
            d.processing_start,
            d.processing_end,
        ) else {
            continue;
        };
        if kind.is_empty() || iid == 0 || stamp == 0.0 || ps == 0.0 || pe == 0.0 {
            continue;
        }
        out.push(Interaction {
            begin: begin.at,
            dur: end.ts - begin.at.ts,
            kind,
            interaction_id: iid,
            processing_start: ps * 1000.0 - stamp * 1000.0 + begin.at.ts,
            processing_end: (pe * 1000.0 - stamp * 1000.0) + begin.at.ts,
        });
    }
    // By start, the longer first at equal starts (DevTools' event order).
    out.sort_by(|a, b| {
        a.begin
            .ts
            .total_cmp(&b.begin.ts)
            .then(b.end().total_cmp(&a.end()))
    });
    without_nesting(out)
}

fn category(kind: &str) -> u8 {
    match kind {
        "pointerdown" | "touchstart" | "pointerup" | "touchend" | "mousedown" | "mouseup"
        | "click" => 0,
        "keydown" | "keypress" | "keyup" => 1,
        _ => 2,
    }
}

fn without_nesting(all: Vec<Interaction>) -> Vec<Interaction> {
    // Per category and end time: the index in `kept` of the earliest event.
    let mut by_end: HashMap<(u8, u64), usize> = HashMap::new();
    let mut kept: Vec<Interaction> = Vec::new();
    for event in all {
        let key = (category(&event.kind), event.end().to_bits());
        let Some(&i) = by_end.get(&key) else {
            by_end.insert(key, kept.len());
            kept.push(event);
            continue;
        };
        let current = &kept[i];
        let replace = event.begin.ts < current.begin.ts
            || (event.begin.ts == current.begin.ts
                && event.interaction_id == current.interaction_id
                && event.handling() > current.handling());
        let (start, end) = (event.processing_start, event.processing_end);
        if replace {
            kept[i] = event;
        }
        // The earliest event the list had still widens to this one's processing span
        // (DevTools widens the event it compared with, even when it was replaced).
        if !replace {
            let current = &mut kept[i];
            current.processing_start = current.processing_start.min(start);
            current.processing_end = current.processing_end.max(end);
        }
    }
    kept.sort_by(|a, b| a.begin.ts.total_cmp(&b.begin.ts));
    kept
}
