//! The report: what the analyser makes of a trace, and what the summary and the insights
//! print. Its insight sets each cover the part of the trace from one navigation to the
//! next, with the lab metrics and the main-thread insights of that part.

use super::async_stacks::AsyncStacks;
use super::blocking::LongTasks;
use super::event::{At, Bounds};
use super::interactions::Interaction;
use super::lantern::Estimates;
use super::main_thread::MainThread;
use super::network::Request;
use super::page::Navigation;
use super::shifts::ShiftDetails;

/// LCP's four subparts (two when the LCP element loaded nothing, e.g. text).
#[derive(Clone, Debug)]
pub(super) struct Subparts {
    pub(super) ttfb: Bounds,
    pub(super) load_delay: Option<Bounds>,
    pub(super) load_duration: Option<Bounds>,
    pub(super) render_delay: Bounds,
}

/// The navigation's LCP: its candidate event, the element, its resource and breakdown.
#[derive(Clone, Debug)]
pub struct Lcp {
    /// µs since the navigation started.
    pub timing: f64,
    pub(super) event: At,
    pub(super) node_id: Option<i64>,
    pub(super) text: bool,
    pub(super) loading_attr: Option<String>,
    pub(super) node_name: Option<String>,
    pub(super) request: Option<Request>,
    pub(super) subparts: Option<Subparts>,
}

/// A session window of layout shifts (DevTools' `SyntheticLayoutShiftCluster`).
#[derive(Clone, Debug)]
pub struct Cluster {
    /// The shift that opened it: the cluster's time.
    pub(super) first: At,
    /// The position of its largest shift, which keys the cluster (`s-N`).
    pub(super) worst_index: u64,
    /// From the first shift to a second after the last (DevTools' cluster `dur`).
    pub(super) dur: f64,
    pub(super) score: f64,
    pub(super) window: Bounds,
    pub(super) shifts: Vec<(At, f64)>,
}

/// One insight set: the part of the trace from one navigation to the next.
#[derive(Clone, Debug)]
pub struct InsightSet {
    pub id: String,
    pub(super) url: String,
    pub(super) bounds: Bounds,
    pub(super) navigation: Option<Navigation>,
    pub(super) document: Option<Request>,
    pub(super) fcp: Option<f64>,
    /// First paint, as a trace time (RenderBlocking looks at requests done by then).
    pub(super) first_paint: Option<f64>,
    pub lcp: Option<Lcp>,
    /// The document's last `MetaCharsetCheck` disposition.
    pub(super) meta_charset: Option<String>,
    /// The longest interaction (INP), when there was one.
    pub(super) inp: Option<Interaction>,
    pub(super) clusters: Vec<Cluster>,
    /// The requests started from this navigation to the next (the network insights').
    pub(super) requests: Vec<Request>,
    /// DOMSize, ForcedReflow and ThirdParties.
    pub(super) main_thread: MainThread,
    /// RenderBlocking's savings and NetworkDependencyTree's preconnect candidates.
    pub(super) lantern: Estimates,
}

impl InsightSet {
    /// CLS: the worst cluster's score (0 without shifts) and that cluster.
    pub fn cls(&self) -> (f64, Option<&Cluster>) {
        let mut worst: Option<&Cluster> = None;
        for cluster in &self.clusters {
            if cluster.score > worst.map_or(0.0, |w| w.score) {
                worst = Some(cluster);
            }
        }
        (worst.map_or(0.0, |w| w.score), worst)
    }
}

/// Everything the summary and the insights print.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub(super) url: String,
    pub(super) bounds: Option<Bounds>,
    pub cpu_throttling: Option<f64>,
    pub network_throttling: Option<String>,
    pub sets: Vec<InsightSet>,
    pub(super) requests: Vec<Request>,
    /// Navigations (frame, time) of frames a renderer was seen for: a request's times are
    /// printed from its frame's navigation.
    pub(super) navigations: Vec<(String, f64)>,
    /// `<link rel=preconnect>` URLs the page declared.
    pub(super) link_preconnects: Vec<String>,
    pub events: u64,
    pub(super) long_tasks: LongTasks,
    /// CLSCulprits' impacted elements and root-cause events.
    pub(super) shift_details: ShiftDetails,
    /// Request initiators from the scripts that scheduled their tasks.
    pub(super) async_stacks: AsyncStacks,
}
