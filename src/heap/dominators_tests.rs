//! The load's dominators and retained sizes held to Lengauer–Tarjan over every node (the
//! way they were computed before the trees were peeled off, `dominators_oracle`) on random
//! graphs of the shapes snapshots have, and that reference held to the definition: on the
//! nodes reached from the root or from a node nothing retains, the dominators of the graph
//! with the root retaining each such node; on the others, the root.

use super::bits::Bits;
use super::dominators::{self, Retention};
use super::retained::Retained;
use super::{dom, dominators_oracle, Snapshot};

/// splitmix64: deterministic, no crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn percent(&mut self, p: usize) -> bool {
        self.below(100) < p
    }
}

// Node types by their index in the meta below.
const HIDDEN: u8 = 0;
const ARRAY: u8 = 1;
const STRING: u8 = 2;
const OBJECT: u8 = 3;
const CLOSURE: u8 = 5;
const NUMBER: u8 = 7;
const NATIVE: u8 = 8;
const SYNTHETIC: u8 = 9;
// Edge types.
const ELEMENT: u8 = 1;
const PROPERTY: u8 = 2;
const INTERNAL: u8 = 3;
const HIDDEN_EDGE: u8 = 4;
const SHORTCUT: u8 = 5;
const WEAK: u8 = 6;

/// A graph to write as a snapshot; node 0 is the root, written first or last.
struct Spec {
    types: Vec<u8>,
    sizes: Vec<u32>,
    edges: Vec<Vec<(u8, u32)>>,
    root_last: bool,
}

impl Spec {
    fn new(n: usize, root_last: bool) -> Spec {
        let mut types = vec![OBJECT; n];
        types[0] = SYNTHETIC;
        Spec {
            types,
            sizes: vec![1; n],
            edges: vec![Vec::new(); n],
            root_last,
        }
    }

    fn edge(&mut self, from: usize, ty: u8, to: usize) {
        self.edges[from].push((ty, to as u32));
    }

    /// Where node `i` is written.
    fn at(&self, i: usize) -> usize {
        let n = self.types.len();
        match self.root_last {
            true => (i + n - 1) % n,
            false => i,
        }
    }

    fn text(&self) -> String {
        let n = self.types.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| self.at(i));
        let (mut nodes, mut edges) = (String::new(), String::new());
        for &i in &order {
            let (t, size, out) = (self.types[i], self.sizes[i], &self.edges[i]);
            let sep = if nodes.is_empty() { "" } else { "," };
            let name = i % 3 + 1;
            nodes += &format!("{sep}{t},{name},{},{size},{}", i * 2 + 1, out.len());
            for (k, &(ty, to)) in out.iter().enumerate() {
                let sep = if edges.is_empty() { "" } else { "," };
                let name = if ty == ELEMENT || ty == HIDDEN_EDGE {
                    k
                } else {
                    k % 3 + 1
                };
                edges += &format!("{sep}{ty},{name},{}", self.at(to as usize) * 5);
            }
        }
        let root = self.at(0) * 5;
        format!(
            r#"{{"snapshot":{{"meta":{{"node_fields":["type","name","id","self_size","edge_count"],
"node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic","concatenated string","sliced string"],"string","number","number","number"],
"edge_fields":["type","name_or_index","to_node"],
"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"]}},
"node_count":{n},"edge_count":0,"root_index":{root}}},
"nodes":[{nodes}],"edges":[{edges}],"strings":["","a","b","c"]}}"#
        )
    }
}

fn edge_type(rng: &mut Rng) -> u8 {
    match rng.below(100) {
        0..=59 => PROPERTY,
        60..=71 => ELEMENT,
        72..=79 => INTERNAL,
        80..=85 => HIDDEN_EDGE,
        86..=89 => 0,
        90..=94 => SHORTCUT,
        _ => WEAK,
    }
}

/// A graph of `n` nodes built from the shapes snapshots have, each shape's share drawn per
/// graph (some graphs have none of a shape): trees, chains, rings (some with trees below
/// and nothing entering them), random edges, repeated edges, self-loops, and nodes nothing
/// retains.
fn random_spec(rng: &mut Rng, n: usize) -> Spec {
    let mut s = Spec::new(n, rng.percent(50));
    for i in 1..n {
        s.types[i] = [
            OBJECT, STRING, NUMBER, ARRAY, HIDDEN, CLOSURE, NATIVE, SYNTHETIC,
        ][rng.below(8)];
        s.sizes[i] = match rng.below(10) {
            0 => 0,
            1 => rng.below(1 << 31) as u32,
            _ => rng.below(200) as u32,
        };
    }
    let (tree, chain, ring, random) = (rng.below(101), rng.below(30), rng.below(6), rng.below(4));
    for i in 1..n {
        if rng.percent(tree) {
            let from = rng.below(i);
            s.edge(from, edge_type(rng), i);
        }
        if rng.percent(chain) && i + 1 < n {
            s.edge(i, edge_type(rng), i + 1);
        }
    }
    for _ in 0..ring {
        let (len, start) = (1 + rng.below(6), rng.below(n));
        let nodes: Vec<usize> = (0..len).map(|k| (start + k) % n).collect();
        for k in 0..len {
            s.edge(nodes[k], PROPERTY, nodes[(k + 1) % len]);
        }
    }
    for _ in 0..random * n / 2 {
        let (from, to) = (rng.below(n), rng.below(n));
        s.edge(from, edge_type(rng), to);
    }
    for _ in 0..rng.below(n / 10 + 1) {
        let from = rng.below(n);
        if let Some(&e) = s.edges[from].first() {
            s.edges[from].push(e);
        }
        s.edge(from, PROPERTY, from);
    }
    for _ in 0..rng.below(4) {
        let to = rng.below(n);
        s.edge(0, [SHORTCUT, ELEMENT, PROPERTY][rng.below(3)], to);
    }
    s
}

fn load(spec: &Spec) -> Snapshot {
    let text = spec.text();
    Snapshot::read(text.as_bytes(), Some(text.len() as u64)).unwrap()
}

fn answers(s: &Snapshot) -> (Bits, Retention, Retention) {
    let states: Vec<u8> = (0..s.graph.node_count() as u32)
        .map(|n| s.detachedness(n))
        .collect();
    let flags = dom::flags(&s.graph, &states);
    let essential = dominators::essential_edges(&s.graph, &flags);
    let ours = dominators::compute(&s.graph, &essential);
    let reference = dominators_oracle::compute(&s.graph, &essential);
    (essential, ours, reference)
}

/// The dominators and retained sizes the snapshot kept.
fn as_loaded(s: &Snapshot) -> Retention {
    Retention {
        dominator: s.dominator.iter().collect(),
        retained: Retained::Wide((0..s.graph.node_count()).map(|n| s.retained(n)).collect()),
    }
}

/// The first node whose dominator or retained size differs, named.
fn assert_same(ours: &Retention, reference: &Retention, what: &str) {
    assert_eq!(ours.dominator.len(), reference.dominator.len(), "{what}");
    let pairs = |r: &Retention| -> Vec<(u32, u64)> {
        let sizes = (0..r.dominator.len()).map(|v| r.retained.get(v).to_bits());
        r.dominator.iter().copied().zip(sizes).collect()
    };
    let (a, b) = (pairs(ours), pairs(reference));
    if let Some(v) = (0..a.len()).find(|&v| a[v] != b[v]) {
        panic!(
            "{what}: node {v} has dominator {} and retains {}, not {} and {}",
            a[v].0,
            ours.retained.get(v),
            b[v].0,
            reference.retained.get(v)
        );
    }
}

#[test]
fn random_graphs_get_the_reference_dominators_and_sizes() {
    let mut rng = Rng(21);
    for graph in 0..3000 {
        let n = 1 + rng.below(200);
        let s = load(&random_spec(&mut rng, n));
        let (_, ours, reference) = answers(&s);
        assert_same(&ours, &reference, &format!("graph {graph} ({n} nodes)"));
        assert_same(
            &as_loaded(&s),
            &reference,
            &format!("graph {graph} as loaded"),
        );
    }
}

/// Each node's essential children, by ordinal.
fn children(s: &Snapshot, essential: &Bits) -> Vec<Vec<u32>> {
    let g = &s.graph;
    (0..g.node_count() as u32)
        .map(|u| {
            let strong = g.edges(u).filter(|&e| essential.get(e));
            strong.map(|e| g.edge_to(e)).collect()
        })
        .collect()
}

/// Which nodes the root reaches along `children` when it also retains every other node
/// nothing retains, with `without` taken out.
fn reached(children: &[Vec<u32>], root: usize, without: Option<usize>) -> Vec<bool> {
    let n = children.len();
    let mut retained = vec![false; n];
    for c in children.iter().flatten() {
        retained[*c as usize] = true;
    }
    let mut seen = vec![false; n];
    let mut stack: Vec<usize> = (0..n).filter(|&v| v == root || !retained[v]).collect();
    stack.retain(|&v| Some(v) != without);
    while let Some(v) = stack.pop() {
        if seen[v] {
            continue;
        }
        seen[v] = true;
        for &c in &children[v] {
            if Some(c as usize) != without && !seen[c as usize] {
                stack.push(c as usize);
            }
        }
    }
    seen
}

/// Dominators by their definition: `d` dominates `v` when taking `d` out unreaches `v`;
/// the immediate one is the strict dominator with the most dominators of its own.
fn dominators_by_definition(children: &[Vec<u32>], root: usize) -> Vec<Option<usize>> {
    let n = children.len();
    let all = reached(children, root, None);
    let mut dominated_by = vec![vec![root]; n];
    for d in (0..n).filter(|&d| d != root && all[d]) {
        let without = reached(children, root, Some(d));
        for v in (0..n).filter(|&v| v != d && all[v] && !without[v]) {
            dominated_by[v].push(d);
        }
    }
    (0..n)
        .map(|v| match (v == root, all[v]) {
            (true, _) => Some(root),
            (false, false) => None,
            (false, true) => dominated_by[v]
                .iter()
                .copied()
                .max_by_key(|&d| dominated_by[d].len()),
        })
        .collect()
}

#[test]
fn the_reference_matches_the_definition_and_gives_the_root_to_the_rest() {
    let mut rng = Rng(1870);
    for graph in 0..600 {
        let n = 1 + rng.below(120);
        let s = load(&random_spec(&mut rng, n));
        let (essential, _, reference) = answers(&s);
        let root = s.graph.root as usize;
        let expected = dominators_by_definition(&children(&s, &essential), root);
        for (v, d) in expected.iter().enumerate() {
            let d = d.unwrap_or(root) as u32;
            assert_eq!(reference.dominator[v], d, "graph {graph}, node {v}");
        }
    }
}

/// A million nodes in chains of each kind a walk could recurse on: single retainers
/// (peeled, a third of them deep), two retainers each (kept: a DFS a third of them deep), and
/// a ring nothing enters with a chain below it (peeled, dominated by the root).
#[test]
fn long_chains_neither_overflow_nor_slow_down() {
    const N: usize = 1_000_000;
    let (b, c) = (N / 3, 2 * N / 3);
    let mut s = Spec::new(N, false);
    s.edge(0, PROPERTY, 1);
    for i in 1..b - 1 {
        s.edge(i, PROPERTY, i + 1);
    }
    s.edge(0, PROPERTY, b);
    for i in b..c - 1 {
        s.edge(i, PROPERTY, i + 1);
        if i + 2 < c {
            s.edge(i, ELEMENT, i + 2);
        }
    }
    for i in c..N - 1 {
        s.edge(i, PROPERTY, i + 1);
    }
    s.edge(c + 2, PROPERTY, c);
    let loaded = load(&s);
    let (_, ours, reference) = answers(&loaded);
    assert_same(&ours, &reference, "the chains");
    let d = |v: usize| ours.dominator[v] as usize;
    assert_eq!((d(b - 1), d(c - 1), d(c + 1), d(N - 1)), (b - 2, b, 0, 0));
}
