//! The summary view's rows: objects of some size grouped by class, with their count, shallow
//! size and the class's retained size (each object's retained size counted once, not again
//! for an object of the same class that it dominates), in the order DevTools builds them.

use super::classes::NONE;
use super::packed::Packed;
use super::runs::Runs;
use super::Snapshot;

pub(crate) struct Aggregate {
    /// The class's number (its id in the listing is this plus one).
    pub class: u32,
    pub count: u64,
    pub self_size: f64,
    pub retained: f64,
    /// Its objects, in snapshot order.
    pub nodes: Vec<u32>,
}

/// The classes of the objects `kept` keeps (all without a filter), by their first object.
pub(super) fn aggregates(s: &Snapshot, kept: Option<&[bool]>) -> Vec<Aggregate> {
    let g = &s.graph;
    let keeps = |n: usize| kept.is_none_or(|k| k[n]);
    let mut at = vec![u32::MAX; s.classes.names.len()];
    let mut out: Vec<Aggregate> = Vec::new();
    for node in 0..g.node_count() {
        let class = s.classes.of.get(node);
        if class == NONE || !keeps(node) {
            continue;
        }
        let slot = &mut at[class as usize];
        if *slot == u32::MAX {
            *slot = out.len() as u32;
            out.push(Aggregate {
                class,
                count: 0,
                self_size: 0.0,
                retained: 0.0,
                nodes: Vec::new(),
            });
        }
        let a = &mut out[*slot as usize];
        a.count += 1;
        a.self_size += g.self_size(node) as f64;
        a.nodes.push(node as u32);
    }
    retained_by_class(s, &keeps, &at, &mut out);
    out
}

/// Walks the dominator tree from the root, adding an object's retained size to its class
/// unless an object of the same class dominates it.
fn retained_by_class(
    s: &Snapshot,
    keeps: &dyn Fn(usize) -> bool,
    at: &[u32],
    out: &mut [Aggregate],
) {
    let g = &s.graph;
    let mut list = vec![g.root];
    let mut sizes: Vec<isize> = vec![-1];
    let mut classes: Vec<u32> = Vec::new();
    let mut seen = vec![false; at.len()];
    while let Some(node) = list.pop() {
        let n = node as usize;
        let class = s.classes.of.get(n);
        let dominated = s.dominated(node);
        if class != NONE && !seen[class as usize] && keeps(n) {
            out[at[class as usize] as usize].retained += s.retained(n);
            if dominated.len() > 0 {
                seen[class as usize] = true;
                sizes.push(list.len() as isize);
                classes.push(class);
            }
        }
        list.extend(dominated);
        while sizes.last() == Some(&(list.len() as isize)) {
            sizes.pop();
            if let Some(c) = classes.pop() {
                seen[c as usize] = false;
            }
        }
    }
}

/// Each node's dominated nodes, as DevTools lists them: in descending order, the root
/// dominating none of itself.
pub(super) fn dominated(dominator: &Packed, root: u32) -> Runs {
    let pairs = || {
        dominator
            .iter()
            .enumerate()
            .filter(move |&(node, _)| node as u32 != root)
            .map(|(node, d)| (d, node as u32))
    };
    Runs::group(dominator.len(), pairs, DOMINATED_CHUNK)
}

/// The most unpacked entries building the dominator tree downwards holds at once.
const DOMINATED_CHUNK: u32 = 1 << 22;
