//! Lengauer–Tarjan over every node, as the load computed dominators before it peeled the
//! trees off: the reference the tests hold the load's answers to. Nodes the root cannot
//! reach are numbered as DevTools numbers them, so its results on them are DevTools' too.

use super::bits::Bits;
use super::dominators::Retention;
use super::retained::Retained;
use std::ops::Range;

use super::graph::Graph;
use super::runs::counts_to_starts;

pub(super) fn compute(g: &Graph, essential: &Bits) -> Retention {
    let n = g.node_count();
    let preds = retainers(g, |e| essential.get(e));
    let mut lt = Lt::new(n);
    let r = g.root + 1;
    lt.dfs(g, essential, r);
    for v in 1..=n as u32 {
        if lt.semi[v as usize] == 0 && preds.of(v - 1).is_empty() {
            lt.parent[v as usize] = r;
            lt.dfs(g, essential, v);
        }
    }
    for v in 1..=n as u32 {
        if lt.semi[v as usize] == 0 {
            lt.parent[v as usize] = r;
            lt.count += 1;
            lt.semi[v as usize] = lt.count;
            lt.vertex[lt.count as usize] = v;
            lt.label[v as usize] = v;
        }
    }
    let mut dominator = lt.dominators(&preds, r);
    dominator.remove(0);
    for d in &mut dominator {
        *d = d.wrapping_sub(1);
    }
    let mut retained: Vec<f64> = (0..n).map(|v| g.self_size(v) as f64).collect();
    for &v in lt.vertex[2..=lt.count as usize].iter().rev() {
        let node = (v - 1) as usize;
        let d = dominator[node] as usize;
        retained[d] += retained[node];
    }
    Retention {
        dominator,
        retained: Retained::Wide(retained),
    }
}

/// 1-based (0 is "none").
struct Lt {
    parent: Vec<u32>,
    ancestor: Vec<u32>,
    vertex: Vec<u32>,
    label: Vec<u32>,
    semi: Vec<u32>,
    /// Each node's next edge to look at in the DFS, then the next node in its bucket.
    next_edge: Vec<u32>,
    stack: Vec<u32>,
    count: u32,
}

impl Lt {
    fn new(n: usize) -> Lt {
        let len = n + 1;
        Lt {
            parent: vec![0; len],
            ancestor: vec![0; len],
            vertex: vec![0; len],
            label: vec![0; len],
            semi: vec![0; len],
            next_edge: vec![0; len],
            stack: Vec::new(),
            count: 0,
        }
    }

    fn dfs(&mut self, g: &Graph, essential: &Bits, root: u32) {
        self.next_edge[root as usize - 1] = g.edges(root - 1).start as u32;
        let mut v = root;
        while v != 0 {
            let vi = v as usize;
            if self.semi[vi] == 0 {
                self.count += 1;
                self.semi[vi] = self.count;
                self.vertex[self.count as usize] = v;
                self.label[vi] = v;
            }
            let mut v_next = self.parent[vi];
            let o = vi - 1;
            let end = g.edges(o as u32).end as u32;
            while self.next_edge[o] < end {
                let e = self.next_edge[o] as usize;
                if essential.get(e) {
                    let w_ord = g.edge_to(e);
                    let w = w_ord as usize + 1;
                    if self.semi[w] == 0 {
                        self.parent[w] = v;
                        self.next_edge[w_ord as usize] = g.edges(w_ord).start as u32;
                        v_next = w as u32;
                        break;
                    }
                }
                self.next_edge[o] += 1;
            }
            v = v_next;
        }
    }

    fn evaluate(&mut self, v: u32) -> u32 {
        if self.ancestor[v as usize] == 0 {
            return v;
        }
        self.compress(v);
        self.label[v as usize]
    }

    fn compress(&mut self, mut v: u32) {
        self.stack.clear();
        while self.ancestor[self.ancestor[v as usize] as usize] != 0 {
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

    fn dominators(&mut self, preds: &Retainers, r: u32) -> Vec<u32> {
        let len = self.semi.len();
        let mut bucket_head = vec![0u32; len];
        for i in (2..=self.count as usize).rev() {
            let w = self.vertex[i];
            let wi = w as usize;
            let mut orphan = true;
            for ri in preds.of(w - 1) {
                orphan = false;
                let v = preds.node[ri] + 1;
                let u = self.evaluate(v);
                if self.semi[u as usize] < self.semi[wi] {
                    self.semi[wi] = self.semi[u as usize];
                }
            }
            if orphan {
                self.semi[wi] = self.semi[r as usize];
            }
            let b = self.vertex[self.semi[wi] as usize] as usize;
            self.next_edge[wi] = bucket_head[b];
            bucket_head[b] = w;
            let p = std::mem::take(&mut self.parent[wi]);
            self.ancestor[wi] = p;
            let mut v = std::mem::take(&mut bucket_head[p as usize]);
            while v != 0 {
                let u = self.evaluate(v);
                let next = self.next_edge[v as usize];
                self.parent[v as usize] = if self.semi[u as usize] < self.semi[v as usize] {
                    u
                } else {
                    p
                };
                v = next;
            }
        }
        let mut dom = std::mem::take(&mut self.parent);
        dom[0] = r;
        dom[r as usize] = r;
        for i in 2..=self.count as usize {
            let w = self.vertex[i] as usize;
            if dom[w] != self.vertex[self.semi[w] as usize] {
                dom[w] = dom[dom[w] as usize];
            }
        }
        dom
    }
}

/// Each node's retaining nodes: `node[first[n]..first[n + 1]]`.
struct Retainers {
    first: Vec<u32>,
    node: Vec<u32>,
}

impl Retainers {
    fn of(&self, node: u32) -> Range<usize> {
        self.first[node as usize] as usize..self.first[node as usize + 1] as usize
    }
}

/// Each node's retaining nodes along the edges `keep` accepts, in the order DevTools lists
/// them: the reverse of the order in which the retaining edges appear.
fn retainers(g: &Graph, keep: impl Fn(usize) -> bool) -> Retainers {
    let n = g.node_count();
    let mut first = vec![0u32; n + 1];
    for (e, t) in g.edge_targets().enumerate() {
        if keep(e) {
            first[t as usize] += 1;
        }
    }
    let total = counts_to_starts(&mut first) as usize;
    // Filled from each node's last slot down: `next` starts as each run's end.
    let mut next: Vec<u32> = first[1..].to_vec();
    let mut nodes = vec![0u32; total];
    for src in 0..n as u32 {
        for e in g.edges(src) {
            if !keep(e) {
                continue;
            }
            let t = g.edge_to(e) as usize;
            next[t] -= 1;
            nodes[next[t] as usize] = src;
        }
    }
    Retainers { first, node: nodes }
}
