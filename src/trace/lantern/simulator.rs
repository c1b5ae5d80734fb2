//! Lantern's Simulator: runs a graph on a modelled network and main thread. Requests wait
//! for a free connection of their origin (six per HTTP/1 origin, one shared for H2), share
//! the throughput while in flight and pay DNS once per host; tasks run one at a time for
//! their observed duration. Time advances to the next node completion until all are done.

use std::collections::HashMap;

use super::graph::{Edges, Node};
use super::network_analyzer::{self, Analysis};
use super::tcp::Connection;

const DEFAULT_SERVER_RESPONSE_TIME: f64 = 30.0;
const CONNECTIONS_PER_ORIGIN: usize = 6;
const MAXIMUM_CONCURRENT_REQUESTS: f64 = 10.0;
/// No task is simulated longer than this (ms).
const MAXIMUM_CPU_TASK_DURATION: f64 = 10_000.0;
const DNS_RTT_MULTIPLIER: f64 = 2.0;

/// When a node ran in the simulation (ms from its start).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Timing {
    pub(super) start: f64,
    pub(super) end: f64,
}

/// A simulation's result: its length and each node's timing.
pub(super) struct Simulation {
    pub(super) time: f64,
    pub(super) timings: HashMap<usize, Timing>,
}

/// The network the simulation runs on ("provided" throttling: the observed one).
pub(super) struct Simulator<'g, 'a> {
    nodes: &'g [Node<'a>],
    network: &'g Analysis,
    max_concurrent: f64,
}

#[derive(Clone, Copy, Default)]
struct Progress {
    start: f64,
    elapsed: f64,
    overshoot: f64,
    bytes: f64,
    estimate: f64,
}

/// One run's state.
struct Run<'s, 'g, 'a> {
    sim: &'s Simulator<'g, 'a>,
    edges: &'s Edges,
    connections: HashMap<String, Vec<Connection>>,
    /// The connection each request in flight holds: (origin, index).
    held: HashMap<usize, (String, usize)>,
    dns: HashMap<String, f64>,
    by_start: Vec<usize>,
    ready: Vec<usize>,
    in_progress: Vec<usize>,
    complete: Vec<bool>,
    progress: HashMap<usize, Progress>,
    timings: HashMap<usize, Timing>,
    cpu_running: usize,
    net_running: usize,
}

impl<'g, 'a> Simulator<'g, 'a> {
    pub(super) fn new(nodes: &'g [Node<'a>], network: &'g Analysis) -> Self {
        let saturated = Connection::maximum_saturated(network.rtt, network.throughput);
        Simulator {
            nodes,
            network,
            max_concurrent: saturated.clamp(1.0, MAXIMUM_CONCURRENT_REQUESTS),
        }
    }

    /// Simulates the graph; None where Lantern's simulation fails.
    pub(super) fn simulate(&self, edges: &Edges) -> Option<Simulation> {
        let connections = self.connections(edges)?;
        let len = self.nodes.len();
        let mut run = Run {
            sim: self,
            edges,
            connections,
            held: HashMap::new(),
            dns: HashMap::new(),
            by_start: Vec::new(),
            ready: Vec::new(),
            in_progress: Vec::new(),
            complete: vec![false; len],
            progress: HashMap::new(),
            timings: HashMap::new(),
            cpu_running: 0,
            net_running: 0,
        };
        let time = run.run()?;
        Some(Simulation {
            time,
            timings: run.timings,
        })
    }

    /// Lantern's connection pool: a connection per request that opened one, at least six
    /// per HTTP/1 origin.
    fn connections(&self, edges: &Edges) -> Option<HashMap<String, Vec<Connection>>> {
        let records: Vec<_> = edges
            .members()
            .into_iter()
            .filter_map(|n| self.nodes[n].net().cloned())
            .collect();
        let reused = network_analyzer::connection_reused(&records, true);
        let mut out: HashMap<String, Vec<Connection>> = HashMap::new();
        for r in &records {
            let rtt = self.network.rtt
                + self
                    .network
                    .additional_rtt
                    .get(&r.origin)
                    .copied()
                    .unwrap_or(0.0);
            let server = self.network.server_response_time.get(&r.origin).copied();
            let server = server
                .filter(|s| *s != 0.0 && !s.is_nan())
                .unwrap_or(DEFAULT_SERVER_RESPONSE_TIME);
            let list = out.entry(r.origin.clone()).or_default();
            if reused.get(&r.id).copied().unwrap_or(false) {
                continue;
            }
            let tls = matches!(r.scheme.as_str(), "https" | "wss");
            list.push(Connection::new(
                rtt,
                self.network.throughput,
                server,
                tls,
                r.is_multiplexed(),
            ));
        }
        for list in out.values_mut() {
            let first = list.first()?.clone();
            let least = if first.multiplexed() {
                1
            } else {
                CONNECTIONS_PER_ORIGIN
            };
            while list.len() < least {
                list.push(first.clone());
            }
        }
        Some(out)
    }

    /// Where a node goes in the start queue: its start, later for lower priorities (µs).
    fn start_position(&self, n: usize) -> f64 {
        let node = &self.nodes[n];
        let Some(net) = node.net() else {
            return node.start;
        };
        let penalty = match net.request.priority.as_str() {
            "High" => 0.25,
            "Medium" => 0.5,
            "Low" => 1.0,
            "VeryLow" => 2.0,
            _ => 0.0,
        };
        node.start + penalty * 1_000_000.0
    }
}

impl Run<'_, '_, '_> {
    fn run(&mut self) -> Option<f64> {
        let mut total = 0.0;
        self.ready_to_start(self.edges.root);
        let mut iterations = 0;
        while !self.ready.is_empty() || !self.in_progress.is_empty() {
            for n in self.by_start.clone() {
                self.start_if_possible(n, total);
            }
            if self.in_progress.is_empty() {
                return None;
            }
            self.update_capacity();
            let mut minimum = f64::INFINITY;
            for n in self.in_progress.clone() {
                minimum = minimum.min(self.estimate(n));
            }
            total += minimum;
            iterations += 1;
            if !minimum.is_finite() || iterations > 100_000 {
                return None;
            }
            for n in self.in_progress.clone() {
                self.progress_made(n, minimum, total);
            }
        }
        Some(total)
    }

    fn connectionless(&self, n: usize) -> bool {
        self.sim.nodes[n]
            .net()
            .is_some_and(|r| r.is_connectionless())
    }

    fn ready_to_start(&mut self, n: usize) {
        let position = self.sim.start_position(n);
        let at = self
            .by_start
            .iter()
            .position(|&c| self.sim.start_position(c) > position)
            .unwrap_or(self.by_start.len());
        self.by_start.insert(at, n);
        self.ready.push(n);
    }

    fn start_if_possible(&mut self, n: usize, total: f64) {
        let sim = self.sim;
        let node = &sim.nodes[n];
        match node.net() {
            None if self.cpu_running > 0 => return,
            None => self.cpu_running += 1,
            Some(_) if self.connectionless(n) => {}
            Some(r) => {
                if self.net_running as f64 >= self.sim.max_concurrent {
                    return;
                }
                let Some(i) = self.free_connection(&r.origin) else {
                    return;
                };
                self.held.insert(n, (r.origin.clone(), i));
                self.net_running += 1;
            }
        }
        self.by_start.retain(|&c| c != n);
        self.ready.retain(|&c| c != n);
        self.in_progress.push(n);
        self.progress.insert(
            n,
            Progress {
                start: total,
                ..Progress::default()
            },
        );
    }

    /// The origin's free connection with the largest congestion window.
    fn free_connection(&self, origin: &str) -> Option<usize> {
        let list = self.connections.get(origin)?;
        let mut best: Option<usize> = None;
        for (i, c) in list.iter().enumerate() {
            if self.held.values().any(|(o, j)| o == origin && *j == i) {
                continue;
            }
            // Lantern reads a best window of 0 as none at all.
            let current = best.map_or(f64::NEG_INFINITY, |b| list[b].congestion_window);
            let current = if current == 0.0 {
                f64::NEG_INFINITY
            } else {
                current
            };
            if c.congestion_window > current {
                best = Some(i);
            }
        }
        best
    }

    fn connection(&mut self, n: usize) -> Option<&mut Connection> {
        let (origin, i) = self.held.get(&n)?;
        self.connections.get_mut(origin)?.get_mut(*i)
    }

    fn update_capacity(&mut self) {
        if self.net_running == 0 {
            return;
        }
        let share = self.sim.network.throughput / self.net_running as f64;
        for (origin, i) in self.held.values() {
            if let Some(c) = self.connections.get_mut(origin).and_then(|l| l.get_mut(*i)) {
                c.throughput = share;
            }
        }
    }

    /// DNS for the request's host started at `at`: a lookup unless one is under way or done.
    fn dns_time(&mut self, n: usize, at: f64) -> f64 {
        let sim = self.sim;
        let Some(r) = sim.nodes[n].net() else {
            return 0.0;
        };
        let mut time = self.sim.network.rtt * DNS_RTT_MULTIPLIER;
        if let Some(resolved) = self.dns.get(&r.host) {
            time = time.min((resolved - at).max(0.0));
        }
        let entry = self.dns.entry(r.host.clone()).or_insert(at + time);
        *entry = entry.min(at + time);
        time
    }

    /// The time the node still needs, remembered as its estimate.
    fn estimate(&mut self, n: usize) -> f64 {
        let p = self.progress.get(&n).copied().unwrap_or_default();
        let sim = self.sim;
        let node = &sim.nodes[n];
        let remaining = match node.net() {
            None => {
                let ms = (node.end - node.start) / 1000.0;
                ms.round().min(MAXIMUM_CPU_TASK_DURATION) - p.elapsed
            }
            Some(r) if r.is_connectionless() => {
                let mb = r.request.decoded_body_length / 1024.0 / 1024.0;
                match r.disk_cached() {
                    true => 8.0 + 20.0 * mb - p.elapsed,
                    false => 2.0 + 10.0 * mb - p.elapsed,
                }
            }
            Some(r) => {
                let bytes = r.transfer_size - p.bytes;
                let dns = self.dns_time(n, p.start);
                let c = self.connection(n);
                let time = c.map_or(f64::INFINITY, |c| {
                    c.download(bytes, p.elapsed, f64::INFINITY, dns)
                        .time_elapsed
                });
                time + p.overshoot
            }
        };
        if let Some(p) = self.progress.get_mut(&n) {
            p.estimate = remaining;
        }
        remaining
    }

    fn progress_made(&mut self, n: usize, period: f64, total: f64) {
        let mut p = self.progress.get(&n).copied().unwrap_or_default();
        let finished = p.estimate == period;
        let sim = self.sim;
        let Some(r) = sim.nodes[n].net().filter(|_| !self.connectionless(n)) else {
            match finished {
                true => self.complete(n, total),
                false => p.elapsed += period,
            }
            self.progress.insert(n, p);
            return;
        };
        let bytes = r.transfer_size - p.bytes;
        let dns = self.dns_time(n, p.start);
        let Some(c) = self.connection(n) else { return };
        let h2_used = if c.multiplexed() {
            bytes.min(c.h2_overflow_bytes)
        } else {
            0.0
        };
        let d = c.download(bytes, p.elapsed, period - p.overshoot, dns);
        c.congestion_window = d.congestion_window;
        c.set_h2_overflow_bytes(d.extra_bytes_downloaded);
        if finished {
            c.warmed = true;
            self.held.remove(&n);
            self.complete(n, total);
        } else {
            p.elapsed += d.time_elapsed;
            p.overshoot += d.time_elapsed - period;
            p.bytes += d.bytes_downloaded + h2_used;
            self.progress.insert(n, p);
        }
    }

    fn complete(&mut self, n: usize, total: f64) {
        self.in_progress.retain(|&c| c != n);
        self.complete[n] = true;
        match self.sim.nodes[n].net() {
            None => self.cpu_running -= 1,
            Some(_) if self.connectionless(n) => {}
            Some(_) => self.net_running -= 1,
        }
        let start = self.progress.get(&n).map_or(0.0, |p| p.start);
        self.timings.insert(n, Timing { start, end: total });
        for d in self.edges.dependents(n) {
            if self.edges.deps[d].iter().all(|&x| self.complete[x]) {
                self.ready_to_start(d);
            }
        }
    }
}
