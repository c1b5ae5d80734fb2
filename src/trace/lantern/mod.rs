//! DevTools' Lantern, as far as RenderBlocking's estimated savings need it: the load's
//! dependency graph (requests and main-thread tasks), the network the trace observed, and
//! a simulation of the first paint with and without the render-blocking requests.
//!
//! DevTools runs it with "provided" throttling: the simulated network is the observed one
//! (NetworkAnalyzer's RTT, server response times and throughput) and tasks take their
//! observed time, so only the FCP graph's simulation is ported, not the throttled ones.

mod graph;
mod metrics;
mod network_analyzer;
mod requests;
mod simulator;
mod tasks;
mod tcp;

pub use tasks::{Finished, Tasks};

use super::metrics::InsightSet;
use super::network::Request;
use simulator::Simulator;

/// RenderBlocking's FCP and LCP savings (ms) for a navigation's set, deferring `blocking`;
/// None where DevTools has no Lantern context (no FCP or LCP, no main document, no
/// throughput to measure) or its simulation fails.
pub fn render_blocking_savings(
    set: &InsightSet,
    blocking: &[&Request],
    finished: &Finished,
) -> Option<(f64, f64)> {
    let nav = set.navigation.as_ref()?;
    let fcp = nav.at.ts + set.fcp?;
    let lcp = set.lcp.as_ref()?;
    let requests: Vec<&Request> = set.requests.iter().collect();
    let thread = (nav.at.pid, nav.at.tid);
    let tasks = finished.tasks(thread.0, thread.1, nav.at.ts, set.bounds.max + 1.0);
    let graph = graph::build(&requests, &tasks, thread, finished)?;
    let records: Vec<requests::Net> = graph
        .nodes
        .iter()
        .filter_map(|n| n.net().cloned())
        .collect();
    let network = network_analyzer::analyze(&records)?;
    let sim = Simulator::new(&graph.nodes, &network);
    let fcp_graph = metrics::first_contentful_paint(&graph, fcp)?;
    let ids: Vec<&str> = blocking.iter().map(|r| r.id.as_str()).collect();
    metrics::render_blocking_savings(&graph, &sim, &fcp_graph, &ids, lcp.request.is_some())
}
