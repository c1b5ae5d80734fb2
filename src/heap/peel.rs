//! The nodes that hang in trees off the rest of the graph, found before dominators are
//! computed so that Lengauer–Tarjan runs on the rest alone. A node (not the root) whose
//! retaining edges all come from one node, and whose every child hangs too, is dominated by
//! that retainer, and no path through it reaches a node that does not hang: taking it out
//! changes no other node's dominator. Most of a heap hangs so (strings, numbers, the
//! property arrays of one object), which shrinks the scratch dominators need to a fraction.
//!
//! Found leaves first, as the least fixed point: a ring of single retainers that nothing
//! else enters never hangs (each of its nodes waits on the next), though trees below it do.

use super::graph::Graph;

/// Per node: how many distinct nodes retain it (none, one, many) and what became of it.
pub(super) struct Marks(Vec<u8>);

const ONE: u8 = 1;
const MANY: u8 = 2;
const RETAINERS: u8 = ONE | MANY;
/// Dominators come from Lengauer–Tarjan.
const KEPT: u8 = 4;
/// Dominated by its single retainer (or the root, below a node the root cannot reach).
const PEELED: u8 = 8;
/// On the walk `keep_rings` is making.
const ON_PATH: u8 = 16;
/// Kept and numbered from the root (or from a node nothing retains).
const REACHED: u8 = 32;
/// Peeled and its retained size added into its dominator.
const SUMMED: u8 = 64;

impl Marks {
    pub(super) fn kept(&self, node: u32) -> bool {
        self.0[node as usize] & KEPT != 0
    }

    pub(super) fn retained_by_none(&self, node: u32) -> bool {
        self.0[node as usize] & RETAINERS == 0
    }

    pub(super) fn set_reached(&mut self, node: u32) {
        self.0[node as usize] |= REACHED;
    }

    pub(super) fn reached(&self, node: u32) -> bool {
        self.0[node as usize] & REACHED != 0
    }

    /// Whether the peeled node is still to be summed; marks it summed.
    pub(super) fn take_unsummed(&mut self, node: u32) -> bool {
        let m = &mut self.0[node as usize];
        if *m & (PEELED | SUMMED) != PEELED {
            return false;
        }
        *m |= SUMMED;
        true
    }
}

/// Which nodes hang in trees. `retainer` (one slot a node) gets each node's single
/// retainer; the slots of kept nodes are left 0, for Lengauer–Tarjan.
pub(super) fn peel(g: &Graph, essential: impl Fn(usize) -> bool, retainer: &mut [u32]) -> Marks {
    let mut marks = count_retainers(g, essential, retainer);
    for (v, m) in marks.0.iter_mut().enumerate() {
        if *m & RETAINERS != ONE || v == g.root as usize {
            *m |= KEPT;
        }
    }
    keep_retainers_of_kept(&mut marks, retainer);
    keep_rings(&mut marks, retainer);
    for (m, r) in marks.0.iter().zip(retainer.iter_mut()) {
        if m & KEPT != 0 {
            *r = 0;
        }
    }
    marks
}

/// Counts each node's distinct retainers (none, one, many), writing the first into its
/// slot. A node retaining a node of many retainers is kept: the child does not hang.
fn count_retainers(g: &Graph, essential: impl Fn(usize) -> bool, retainer: &mut [u32]) -> Marks {
    let mut marks = vec![0u8; g.node_count()];
    for u in 0..g.node_count() as u32 {
        let mut keep_u = false;
        for e in g.edges(u).filter(|&e| essential(e)) {
            let c = g.edge_to(e) as usize;
            match marks[c] & RETAINERS {
                0 => {
                    marks[c] |= ONE;
                    retainer[c] = u;
                }
                ONE if retainer[c] == u => {}
                ONE => {
                    marks[c] ^= ONE | MANY;
                    marks[retainer[c] as usize] |= KEPT;
                    keep_u = true;
                }
                _ => keep_u = true,
            }
        }
        if keep_u {
            marks[u as usize] |= KEPT;
        }
    }
    Marks(marks)
}

/// A node with a kept child is kept: up the chain of single retainers from each kept node.
fn keep_retainers_of_kept(marks: &mut Marks, retainer: &[u32]) {
    let m = &mut marks.0;
    for v in 0..m.len() {
        if m[v] & (KEPT | RETAINERS) != KEPT | ONE {
            continue;
        }
        // Every node not yet kept has one retainer, so the chain goes on until a kept one.
        let mut p = retainer[v] as usize;
        while m[p] & KEPT == 0 {
            m[p] |= KEPT;
            p = retainer[p] as usize;
        }
    }
}

/// What is left has one retainer each and no kept child: a node hangs when its chain of
/// retainers reaches a kept or peeled node, and is kept when the chain closes in a ring
/// (the ring's nodes kept, the nodes leading into it peeled). Each node is walked twice.
fn keep_rings(marks: &mut Marks, retainer: &[u32]) {
    let m = &mut marks.0;
    for v in 0..m.len() {
        if m[v] & (KEPT | PEELED) != 0 {
            continue;
        }
        let mut x = v;
        while m[x] & (KEPT | PEELED | ON_PATH) == 0 {
            m[x] |= ON_PATH;
            x = retainer[x] as usize;
        }
        let stop = x;
        let mut y = v;
        while y != stop {
            m[y] = (m[y] & !ON_PATH) | PEELED;
            y = retainer[y] as usize;
        }
        if m[stop] & ON_PATH != 0 {
            loop {
                m[y] = (m[y] & !ON_PATH) | KEPT;
                y = retainer[y] as usize;
                if y == stop {
                    break;
                }
            }
        }
    }
}
