//! The main-thread insights (DOMSize, ForcedReflow, ThirdParties): what each keeps of the
//! events as the trace streams, bounded by its own rules, and what each makes of the part
//! of the trace an insight set covers once the stream has ended. Each insight's file holds
//! both, and its detailed analysis.

mod context;
pub(super) mod dom_size;
mod entities;
pub(super) mod forced_reflow;
pub(super) mod third_parties;

use std::collections::HashSet;

use super::event::{Bounds, Event};
use super::network::Request;
use super::page::{Navigation, Page};
use context::Context;

/// What the stream leaves for the main-thread insights (DOMSize, ForcedReflow,
/// ThirdParties), each bounded by its own rules.
#[derive(Default)]
pub(super) struct Evidence {
    dom_size: dom_size::Evidence,
    forced_reflow: forced_reflow::Evidence,
    third_parties: third_parties::Evidence,
    /// Renderer main threads (`CrRendererMain`), by (pid, tid).
    main_threads: HashSet<(i64, i64)>,
}

impl Evidence {
    pub(super) fn take(&mut self, e: &Event) {
        if e.name == "thread_name" && e.args.is_some_and(|a| a.contains("\"CrRendererMain\"")) {
            self.main_threads.insert((e.at.pid, e.at.tid));
        }
        self.dom_size.take(e);
        self.forced_reflow.take(e);
        self.third_parties.take(e);
    }

    /// Once the stream has ended, the insights of each part of the trace an insight set
    /// covers (its bounds and navigation, if any), in the sets' order.
    pub(super) fn evaluate(
        self,
        sets: &[(Bounds, Option<&Navigation>)],
        c: &Page,
        requests: &[Request],
    ) -> Vec<MainThread> {
        let reflows = self.forced_reflow.finish();
        let mut third_parties = self.third_parties.finish(requests);
        let main_frame_threads: HashSet<(i64, i64)> = self
            .main_threads
            .iter()
            .filter(|(pid, _)| c.frame_processes.contains(&(c.main_frame.clone(), *pid)))
            .copied()
            .collect();
        let renderers: HashSet<i64> = c.frame_processes.iter().map(|(_, pid)| *pid).collect();
        // DevTools reads one main thread for ThirdParties: the main frame's renderer's.
        let main = sets
            .iter()
            .find_map(|(_, nav)| nav.map(|n| (n.at.pid, n.at.tid)))
            .or_else(|| main_frame_threads.iter().min().copied());
        let mut out = Vec::new();
        for &(bounds, nav) in sets {
            let cx = Context {
                frame: nav.map_or(c.main_frame.clone(), |n| n.frame.clone()),
                bounds,
                navigation_pid: nav.map(|n| n.at.pid),
                main_tid: nav.map(|n| n.at.tid),
                main_threads: &main_frame_threads,
                renderers: &renderers,
            };
            let first_party = nav.map_or(c.main_frame_url.as_str(), |n| n.url.as_str());
            out.push(MainThread {
                dom_size: self.dom_size.model(&cx),
                forced_reflow: reflows.model(&cx),
                third_parties: third_parties.model(&cx, main, first_party),
            });
        }
        out
    }
}

/// The main-thread insights of one insight set.
#[derive(Clone, Debug, Default)]
pub(super) struct MainThread {
    pub(super) dom_size: dom_size::Model,
    pub(super) forced_reflow: forced_reflow::Model,
    pub(super) third_parties: third_parties::Model,
}
