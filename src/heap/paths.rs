//! An object's edges and retainers as DevTools' providers list them, its retaining paths
//! (the forest of retainers back towards the roots, shortest first, within limits) and its
//! dominator chain.

use std::cmp::Ordering;

use super::classes::js_cmp;
use super::{NodeInfo, Snapshot};

/// One edge of a listing: its name and type, and the object at its other end.
pub(crate) struct EdgeInfo {
    pub name: String,
    pub type_name: String,
    pub node: NodeInfo,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum EdgeOrder {
    RetainedSize,
    SelfSize,
    Name,
}

/// The options of an edge listing.
pub(crate) struct EdgeQuery {
    pub order: EdgeOrder,
    pub min_retained: Option<f64>,
    pub exclude_primitives: bool,
}

/// Distance of an object the root cannot reach, in the retainers view.
const UNREACHABLE_DISTANCE: i32 = 200_000_000;

impl Snapshot {
    fn edge_info(&self, e: usize, node: u32) -> EdgeInfo {
        let g = &self.graph;
        EdgeInfo {
            name: g.edge_name(e),
            type_name: g.types.edge_names[g.edge_type(e) as usize].clone(),
            node: self.node(node),
        }
    }

    /// The node's outgoing edges, filtered and sorted as asked.
    pub(crate) fn edges_of(&self, node: u32, q: &EdgeQuery) -> Vec<EdgeInfo> {
        let g = &self.graph;
        let t = &g.types;
        let mut edges: Vec<usize> = g
            .edges(node)
            .filter(|&e| {
                let target = g.edge_to(e);
                let n = target as usize;
                if g.edge_type(e) == t.invisible {
                    return false;
                }
                if q.min_retained.is_some_and(|m| self.retained(n) < m) {
                    return false;
                }
                if q.exclude_primitives {
                    let ty = g.node_type[n];
                    let oddball =
                        matches!(g.raw_name(target), "undefined" | "null" | "true" | "false");
                    if ty == t.number || (ty == t.native && oddball) {
                        return false;
                    }
                }
                true
            })
            .collect();
        edges.sort_by(|&a, &b| self.compare_edges(q.order, a, b).then(a.cmp(&b)));
        edges
            .into_iter()
            .map(|e| self.edge_info(e, g.edge_to(e)))
            .collect()
    }

    fn compare_edges(&self, order: EdgeOrder, a: usize, b: usize) -> Ordering {
        let g = &self.graph;
        let by_name = || {
            let (na, nb) = (g.edge_name(a), g.edge_name(b));
            match (na == "__proto__", nb == "__proto__") {
                (false, true) => return Ordering::Less,
                (true, false) => return Ordering::Greater,
                _ => {}
            }
            match (g.edge_has_string_name(a), g.edge_has_string_name(b)) {
                (true, false) => Ordering::Less,
                (false, true) => Ordering::Greater,
                _ => js_cmp(&na, &nb),
            }
        };
        let value = |e: usize, self_size: bool| {
            let n = g.edge_to(e) as usize;
            if self_size {
                g.self_size(n) as f64
            } else {
                self.retained(n)
            }
        };
        let descending = |self_size: bool| value(b, self_size).total_cmp(&value(a, self_size));
        match order {
            EdgeOrder::RetainedSize => descending(false).then_with(by_name),
            EdgeOrder::SelfSize => descending(true).then_with(by_name),
            EdgeOrder::Name => by_name().then_with(|| descending(false)),
        }
    }

    /// The node's retainers (strong, from other than the root), as the retainers view lists
    /// them.
    pub(crate) fn retainers_of(&self, node: u32) -> Vec<EdgeInfo> {
        let g = &self.graph;
        g.retainers(node)
            .filter(|&r| {
                let e = g.retainer_edge(r);
                let t = g.edge_type(e);
                t != g.types.invisible && t != g.types.weak && g.retainer_node(r) != g.root
            })
            .map(|r| {
                let from = g.retainer_node(r);
                let mut info = self.edge_info(g.retainer_edge(r), from);
                if info.node.distance == super::distances::NO_DISTANCE {
                    info.node.distance = UNREACHABLE_DISTANCE;
                }
                info
            })
            .collect()
    }

    /// The chain of dominators from the node up to the root.
    pub(crate) fn dominator_chain(&self, node: u32) -> Vec<NodeInfo> {
        let mut chain = Vec::new();
        let mut at = node;
        loop {
            chain.push(self.node(at));
            if at == self.graph.root {
                break;
            }
            let next = self.dominator.get(at as usize);
            if next == at {
                break;
            }
            at = next;
        }
        chain
    }
}

/// One retainer in a retaining path, and the retainers of it.
pub(crate) struct PathStep {
    pub edge_name: String,
    pub edge_type: String,
    pub node_id: u32,
    pub node_name: String,
    pub distance: i32,
    pub children: Vec<PathStep>,
}

/// The limits a retaining-path search ran into, in the order it first ran into each.
#[derive(Default)]
pub(crate) struct Limits(pub Vec<&'static str>);

impl Limits {
    fn hit(&mut self, name: &'static str) {
        if !self.0.contains(&name) {
            self.0.push(name);
        }
    }
}

/// A retaining-path search's bounds.
pub(crate) struct PathQuery {
    pub max_depth: f64,
    pub max_nodes: f64,
    pub max_siblings: f64,
}

/// The distance at which a retainer is one of the roots.
const ROOT_DISTANCE: i32 = 2;

struct Search<'a> {
    s: &'a Snapshot,
    q: PathQuery,
    traversed: f64,
    visiting: Vec<bool>,
    visited: std::collections::HashMap<u32, f64>,
    limits: Limits,
}

impl Snapshot {
    pub(crate) fn retaining_paths(&self, node: u32, q: PathQuery) -> (Vec<PathStep>, Limits) {
        let mut search = Search {
            s: self,
            q,
            traversed: 0.0,
            visiting: vec![false; self.graph.node_count()],
            visited: std::collections::HashMap::new(),
            limits: Limits::default(),
        };
        let paths = search.forest(node, 0.0);
        (paths, search.limits)
    }
}

impl Search<'_> {
    fn forest(&mut self, node: u32, depth: f64) -> Vec<PathStep> {
        self.traversed += 1.0;
        if self.traversed > self.q.max_nodes {
            self.limits.hit("nodes");
            return Vec::new();
        }
        if depth >= self.q.max_depth {
            self.limits.hit("depth");
            return Vec::new();
        }
        let distance = self.s.distance(node as usize);
        if distance <= ROOT_DISTANCE || self.visiting[node as usize] {
            return Vec::new();
        }
        if self.visited.get(&node).is_some_and(|&d| depth >= d) {
            return Vec::new();
        }
        self.visiting[node as usize] = true;
        let retainers = self.retainers(node, depth);
        let forest = self.steps(retainers, depth);
        self.visiting[node as usize] = false;
        self.visited.insert(node, depth);
        forest
    }

    /// The strong retainers near enough to the roots, nearest first (retainer index, its
    /// distance).
    fn retainers(&mut self, node: u32, depth: f64) -> Vec<(usize, i32)> {
        let g = &self.s.graph;
        let mut found = Vec::new();
        for r in g.retainers(node) {
            let from = g.retainer_node(r);
            let dist = self.s.distance(from as usize);
            if g.edge_type(g.retainer_edge(r)) == g.types.weak || dist < 0 {
                continue;
            }
            if ((dist - ROOT_DISTANCE) as f64) < self.q.max_depth - depth {
                found.push((r, dist));
            } else {
                self.limits.hit("depth");
            }
        }
        found.sort_by_key(|&(_, d)| d);
        found
    }

    fn steps(&mut self, retainers: Vec<(usize, i32)>, depth: f64) -> Vec<PathStep> {
        let g = &self.s.graph;
        if retainers.len() as f64 > self.q.max_siblings {
            self.limits.hit("siblings");
        }
        let mut forest = Vec::new();
        for (i, (r, dist)) in retainers.into_iter().enumerate() {
            if i as f64 >= self.q.max_siblings {
                break;
            }
            let from = g.retainer_node(r);
            let mut children = Vec::new();
            if dist == ROOT_DISTANCE {
                self.traversed += 1.0;
                if self.traversed > self.q.max_nodes {
                    self.limits.hit("nodes");
                    break;
                }
            } else {
                children = self.forest(from, depth + 1.0);
                if children.is_empty() {
                    continue;
                }
            }
            let e = g.retainer_edge(r);
            forest.push(PathStep {
                edge_name: g.edge_name(e),
                edge_type: g.types.edge_names[g.edge_type(e) as usize].clone(),
                node_id: g.node_id(from as usize),
                node_name: super::names::name(g, from),
                distance: dist,
                children,
            });
        }
        forest
    }
}
