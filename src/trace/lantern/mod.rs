//! DevTools' Lantern, as far as RenderBlocking's estimated savings and
//! NetworkDependencyTree's preconnect candidates need it: the load's
//! dependency graph (requests and main-thread tasks), the network the trace observed, and
//! a simulation of the first paint with and without the render-blocking requests; and for
//! NetworkDependencyTree's preconnect candidates, the pessimistic LCP graph.
//!
//! DevTools runs it with "provided" throttling: the simulated network is the observed one
//! (NetworkAnalyzer's RTT, server response times and throughput) and tasks take their
//! observed time, so only the FCP graph's simulation is ported, not the throttled ones.

mod graph;
mod metrics;
mod network_analyzer;
pub(super) mod network_graph;
mod requests;
mod simulator;
mod tasks;
mod tcp;

pub(super) use tasks::{Finished, Tasks};

use std::collections::{HashMap, HashSet};

use super::event::At;
use super::network::Request;
use simulator::Simulator;

/// What NetworkDependencyTree's preconnect candidates read from Lantern: the simulated
/// network's RTT and each origin's additional RTT (ms), and the URLs of the requests in the
/// pessimistic LCP graph.
#[derive(Clone, Debug, Default)]
pub(super) struct Connections {
    pub(super) rtt: f64,
    pub(super) additional_rtt: HashMap<String, f64>,
    pub(super) lcp_urls: HashSet<String>,
}

/// Lantern's estimates for a navigation's set.
#[derive(Clone, Debug, Default)]
pub(super) struct Estimates {
    /// RenderBlocking's FCP and LCP savings (ms), deferring the blocking requests.
    pub(super) render_blocking_savings: Option<(f64, f64)>,
    pub(super) connections: Option<Connections>,
}

/// The page load Lantern estimates: a navigation that has an FCP and an LCP.
pub(super) struct Load<'a> {
    /// The navigation's start, on the thread it started on.
    pub(super) at: At,
    /// FCP and LCP, as trace times (µs).
    pub(super) fcp: f64,
    pub(super) lcp: f64,
    /// Whether the LCP element is text, and whether it loaded a request (an image).
    pub(super) lcp_text: bool,
    pub(super) lcp_request: bool,
    /// The requests from the navigation to the next one (in time order), and when that
    /// part of the trace ends.
    pub(super) requests: &'a [Request],
    pub(super) end: f64,
}

/// Both estimates are None where DevTools has no Lantern context (no main document, no
/// throughput to measure); the savings also where the simulation fails, and where nothing
/// blocks (the insight is not listed then, so nothing is simulated).
pub(super) fn estimate(load: &Load, blocking: &[&Request], finished: &Finished) -> Estimates {
    let mut out = Estimates::default();
    let requests: Vec<&Request> = load.requests.iter().collect();
    let thread = (load.at.pid, load.at.tid);
    let tasks = finished.tasks(thread.0, thread.1, load.at.ts, load.end + 1.0);
    let Some(graph) = graph::build(&requests, &tasks, thread, finished) else {
        return out;
    };
    let records: Vec<requests::Net> = graph
        .nodes
        .iter()
        .filter_map(|n| n.net().cloned())
        .collect();
    let Some(network) = network_analyzer::analyze(&records) else {
        return out;
    };
    let Some(fcp_graph) = metrics::first_contentful_paint(&graph, load.fcp) else {
        return out;
    };
    let lcp_graph = metrics::largest_contentful_paint(&graph, load.fcp, load.lcp, load.lcp_text);
    out.connections = lcp_graph.map(|lcp_graph| Connections {
        rtt: network.rtt,
        additional_rtt: network.additional_rtt.clone(),
        lcp_urls: lcp_graph
            .members()
            .into_iter()
            .filter_map(|n| graph.nodes[n].net().map(|r| r.url.to_owned()))
            .collect(),
    });
    if blocking.is_empty() {
        return out;
    }
    let sim = Simulator::new(&graph.nodes, &network);
    let ids: Vec<&str> = blocking.iter().map(|r| r.id.as_str()).collect();
    out.render_blocking_savings =
        metrics::render_blocking_savings(&graph, &sim, &fcp_graph, &ids, load.lcp_request);
    out
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::super::event::At;
    use super::super::network::{Request, Requests};
    use super::graph;
    use super::requests::Net;
    use super::simulator::Simulator;
    use super::tasks::{Finished, Link, Task};

    /// A request sent at `ms` (trace time), its headers in `ttfb` ms later after a fresh
    /// 2 ms connection, done `download` ms after that with `bytes`.
    struct Spec<'a> {
        id: &'a str,
        url: &'a str,
        kind: &'a str,
        initiator: &'a str,
        ms: f64,
        ttfb: f64,
        download: f64,
        bytes: u32,
        connection: u32,
    }

    fn requests(specs: &[Spec]) -> Vec<Request> {
        let mut requests = Requests::default();
        let mut urls = HashMap::new();
        for (i, s) in specs.iter().enumerate() {
            let at = |offset: f64, k: u64| At {
                index: i as u64 * 3 + k,
                ts: (s.ms + offset) * 1000.0,
                pid: 1,
                tid: 1,
            };
            let send = format!(
                r#"{{"data":{{"requestId":"{}","url":"{}","resourceType":"{}","priority":"VeryHigh","initiator":{{"type":"parser","url":"{}"}}}}}}"#,
                s.id, s.url, s.kind, s.initiator
            );
            let timing = format!(
                r#"{{"data":{{"requestId":"{}","statusCode":200,"protocol":"http/1.1","connectionId":{},"connectionReused":false,"timing":{{"requestTime":{},"connectStart":0,"connectEnd":2,"sslStart":-1,"sslEnd":-1,"sendStart":2,"sendEnd":2,"receiveHeadersEnd":{}}}}}}}"#,
                s.id,
                s.connection,
                s.ms / 1000.0,
                s.ttfb
            );
            let finish = format!(
                r#"{{"data":{{"requestId":"{}","encodedDataLength":{},"finishTime":{}}}}}"#,
                s.id,
                s.bytes,
                (s.ms + s.ttfb + s.download) / 1000.0
            );
            assert!(requests.take("ResourceSendRequest", at(0.0, 0), &send, &mut urls));
            assert!(requests.take("ResourceReceiveResponse", at(s.ttfb, 1), &timing, &mut urls));
            let done = at(s.ttfb + s.download, 2);
            assert!(requests.take("ResourceFinish", done, &finish, &mut urls));
        }
        requests.finish()
    }

    fn page() -> Vec<Request> {
        let doc = "http://a.test/";
        requests(&[
            Spec {
                id: "1",
                url: doc,
                kind: "Document",
                initiator: "",
                ms: 0.0,
                ttfb: 102.0,
                download: 10.0,
                bytes: 1000,
                connection: 1,
            },
            Spec {
                id: "2",
                url: "http://a.test/a.css",
                kind: "Stylesheet",
                initiator: doc,
                ms: 120.0,
                ttfb: 302.0,
                download: 10.0,
                bytes: 1000,
                connection: 2,
            },
        ])
    }

    #[test]
    fn the_analyzer_reads_rtt_from_handshakes_and_server_time_from_first_bytes() {
        let page = page();
        let refs: Vec<&Request> = page.iter().collect();
        let finished = Finished::default();
        let network = graph::build(&refs, &[], (1, 1), &finished).unwrap();
        let records: Vec<Net> = network
            .nodes
            .iter()
            .filter_map(|n| n.net().cloned())
            .collect();
        let analysis = super::network_analyzer::analyze(&records).unwrap();
        assert_eq!(analysis.rtt, 2.0);
        // Each request's wait after sending, less the RTT: 98 and 298, median 198.
        assert_eq!(analysis.server_response_time["http://a.test"], 198.0);
        assert_eq!(analysis.additional_rtt["http://a.test"], 0.0);
        // 2000 bytes over the 20 ms they were downloading.
        assert!((analysis.throughput - 2000.0 * 8.0 / 0.02).abs() < 1e-6);
    }

    #[test]
    fn deferring_a_blocking_stylesheet_saves_its_time_before_the_paint() {
        let page = page();
        let refs: Vec<&Request> = page.iter().collect();
        let paint = Task {
            ts: 450_000.0,
            end: 460_000.0,
            layout: true,
            paint: true,
            parse_html: false,
            links: Vec::<Link>::new(),
        };
        let finished = Finished::default();
        let fcp = 470_000.0;
        let g = graph::build(&refs, &[&paint], (1, 1), &finished).unwrap();
        // The stylesheet and the paint task hang off the document.
        assert_eq!(g.edges.deps[1], [0]);
        assert_eq!(g.edges.deps[2], [0]);
        let records: Vec<Net> = g.nodes.iter().filter_map(|n| n.net().cloned()).collect();
        let network = super::network_analyzer::analyze(&records).unwrap();
        let sim = Simulator::new(&g.nodes, &network);
        let fcp_graph = super::metrics::first_contentful_paint(&g, fcp).unwrap();
        let all = sim.simulate(&fcp_graph).unwrap();
        // One connection at a time (the RTT is too short to share the throughput): the
        // document, then the task and the stylesheet; the task runs its observed 10 ms.
        let paint_timing = all.timings[&2];
        assert_eq!(paint_timing.end - paint_timing.start, 10.0);
        assert!(all.timings[&1].start >= all.timings[&0].end);
        let (fcp_ms, lcp_ms) =
            super::metrics::render_blocking_savings(&g, &sim, &fcp_graph, &["2"], false).unwrap();
        let stylesheet = all.timings[&1];
        let expected = (all.time - all.timings[&0].end - 10.0).round();
        assert_eq!(fcp_ms, expected, "{stylesheet:?}");
        assert!(fcp_ms > 190.0, "{fcp_ms}");
        assert_eq!(lcp_ms, fcp_ms);
        // An image LCP keeps its LCP savings at 0.
        let image = super::metrics::render_blocking_savings(&g, &sim, &fcp_graph, &["2"], true);
        assert_eq!(image, Some((fcp_ms, 0.0)));
    }
}
