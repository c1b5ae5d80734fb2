//! Distances from the roots (the number of strong edges on a shortest path), breadth first as
//! DevTools walks them: user roots first at distance 1, then the rest from the root at a
//! "system" distance, leaving out the edges DevTools does not count (a context's sloppy
//! function map, a map descriptor's values, the first of an ephemeron's two edges).

use std::collections::{HashSet, VecDeque};

use super::bits::Bits;
use super::graph::Graph;
use super::js;
use super::packed::PackedSigned;

/// A node the root cannot reach.
pub(crate) const NO_DISTANCE: i32 = -5;
const SYSTEM_DISTANCE: i32 = 100_000_000;

/// Breadth first from `queue` (already at their distances) over strong edges that `keep`
/// allows (given the parent and the edge).
pub(crate) fn bfs(
    g: &Graph,
    distances: &mut [i32],
    queue: Vec<u32>,
    mut keep: impl FnMut(u32, usize) -> bool,
) {
    // Only the frontier is held: a level of millions of objects, not every node.
    let mut queue = VecDeque::from(queue);
    while let Some(node) = queue.pop_front() {
        let d = distances[node as usize] + 1;
        for e in g.edges(node) {
            if g.edge_type(e) == g.types.weak {
                continue;
            }
            let child = g.edge_to(e);
            if distances[child as usize] != NO_DISTANCE || !keep(node, e) {
                continue;
            }
            distances[child as usize] = d;
            queue.push_back(child);
        }
    }
}

pub(super) fn distances(g: &Graph) -> Vec<i32> {
    let mut d = vec![NO_DISTANCE; g.node_count()];
    let mut pending: HashSet<String> = HashSet::new();
    let mut roots = Vec::new();
    for e in g.edges(g.root) {
        let node = g.edge_to(e);
        if g.is_js_user_root(node) {
            d[node as usize] = 1;
            roots.push(node);
        }
    }
    let any = !roots.is_empty();
    bfs(g, &mut d, roots, |n, e| counted(g, &mut pending, n, e));
    d[g.root as usize] = if any { SYSTEM_DISTANCE } else { 0 };
    bfs(g, &mut d, vec![g.root], |n, e| {
        counted(g, &mut pending, n, e)
    });
    d
}

/// Whether the edge counts for distances. Of an ephemeron's two edges (the same pair seen
/// from the key and from the table) only the second does.
fn counted(g: &Graph, pending: &mut HashSet<String>, node: u32, e: usize) -> bool {
    let t = &g.types;
    let ty = g.node_type[node as usize];
    if ty == t.hidden
        && g.raw_name(node) == "system / NativeContext"
        && g.edge_name(e) == "sloppy_function_map"
    {
        return false;
    }
    if ty == t.array && g.raw_name(node) == "(map descriptors)" {
        return match js::parse_int(&g.edge_name(e)) {
            Some(i) => i < 2.0 || i % 3.0 != 1.0,
            None => true,
        };
    }
    if g.edge_type(e) == t.internal {
        if let Some((pair, _)) = js::weak_map_edge(g.strings.get(g.edge_name_index(e))) {
            if !pending.remove(pair) {
                pending.insert(pair.to_owned());
                return false;
            }
        }
    }
    true
}

/// The nodes reachable from the root along edges `keep` allows, plus the nodes not reachable
/// at all: what DevTools' "retained by …" filters leave out.
pub(crate) fn reached_or_unreachable(
    g: &Graph,
    distances: &PackedSigned,
    keep: impl FnMut(u32, usize) -> bool,
) -> Vec<bool> {
    let seen = reached(g, keep);
    distances
        .iter()
        .enumerate()
        .map(|(node, all)| seen.get(node) || all == NO_DISTANCE)
        .collect()
}

/// The nodes reachable from the root along the strong edges `keep` allows (given the parent
/// and the edge), breadth first as `bfs` walks them, a bit a node.
pub(crate) fn reached(g: &Graph, mut keep: impl FnMut(u32, usize) -> bool) -> Bits {
    let mut seen = Bits::new(g.node_count());
    seen.set(g.root as usize);
    let mut queue = VecDeque::from([g.root]);
    while let Some(node) = queue.pop_front() {
        for e in g.edges(node) {
            if g.edge_type(e) == g.types.weak {
                continue;
            }
            let child = g.edge_to(e) as usize;
            if seen.get(child) || !keep(node, e) {
                continue;
            }
            seen.set(child);
            queue.push_back(child as u32);
        }
    }
    seen
}
