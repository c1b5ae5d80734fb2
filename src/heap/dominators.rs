//! Who dominates whom and what each object retains: the edges that count for retention
//! (DevTools' "essential" edges), shallow sizes moved to their single owner, then the
//! dominators along the essential edges from the root, as DevTools computes them (its
//! treatment of nodes the root cannot reach included, so the sizes agree): the trees that
//! hang off the graph peeled first (`peel`), Lengauer–Tarjan on what is left
//! (`lengauer_tarjan`).

use std::ops::AddAssign;

use super::bits::Bits;
use super::dom::PAGE_OBJECT;
use super::graph::Graph;
use super::packed::Packed;
use super::peel::{self, Marks};
use super::retained::Retained;
use super::{js, lengauer_tarjan};

/// The edges that retain: not weak, not to itself, not an ephemeron edge from its own
/// table, and (but from the root) not a shortcut nor from a non-page object into a page
/// object.
pub(super) fn essential_edges(g: &Graph, flags: &[u8]) -> Bits {
    let mut bits = Bits::new(g.edge_count());
    let t = &g.types;
    for node in 0..g.node_count() as u32 {
        for e in g.edges(node) {
            let ty = g.edge_type(e);
            if ty == t.weak {
                continue;
            }
            if ty == t.internal {
                if let Some((_, table)) = js::weak_map_edge(g.strings.get(g.edge_name_index(e))) {
                    if g.node_id(node as usize) as f64 == table {
                        continue;
                    }
                }
            }
            let child = g.edge_to(e);
            if child == node {
                continue;
            }
            if node != g.root {
                if ty == t.shortcut {
                    continue;
                }
                let page = |n: u32| flags[n as usize] & PAGE_OBJECT != 0;
                if page(child) && !page(node) {
                    continue;
                }
            }
            bits.set(e);
        }
    }
    bits
}

/// The self sizes with the size of every object with a single owner (reached from one owner
/// only, not through hidden objects or arrays) moved into that owner, as DevTools moves them
/// before it computes retained sizes; `None` when none moves.
pub(super) fn shallow_sizes(g: &Graph) -> Option<Packed> {
    if !g.edges(g.root).any(|e| g.is_js_user_root(g.edge_to(e))) {
        return None;
    }
    const UNVISITED: u32 = u32::MAX;
    const MANY: u32 = u32::MAX - 1;
    let n = g.node_count();
    let t = &g.types;
    let mut owners = vec![0u32; n];
    let mut work = Vec::new();
    for (i, owner) in owners.iter_mut().enumerate() {
        let ty = g.node_type[i];
        let external = ty == t.native && g.raw_name(i as u32) == "system / ExternalStringData";
        if ty == t.hidden || ty == t.array || external {
            *owner = UNVISITED;
        } else {
            *owner = i as u32;
            work.push(i as u32);
        }
    }
    while let Some(id) = work.pop() {
        let owner = owners[id as usize];
        for e in g.edges(id) {
            if g.edge_type(e) == t.weak {
                continue;
            }
            let target = g.edge_to(e);
            match owners[target as usize] {
                UNVISITED => {
                    owners[target as usize] = owner;
                    work.push(target);
                }
                o if o == target || o == owner || o == MANY => {}
                _ => {
                    owners[target as usize] = MANY;
                    work.push(target);
                }
            }
        }
    }
    let mut sizes: Vec<u32> = (0..n).map(|i| g.self_size(i)).collect();
    for (i, &owner) in owners.iter().enumerate() {
        if owner == UNVISITED || owner == MANY || owner == i as u32 {
            continue;
        }
        if g.node_type[owner as usize] == g.types.synthetic || owner == g.root {
            continue;
        }
        let size = std::mem::take(&mut sizes[i]);
        let o = &mut sizes[owner as usize];
        *o = o.wrapping_add(size);
    }
    drop(owners);
    Some(sizes.into_iter().collect())
}

/// Each node's immediate dominator (the root its own) and retained size.
pub(crate) struct Retention {
    pub dominator: Vec<u32>,
    pub retained: Retained,
}

/// The dominators and retained sizes at once, as the tests compare them with the oracle's.
#[cfg(test)]
pub(super) fn compute(g: &Graph, essential: &Bits) -> Retention {
    Tree::of(g, essential).retention(g, essential)
}

/// The dominators, before the retained sizes are summed up their tree.
pub(super) struct Tree {
    dominator: Vec<u32>,
    marks: Marks,
    /// The kept nodes in DFS order.
    order: Vec<u32>,
}

impl Tree {
    /// Lengauer–Tarjan's scratch, the load's largest, is freed when this returns.
    pub(super) fn of(g: &Graph, essential: &Bits) -> Tree {
        let essential = |e| essential.get(e);
        // Each node's single retainer, then a kept node's DFS number, then its dominator.
        let mut dominator = vec![0u32; g.node_count()];
        let marks = peel::peel(g, essential, &mut dominator);
        let order = lengauer_tarjan::dominators(g, essential, &marks, &mut dominator);
        Tree {
            dominator,
            marks,
            order,
        }
    }

    pub(super) fn retention(self, g: &Graph, essential: &Bits) -> Retention {
        let essential = |e| essential.get(e);
        let Tree {
            mut dominator,
            mut marks,
            order,
        } = self;
        // No retained size is larger than the root's, the sum of all: when that fits 32 bits,
        // so does every sum on the way, and the sizes are added as such.
        let total: u64 = (0..g.node_count()).map(|v| g.self_size(v) as u64).sum();
        let retained = if total <= u32::MAX as u64 {
            let sizes = retained_sizes::<u32>(g, essential, &mut marks, &mut dominator, &order);
            Retained::Packed(sizes.into_iter().collect())
        } else {
            Retained::Wide(retained_sizes(
                g,
                essential,
                &mut marks,
                &mut dominator,
                &order,
            ))
        };
        Retention {
            dominator,
            retained,
        }
    }
}

/// Each node's size added into its dominator's, every node before its dominator: the
/// peeled trees from their leaves up, then the kept nodes in reverse DFS order (`order`).
/// A peeled tree below a kept node nothing numbered is dominated by the root, node by node,
/// as DevTools numbers such nodes. (Sums of integers in f64 are exact, so the order in which
/// a node's dominated add into it does not show.)
fn retained_sizes<S: Copy + AddAssign + From<u32>>(
    g: &Graph,
    essential: impl Fn(usize) -> bool,
    marks: &mut Marks,
    dominator: &mut [u32],
    order: &[u32],
) -> Vec<S> {
    let n = g.node_count() as u32;
    let mut retained: Vec<S> = (0..n).map(|v| S::from(g.self_size(v as usize))).collect();
    for &v in order {
        marks.set_reached(v);
    }
    {
        let mut trees = Trees {
            g,
            essential,
            marks,
            dominator,
            retained: &mut retained,
            stack: Vec::new(),
        };
        for k in 0..n {
            if trees.marks.kept(k) {
                trees.sum_below(k);
            }
        }
    }
    let r = g.root as usize;
    for &v in order.iter().skip(1).rev() {
        let size = retained[v as usize];
        retained[dominator[v as usize] as usize] += size;
    }
    for v in 0..n {
        if marks.kept(v) && !marks.reached(v) {
            let size = retained[v as usize];
            retained[r] += size;
        }
    }
    retained
}

/// The peeled trees below a kept node, walked depth first.
struct Trees<'a, F, S> {
    g: &'a Graph,
    essential: F,
    marks: &'a mut Marks,
    dominator: &'a mut [u32],
    retained: &'a mut [S],
    /// The path from the kept node: each node and its next edge to look at.
    stack: Vec<(u32, u32)>,
}

impl<F: Fn(usize) -> bool, S: Copy + AddAssign> Trees<'_, F, S> {
    /// Adds each peeled node's size into its dominator's once its own children's are in.
    fn sum_below(&mut self, kept: u32) {
        let unreached = !self.marks.reached(kept);
        self.stack.push((kept, self.g.edges(kept).start as u32));
        while let Some(&mut (v, ref mut next)) = self.stack.last_mut() {
            let end = self.g.edges(v).end as u32;
            let mut child = None;
            while *next < end {
                let e = *next as usize;
                *next += 1;
                if (self.essential)(e) && self.marks.take_unsummed(self.g.edge_to(e)) {
                    child = Some(self.g.edge_to(e));
                    break;
                }
            }
            if let Some(c) = child {
                if unreached {
                    self.dominator[c as usize] = self.g.root;
                }
                self.stack.push((c, self.g.edges(c).start as u32));
                continue;
            }
            self.stack.pop();
            if v != kept {
                let d = self.dominator[v as usize] as usize;
                let size = self.retained[v as usize];
                self.retained[d] += size;
            }
        }
    }
}
