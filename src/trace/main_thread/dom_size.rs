//! DOMSize (DevTools' `DOMSize` insight): the largest `DOMStats` the page reported, and the
//! layouts and style recalculations big enough to blame on the DOM's size. Listed when
//! there is such a layout or recalculation.

use serde::Deserialize;

use super::context::Context;
use crate::trace::event::{Bounds, Event};
use crate::trace::format::micros;

/// A layout or style recalculation counts from 40 ms on...
const DURATION: f64 = 40_000.0;
/// ...when it lays out more than 100 objects or restyles more than 300 elements.
const LAYOUT_OBJECTS: u64 = 100;
const RECALC_ELEMENTS: u64 = 300;
/// DevTools writes every large one out; a trace with more than this many of a kind is
/// described by its first ones, so that memory stays bounded whatever the trace.
const KEPT: usize = 64;
/// `DOMStats` comes a few times a navigation; more than this are dropped.
const KEPT_STATS: usize = 256;

/// A large layout (`count` of `total` objects dirty) or style recalculation (`count`
/// elements).
#[derive(Clone, Debug)]
struct Large {
    ts: f64,
    dur: f64,
    pid: i64,
    tid: i64,
    count: u64,
    total: u64,
}

#[derive(Deserialize, Clone, Debug, Default)]
#[serde(rename_all = "camelCase")]
struct Depth {
    #[serde(default)]
    depth: u64,
    #[serde(default)]
    node_id: i64,
    #[serde(default)]
    node_name: String,
}

#[derive(Deserialize, Clone, Debug, Default)]
#[serde(rename_all = "camelCase")]
struct Children {
    #[serde(default)]
    num_children: u64,
    #[serde(default)]
    node_id: i64,
    #[serde(default)]
    node_name: String,
}

/// One `DOMStats` event's data.
#[derive(Deserialize, Clone, Debug, Default)]
#[serde(rename_all = "camelCase")]
struct Stats {
    #[serde(skip)]
    ts: f64,
    #[serde(skip)]
    pid: i64,
    #[serde(default)]
    frame: String,
    #[serde(default)]
    total_elements: u64,
    #[serde(default)]
    max_depth: Option<Depth>,
    #[serde(default)]
    max_children: Option<Children>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct LayoutBegin {
    #[serde(default)]
    dirty_objects: u64,
    #[serde(default)]
    total_objects: u64,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Args {
    #[serde(default)]
    begin_data: Option<LayoutBegin>,
    #[serde(default)]
    element_count: Option<u64>,
    #[serde(default)]
    data: Option<Stats>,
}

/// What the stream leaves for this insight.
#[derive(Default)]
pub(super) struct Evidence {
    layouts: Vec<Large>,
    recalcs: Vec<Large>,
    stats: Vec<Stats>,
}

impl Evidence {
    pub(super) fn take(&mut self, e: &Event) {
        let kind = match (e.name, e.ph) {
            ("Layout", "X") => &mut self.layouts,
            ("UpdateLayoutTree", "X") => &mut self.recalcs,
            ("DOMStats", _) => return self.stats(e),
            _ => return,
        };
        let dur = e.dur.unwrap_or(0.0);
        if dur < DURATION || kind.len() >= KEPT {
            return;
        }
        let Some(args) = e.args.and_then(|a| serde_json::from_str::<Args>(a).ok()) else {
            return;
        };
        let (count, total, threshold) = match (args.begin_data, args.element_count) {
            (_, Some(elements)) if e.name == "UpdateLayoutTree" => (elements, 0, RECALC_ELEMENTS),
            (Some(begin), _) if e.name == "Layout" => {
                (begin.dirty_objects, begin.total_objects, LAYOUT_OBJECTS)
            }
            _ => return,
        };
        if count > threshold {
            kind.push(Large {
                ts: e.at.ts,
                dur,
                pid: e.at.pid,
                tid: e.at.tid,
                count,
                total,
            });
        }
    }

    fn stats(&mut self, e: &Event) {
        if self.stats.len() >= KEPT_STATS {
            return;
        }
        let parsed = e.args.and_then(|a| serde_json::from_str::<Args>(a).ok());
        if let Some(mut stats) = parsed.and_then(|a| a.data) {
            stats.ts = e.at.ts;
            stats.pid = e.at.pid;
            self.stats.push(stats);
        }
    }

    /// The insight for one insight set.
    pub(super) fn model(&self, cx: &Context) -> Model {
        let on_main = |l: &&Large| cx.is_main_thread(l.pid, l.tid) && cx.bounds.holds(l.ts, l.dur);
        let mut max: Option<&Stats> = None;
        for stats in self.stats.iter().filter(|s| {
            s.frame == cx.frame
                && cx.bounds.holds(s.ts, 0.0)
                && cx.navigation_pid.is_none_or(|pid| pid == s.pid)
        }) {
            if max.is_none_or(|m| stats.total_elements > m.total_elements) {
                max = Some(stats);
            }
        }
        Model {
            layouts: self.layouts.iter().filter(on_main).cloned().collect(),
            recalcs: self.recalcs.iter().filter(on_main).cloned().collect(),
            stats: max.cloned(),
        }
    }
}

/// DOMSize for one insight set.
#[derive(Clone, Debug, Default)]
pub(crate) struct Model {
    layouts: Vec<Large>,
    recalcs: Vec<Large>,
    stats: Option<Stats>,
}

impl Model {
    /// Listed when a layout or recalculation was large; about those events.
    pub(crate) fn listed(&self) -> Option<Bounds> {
        let events = self.recalcs.iter().chain(&self.layouts);
        Bounds::union(events.map(|l| Bounds {
            min: l.ts,
            max: l.ts + l.dur,
        }))
    }

    /// `performance_analyze_insight`'s detailed analysis (DevTools' `formatDomSizeInsight`).
    pub(crate) fn details(&self) -> String {
        if self.listed().is_none() {
            return "No DOM size issues were detected.".into();
        }
        let mut out = format!("{DESCRIPTION}\n");
        if let Some(s) = &self.stats {
            out.push_str("\nStatistic:\n\n");
            out.push_str(&format!("Total elements: {}.\n", s.total_elements));
            if let Some(d) = &s.max_depth {
                out.push_str(&format!(
                    "DOM depth: {} nodes, starting with element '{}' (node id: {}).\n",
                    d.depth, d.node_name, d.node_id
                ));
            }
            if let Some(c) = &s.max_children {
                out.push_str(&format!(
                    "Most children: {}, for parent '{}' (node id: {}).\n",
                    c.num_children, c.node_name, c.node_id
                ));
            }
        }
        out.push_str("\nLarge layout updates/style calculations:\n");
        for l in &self.layouts {
            out.push_str(&format!(
                "\n  - Layout update: Duration: {}, with {} of {} nodes needing layout.",
                micros(l.dur),
                l.count,
                l.total
            ));
        }
        for r in &self.recalcs {
            out.push_str(&format!(
                "\n  - Style recalculation: Duration: {}, with {} elements affected.",
                micros(r.dur),
                r.count
            ));
        }
        out
    }
}

pub(crate) const DESCRIPTION: &str = "A large DOM can increase the duration of style calculations and layout reflows, impacting page responsiveness. A large DOM will also increase memory usage. [Learn how to avoid an excessive DOM size](https://developer.chrome.com/docs/performance/insights/dom-size).";
