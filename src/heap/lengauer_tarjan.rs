//! Lengauer–Tarjan over the nodes `peel` kept, along the essential edges between them,
//! with its arrays indexed by DFS number and sized to the nodes it reaches.
//!
//! What it reaches: the root's nodes, then, in ordinal order, the nodes reached from each
//! node nothing retains, as if the root retained it (DevTools numbers them so). Dominators
//! of such a graph are unique, so any DFS order gives DevTools' own. A kept node reached
//! neither way (only on rings nothing else enters) is dominated by the root: DevTools
//! numbers it last with the root as parent, and as no node is its child its bucket is never
//! emptied, which leaves the root.
//!
//! Each array serves twice where it can: the parents become the dominators; a node's
//! bucket head lives in its ancestor slot until it is linked (linked nodes are those
//! numbered above the current step, so the ancestor forest needs no "none"); where a node's
//! retainers end becomes, at its step, the next node in its bucket. A node's bucket is
//! emptied once, at its own step: every node in it has its whole path up to it linked by
//! then, as at any earlier step that could have emptied it.

use super::graph::Graph;
use super::peel::Marks;

/// Writes each kept node's immediate dominator into its slot (0 on entry), the root its
/// own; returns the nodes reached, in DFS order (the root first).
pub(super) fn dominators(
    g: &Graph,
    essential: impl Fn(usize) -> bool + Copy,
    marks: &Marks,
    slot: &mut [u32],
) -> Vec<u32> {
    let parent = Numbering::run(g, essential, marks, slot);
    let (semi, ends, preds) = retainers(g, essential, marks, slot, parent.len() - 1);
    let dom = Lt::new(parent, semi, ends, preds).run();
    let vertex = vertices(g, marks, slot, dom.len() - 1);
    for (i, &v) in vertex.iter().enumerate().skip(1) {
        slot[v as usize] = vertex[dom[i + 1] as usize - 1];
    }
    slot[g.root as usize] = g.root;
    vertex
}

/// The DFS: a node's number (from 1) goes into its slot, its parent's number into
/// `parent` (index 0 unused, the root's parent 0).
struct Numbering<'a, F> {
    g: &'a Graph,
    essential: F,
    marks: &'a Marks,
    slot: &'a mut [u32],
    parent: Vec<u32>,
    /// The path from the DFS's start: each node and its next edge to look at.
    stack: Vec<(u32, u32)>,
}

impl<F: Fn(usize) -> bool> Numbering<'_, F> {
    fn run(g: &Graph, essential: F, marks: &Marks, slot: &mut [u32]) -> Vec<u32> {
        let n = g.node_count() as u32;
        let kept = (0..n).filter(|&v| marks.kept(v)).count();
        let mut dfs = Numbering {
            g,
            essential,
            marks,
            slot,
            parent: Vec::with_capacity(kept + 1),
            stack: Vec::new(),
        };
        dfs.parent.push(0);
        dfs.walk(g.root, 0);
        for v in 0..n {
            if marks.kept(v) && marks.retained_by_none(v) && dfs.slot[v as usize] == 0 {
                dfs.walk(v, 1);
            }
        }
        dfs.parent.shrink_to_fit();
        dfs.parent
    }

    fn walk(&mut self, start: u32, parent: u32) {
        self.enter(start, parent);
        while let Some(&mut (v, ref mut next)) = self.stack.last_mut() {
            let end = self.g.edges(v).end as u32;
            let mut child = None;
            while *next < end {
                let e = *next as usize;
                *next += 1;
                let c = self.g.edge_to(e);
                if (self.essential)(e) && self.marks.kept(c) && self.slot[c as usize] == 0 {
                    child = Some(c);
                    break;
                }
            }
            match child {
                Some(c) => self.enter(c, self.slot[v as usize]),
                None => {
                    self.stack.pop();
                }
            }
        }
    }

    fn enter(&mut self, v: u32, parent: u32) {
        self.slot[v as usize] = self.parent.len() as u32;
        self.parent.push(parent);
        self.stack.push((v, self.g.edges(v).start as u32));
    }
}

/// The numbered nodes' retainers (by number) along essential edges from numbered nodes.
/// Of those numbered below a node, Lengauer–Tarjan reads only the least, which goes into
/// `semi` (its own number when there is none: only a node nothing retains); those numbered
/// above number `w` are `preds[ends[w - 1]..ends[w]]`, in ordinal order.
fn retainers(
    g: &Graph,
    essential: impl Fn(usize) -> bool,
    marks: &Marks,
    slot: &[u32],
    count: usize,
) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let numbered = |u: u32| marks.kept(u) && slot[u as usize] != 0;
    // A kept child of a numbered node is numbered; the root's own retainers are not read.
    let each = |f: &mut dyn FnMut(u32, u32)| {
        for u in (0..g.node_count() as u32).filter(|&u| numbered(u)) {
            for e in g.edges(u).filter(|&e| essential(e)) {
                let c = g.edge_to(e);
                if marks.kept(c) && c != g.root {
                    f(slot[u as usize], slot[c as usize]);
                }
            }
        }
    };
    let mut semi: Vec<u32> = (0..=count as u32).collect();
    let mut ends = vec![0u32; count + 1];
    each(&mut |v, w| match v > w {
        true => ends[w as usize] += 1,
        false => semi[w as usize] = semi[w as usize].min(v),
    });
    let mut at = 0u32;
    for end in &mut ends[1..] {
        let n = *end;
        *end = at;
        at += n;
    }
    // Filled forward from each run's start, which leaves each slot at its run's end.
    let mut preds = vec![0u32; at as usize];
    each(&mut |v, w| {
        if v > w {
            let end = &mut ends[w as usize];
            preds[*end as usize] = v;
            *end += 1;
        }
    });
    (semi, ends, preds)
}

/// Number `i`'s node at `i - 1`; a kept node left unnumbered gets the root for dominator.
fn vertices(g: &Graph, marks: &Marks, slot: &mut [u32], count: usize) -> Vec<u32> {
    let mut vertex = vec![0u32; count];
    for v in 0..g.node_count() as u32 {
        if !marks.kept(v) {
            continue;
        }
        match slot[v as usize] {
            0 => slot[v as usize] = g.root,
            i => vertex[i as usize - 1] = v,
        }
    }
    vertex
}

/// Indexed by DFS number; 0 is none.
struct Lt {
    /// Each node's DFS parent until its step, then its immediate dominator (or, until the
    /// last pass, a node with the same one).
    dom: Vec<u32>,
    /// Until a node's step, the least number among its retainers numbered below it; from
    /// its step, its semidominator.
    semi: Vec<u32>,
    label: Vec<u32>,
    /// A linked node's ancestor in the forest; before it is linked, its bucket's head.
    ancestor: Vec<u32>,
    /// Where each node's retainers end in `preds`, until its step; then the next node in
    /// its bucket.
    ends: Vec<u32>,
    preds: Vec<u32>,
    /// Path compression's stack.
    stack: Vec<u32>,
}

impl Lt {
    fn new(parent: Vec<u32>, semi: Vec<u32>, ends: Vec<u32>, preds: Vec<u32>) -> Lt {
        let len = parent.len() as u32;
        Lt {
            dom: parent,
            semi,
            label: (0..len).collect(),
            ancestor: vec![0; len as usize],
            ends,
            preds,
            stack: Vec::new(),
        }
    }

    fn run(mut self) -> Vec<u32> {
        let count = self.dom.len() as u32 - 1;
        for w in (2..=count).rev() {
            let s = self.semidominator(w);
            self.ends[w as usize] = self.ancestor[s as usize];
            self.ancestor[s as usize] = w;
            self.empty_bucket(w);
            self.ancestor[w as usize] = self.dom[w as usize];
        }
        if count >= 1 {
            self.empty_bucket(1);
        }
        let mut dom = std::mem::take(&mut self.dom);
        if count >= 1 {
            dom[1] = 1;
        }
        for w in 2..dom.len() {
            if dom[w] != self.semi[w] {
                dom[w] = dom[dom[w] as usize];
            }
        }
        dom
    }

    /// At `w`'s step the nodes numbered above it are linked; `semi` holds the least of its
    /// retainers numbered below it, its own number when it has none. A node nothing
    /// retains (it has no retainer above either) has the root for its semidominator.
    fn semidominator(&mut self, w: u32) -> u32 {
        let wi = w as usize;
        let (start, end) = (self.ends[wi - 1] as usize, self.ends[wi] as usize);
        let mut s = if self.semi[wi] == w { 1 } else { self.semi[wi] };
        for i in start..end {
            let u = self.eval(self.preds[i], w + 1);
            s = s.min(self.semi[u as usize]);
        }
        self.semi[wi] = s;
        s
    }

    /// Each node whose semidominator is `p`: its dominator is `p`, or that of the node of
    /// least semidominator on its path up to `p`.
    fn empty_bucket(&mut self, p: u32) {
        let mut v = std::mem::take(&mut self.ancestor[p as usize]);
        while v != 0 {
            let u = self.eval(v, p + 1);
            let next = self.ends[v as usize];
            self.dom[v as usize] = if self.semi[u as usize] < self.semi[v as usize] {
                u
            } else {
                p
            };
            v = next;
        }
    }

    /// The node of least semidominator on `v`'s path up to its forest root; nodes from
    /// `linked` up are linked.
    fn eval(&mut self, v: u32, linked: u32) -> u32 {
        if v < linked {
            return v;
        }
        self.compress(v, linked);
        self.label[v as usize]
    }

    fn compress(&mut self, mut v: u32, linked: u32) {
        self.stack.clear();
        while self.ancestor[v as usize] >= linked {
            self.stack.push(v);
            v = self.ancestor[v as usize];
        }
        while let Some(w) = self.stack.pop() {
            let w = w as usize;
            let a = self.ancestor[w] as usize;
            if self.semi[self.label[a] as usize] < self.semi[self.label[w] as usize] {
                self.label[w] = self.label[a];
            }
            self.ancestor[w] = self.ancestor[a];
        }
    }
}
