//! Who dominates whom and what each object retains: the edges that count for retention
//! (DevTools' "essential" edges), shallow sizes moved to their single owner, then
//! Lengauer–Tarjan over the essential edges from the root, as DevTools computes them (its
//! treatment of nodes the root cannot reach included, so the sizes agree).

use super::dom::PAGE_OBJECT;
use super::graph::{self, Graph, Retainers};
use super::js;

/// One bit per edge.
pub(crate) struct Bits(Vec<u64>);

impl Bits {
    pub(crate) fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    pub(crate) fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    pub(crate) fn get(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }
}

/// The edges that retain: not weak, not to itself, not an ephemeron edge from its own
/// table, and (but from the root) not a shortcut nor from a non-page object into a page
/// object.
pub(super) fn essential_edges(g: &Graph, flags: &[u8]) -> Bits {
    let mut bits = Bits::new(g.edge_type.len());
    let t = &g.types;
    for node in 0..g.node_count() as u32 {
        for e in g.edges(node) {
            let ty = g.edge_type[e];
            if ty == t.weak {
                continue;
            }
            if ty == t.internal {
                if let Some((_, table)) = js::weak_map_edge(g.strings.get(g.edge_name[e])) {
                    if g.node_id[node as usize] as f64 == table {
                        continue;
                    }
                }
            }
            let child = g.edge_to[e];
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

/// Moves the size of every object with a single owner (reached from one owner only, not
/// through hidden objects or arrays) into that owner, as DevTools does before it computes
/// retained sizes.
pub(super) fn shallow_sizes(g: &mut Graph) {
    if !g.edges(g.root).any(|e| g.is_js_user_root(g.edge_to[e])) {
        return;
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
            if g.edge_type[e] == t.weak {
                continue;
            }
            let target = g.edge_to[e];
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
    for (i, &owner) in owners.iter().enumerate() {
        if owner == UNVISITED || owner == MANY || owner == i as u32 {
            continue;
        }
        if g.node_type[owner as usize] == g.types.synthetic || owner == g.root {
            continue;
        }
        let size = std::mem::take(&mut g.self_size[i]);
        let o = &mut g.self_size[owner as usize];
        *o = o.wrapping_add(size);
    }
}

/// Each node's immediate dominator (the root its own) and retained size.
pub(crate) struct Retention {
    pub dominator: Vec<u32>,
    pub retained: Vec<f64>,
}

pub(super) fn compute(g: &Graph, essential: &Bits) -> Retention {
    let n = g.node_count();
    // Only the retainers along essential edges count, and only their nodes are needed.
    let preds = graph::retainers(g, |e| essential.get(e), false);
    let mut lt = Lt::new(n);
    let r = g.root + 1;
    lt.dfs(g, essential, r);
    if (lt.count as usize) < n {
        for v in 1..=n as u32 {
            if lt.semi[v as usize] == 0 && preds.of(v - 1).is_empty() {
                lt.parent[v as usize] = r;
                lt.dfs(g, essential, v);
            }
        }
    }
    if (lt.count as usize) < n {
        for v in 1..=n as u32 {
            if lt.semi[v as usize] == 0 {
                lt.parent[v as usize] = r;
                lt.count += 1;
                lt.semi[v as usize] = lt.count;
                lt.vertex[lt.count as usize] = v;
                lt.label[v as usize] = v;
            }
        }
    }
    let mut dominator = lt.dominators(&preds, r);
    drop(preds);
    let (vertex, count) = (std::mem::take(&mut lt.vertex), lt.count as usize);
    drop(lt);
    // From 1-based (0 for none) to ordinals, in place.
    dominator.remove(0);
    for d in &mut dominator {
        *d = d.wrapping_sub(1);
    }
    let mut retained: Vec<f64> = (0..n as u32).map(|v| g.self_size(v) as f64).collect();
    for &v in vertex[2..=count].iter().rev() {
        let node = (v - 1) as usize;
        let d = dominator[node] as usize;
        retained[d] += retained[node];
    }
    Retention {
        dominator,
        retained,
    }
}

/// Lengauer–Tarjan's arrays, 1-based (0 is "none"). Each serves twice where its first use
/// is over before the second begins, so the scratch is seven words a node.
struct Lt {
    /// The DFS tree's parents, then each node's immediate dominator.
    parent: Vec<u32>,
    ancestor: Vec<u32>,
    vertex: Vec<u32>,
    label: Vec<u32>,
    semi: Vec<u32>,
    /// Each node's next edge to look at in the DFS, then the next node in its bucket.
    next_edge: Vec<u32>,
    /// Path compression's stack.
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

    /// Numbers the nodes reachable from `root` over essential edges, depth first.
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

    /// Each node's immediate dominator (1-based, in `parent`'s place), from the essential
    /// retainers `preds`.
    fn dominators(&mut self, preds: &Retainers, r: u32) -> Vec<u32> {
        let len = self.semi.len();
        // Buckets as linked lists: a node is in one bucket at a time. A node's dominator is
        // written when its bucket is emptied, which is at or after its own step.
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
            // Its parent is read for the last time: the slot now holds its dominator,
            // none (0) until its bucket is emptied.
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
        drop(bucket_head);
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
