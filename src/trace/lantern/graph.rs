//! Lantern's page dependency graph: the network nodes (`network_graph.rs` links them)
//! and the main thread's task nodes, linked to the requests their events name, with short
//! tasks that link little pruned as Lantern prunes them.
//!
//! Left out: links from a task to a subframe's document request, and worker and video
//! requests.

use std::collections::{HashMap, VecDeque};

use super::super::network::Request;
use super::network_graph;
use super::requests::{lantern_type, Net};
use super::tasks::{Finished, Link, Task, SIGNIFICANT_DUR};

/// A graph node: a request (or redirect hop) or a main-thread task; times in µs.
enum Kind<'a> {
    Net(Box<Net<'a>>),
    Cpu(&'a Task),
}

pub(super) struct Node<'a> {
    kind: Kind<'a>,
    pub(super) start: f64,
    pub(super) end: f64,
}

impl Node<'_> {
    pub(super) fn net(&self) -> Option<&Net<'_>> {
        match &self.kind {
            Kind::Net(n) => Some(n),
            Kind::Cpu(_) => None,
        }
    }

    pub(super) fn task(&self) -> Option<&Task> {
        match self.kind {
            Kind::Cpu(t) => Some(t),
            Kind::Net(_) => None,
        }
    }
}

/// A graph over the nodes: each node's dependencies and dependents in the order Lantern
/// adds them. A node no path from `root` reaches is not part of it.
#[derive(Clone, Debug, Default)]
pub(super) struct Edges {
    pub(super) root: usize,
    pub(super) deps: Vec<Vec<usize>>,
    /// Dependents as added; a removed one leaves `GONE` in its place, so that removing one
    /// of the root's thousands of dependents does not shift the rest.
    dependents: Vec<Vec<usize>>,
    /// Where each (dependency, dependent) pair sits in `dependents`.
    slots: HashMap<(usize, usize), usize>,
    counts: Vec<usize>,
}

const GONE: usize = usize::MAX;

impl Edges {
    fn new(len: usize, root: usize) -> Self {
        Edges {
            root,
            deps: vec![Vec::new(); len],
            dependents: vec![Vec::new(); len],
            slots: HashMap::new(),
            counts: vec![0; len],
        }
    }

    /// Makes `node` depend on `on` (once).
    fn link(&mut self, node: usize, on: usize) {
        if node != on && !self.deps[node].contains(&on) {
            self.deps[node].push(on);
            self.slots.insert((on, node), self.dependents[on].len());
            self.dependents[on].push(node);
            self.counts[on] += 1;
        }
    }

    fn unlink(&mut self, node: usize, on: usize) {
        self.deps[node].retain(|&d| d != on);
        if let Some(i) = self.slots.remove(&(on, node)) {
            self.dependents[on][i] = GONE;
            self.counts[on] -= 1;
        }
    }

    /// What depends on `n`, in the order it was linked.
    pub(super) fn dependents(&self, n: usize) -> Vec<usize> {
        self.dependents[n]
            .iter()
            .copied()
            .filter(|&d| d != GONE)
            .collect()
    }

    /// Lantern's breadth-first walk from `from` along `next`, each node once.
    fn walk(&self, from: usize, next: impl Fn(usize) -> Vec<usize>) -> Vec<usize> {
        let mut seen = vec![false; self.deps.len()];
        seen[from] = true;
        let mut queue = VecDeque::from([from]);
        let mut out = Vec::new();
        while let Some(n) = queue.pop_front() {
            out.push(n);
            for m in next(n) {
                if !seen[m] {
                    seen[m] = true;
                    queue.push_back(m);
                }
            }
        }
        out
    }

    /// The nodes of the graph, from the root along dependents.
    pub(super) fn members(&self) -> Vec<usize> {
        self.walk(self.root, |n| self.dependents(n))
    }

    /// `from` and everything that depends on it, transitively.
    pub(super) fn downstream(&self, from: usize) -> Vec<usize> {
        self.walk(from, |n| self.dependents(n))
    }

    /// Lantern's `cloneWithRelationships`: the nodes `keep` accepts with everything they
    /// depend on, linked as before; None when that leaves the root out.
    pub(super) fn keep(&self, keep: impl Fn(usize) -> bool) -> Option<Edges> {
        let order = self.members();
        let mut included = vec![false; self.deps.len()];
        for &n in &order {
            if included[n] || !keep(n) {
                continue;
            }
            let upstream = self.walk(n, |m| {
                self.deps[m]
                    .iter()
                    .copied()
                    .filter(|d| !included[*d])
                    .collect()
            });
            for m in upstream {
                included[m] = true;
            }
        }
        let mut out = Edges::new(self.deps.len(), self.root);
        for &n in order.iter().filter(|n| included[**n]) {
            for &d in &self.deps[n] {
                out.link(n, d);
            }
        }
        included[self.root].then_some(out)
    }

    /// Whether every member can be reached in dependency order (no cycle).
    fn acyclic(&self) -> bool {
        let members = self.members();
        let mut member = vec![false; self.deps.len()];
        for &n in &members {
            member[n] = true;
        }
        // Only dependencies inside the graph count (a task before the root may be one).
        let inside = |n: usize| self.deps[n].iter().filter(|d| member[**d]).count();
        let mut waiting: HashMap<usize, usize> = members.iter().map(|&n| (n, inside(n))).collect();
        let mut ready: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&n| inside(n) == 0)
            .collect();
        let mut done = 0;
        while let Some(n) = ready.pop() {
            done += 1;
            for d in self.dependents(n) {
                if let Some(w) = waiting.get_mut(&d) {
                    *w -= 1;
                    if *w == 0 {
                        ready.push(d);
                    }
                }
            }
        }
        done == members.len()
    }
}

/// The graph of one navigation: its requests (in time order) and its main thread's tasks.
pub(super) struct Graph<'a> {
    pub(super) nodes: Vec<Node<'a>>,
    pub(super) edges: Edges,
    pub(super) main_document: usize,
    /// The tasks' strings and module URLs, and the thread they ran on.
    pub(super) finished: &'a Finished,
    pub(super) thread: (i64, i64),
}

/// Lantern's `createGraph`; None where Lantern fails (no main document, a cycle).
pub(super) fn build<'a>(
    requests: &[&'a Request],
    tasks: &[&'a Task],
    thread: (i64, i64),
    finished: &'a Finished,
) -> Option<Graph<'a>> {
    let network = network_graph::graph(requests);
    let mut nodes: Vec<Node> = network
        .nodes
        .iter()
        .map(|g| {
            let net = Net::new(g.request, g.redirect, g.start);
            Node {
                start: net.start,
                end: net.end * 1000.0,
                kind: Kind::Net(Box::new(net)),
            }
        })
        .collect();
    let final_url = nodes.first()?.net()?.request.url.clone();
    let main_document = nodes.iter().rposition(|n| {
        n.net().is_some_and(|r| {
            r.resource_type == Some("Document") && !r.request.failed && r.url == final_url
        })
    })?;
    let first_task = nodes.len();
    nodes.extend(tasks.iter().map(|t| Node {
        kind: Kind::Cpu(t),
        start: t.ts,
        end: t.end,
    }));
    let mut edges = Edges::new(nodes.len(), 0);
    for (n, deps) in network.deps.iter().enumerate() {
        for &d in deps {
            edges.link(n, d);
        }
    }
    let tasks = TaskLinks {
        first_task,
        thread,
        finished,
        document: main_document,
    };
    link_tasks(&nodes, &mut edges, &tasks);
    prune(&nodes, &mut edges, first_task);
    edges.acyclic().then_some(Graph {
        nodes,
        edges,
        main_document,
        finished,
        thread,
    })
}

/// Where the task nodes start, and what their links resolve against.
struct TaskLinks<'f> {
    first_task: usize,
    thread: (i64, i64),
    finished: &'f Finished,
    /// The main document: the one frame document Lantern finds here (a subframe's
    /// document request is left out, since its frame's URL at the time is not kept).
    document: usize,
}

/// Lantern's `linkCPUNodes`, but for its pruning.
fn link_tasks(nodes: &[Node], edges: &mut Edges, cx: &TaskLinks) {
    let TaskLinks {
        first_task,
        thread,
        finished,
        document,
    } = *cx;
    let document_frame = nodes[document]
        .net()
        .map_or("", |r| r.request.frame.as_str());
    let mut by_url: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut by_id: HashMap<&str, usize> = HashMap::new();
    for (i, n) in nodes[..first_task].iter().enumerate() {
        if let Some(net) = n.net() {
            by_url.entry(net.url).or_default().push(i);
            by_id.entry(net.id.as_str()).or_insert(i);
        }
    }
    let on_url = |edges: &mut Edges, cpu: usize, url: &str| {
        if let Some(c) = closest_request(nodes, by_url.get(url), cpu) {
            edges.link(cpu, c);
        }
    };
    let mut timers: HashMap<u32, usize> = HashMap::new();
    for cpu in first_task..nodes.len() {
        let Some(task) = nodes[cpu].task() else {
            continue;
        };
        for link in &task.links {
            match *link {
                Link::Url(u) | Link::Evaluates(u) => on_url(edges, cpu, finished.string(u)),
                Link::Module(s) => {
                    if let Some(url) = finished.module_url(thread.0, thread.1, s) {
                        on_url(edges, cpu, url);
                    }
                }
                Link::Sends(id) => {
                    let Some(&n) = by_id.get(finished.string(id)) else {
                        continue;
                    };
                    let net = nodes[n].net();
                    let kind = net.map(|r| r.resource_type.unwrap_or(lantern_type(r.request)));
                    let linkable = matches!(kind, Some("XHR" | "Fetch" | "Script"));
                    if nodes[n].start > nodes[cpu].start && linkable {
                        edges.link(n, cpu);
                    }
                }
                Link::TimerInstall(t) => {
                    timers.insert(t, cpu);
                }
                Link::Frame(f) => {
                    let ours = !document_frame.is_empty() && finished.string(f) == document_frame;
                    if ours && nodes[document].start < nodes[cpu].start {
                        edges.link(cpu, document);
                    }
                }
                Link::TimerFire(t) => {
                    let installer = timers.get(&t).copied();
                    if let Some(i) = installer.filter(|&i| nodes[i].end <= nodes[cpu].start) {
                        edges.link(cpu, i);
                    }
                }
            }
        }
        if edges.deps[cpu].is_empty() && nodes[0].start <= nodes[cpu].start {
            edges.link(cpu, 0);
        }
    }
}

/// Of the requests for one URL, the one that ended last before the task started (or up to
/// 100 ms after: a task may use a response still arriving), having started before it.
fn closest_request(nodes: &[Node], candidates: Option<&Vec<usize>>, cpu: usize) -> Option<usize> {
    let start = nodes[cpu].start;
    let mut best: Option<(usize, f64)> = None;
    for &c in candidates.map_or(&[][..], Vec::as_slice) {
        if start <= nodes[c].start {
            continue;
        }
        let distance = start - nodes[c].end;
        if distance >= -100_000.0 && best.is_none_or(|(_, d)| distance < d) {
            best = Some((c, distance));
        }
    }
    best.map(|(c, _)| c)
}

/// Lantern removes short tasks with one dependency or at most one dependent, linking
/// around them; the first layout, paint and HTML parse stay.
fn prune(nodes: &[Node], edges: &mut Edges, first_task: usize) {
    let (mut layout, mut paint, mut parse) = (false, false, false);
    for (cpu, node) in nodes.iter().enumerate().skip(first_task) {
        let Some(task) = node.task() else {
            continue;
        };
        let mut first = false;
        if !layout && task.layout {
            (layout, first) = (true, true);
        }
        if !paint && task.paint {
            (paint, first) = (true, true);
        }
        if !parse && task.parse_html {
            (parse, first) = (true, true);
        }
        if first || task.duration() >= SIGNIFICANT_DUR {
            continue;
        }
        if edges.deps[cpu].len() == 1 || edges.counts[cpu] <= 1 {
            let (deps, dependents) = (edges.deps[cpu].clone(), edges.dependents(cpu));
            for &d in &deps {
                edges.unlink(cpu, d);
                for &m in &dependents {
                    edges.link(m, d);
                }
            }
            for &m in &dependents {
                edges.unlink(m, cpu);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Edges;

    #[test]
    fn keeping_a_node_keeps_what_it_depends_on() {
        // 0 → 1 → 3, 0 → 2; 4 is not reachable from the root.
        let mut edges = Edges::new(5, 0);
        edges.link(1, 0);
        edges.link(2, 0);
        edges.link(3, 1);
        edges.link(3, 4);
        assert_eq!(edges.members(), [0, 1, 2, 3]);
        let kept = edges.keep(|n| n == 3).unwrap();
        assert_eq!(kept.members(), [0, 1, 3]);
        assert_eq!(kept.deps[3], [1, 4]);
        assert!(kept.deps[2].is_empty());
        assert!(edges.acyclic());
        edges.link(1, 3);
        assert!(!edges.acyclic());
        // Leaving the root out leaves no graph.
        assert!(Edges::new(2, 0).keep(|n| n == 1).is_none());
    }
}
