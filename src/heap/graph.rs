//! The snapshot as a graph: nodes and edges in columns indexed by ordinal, each node's first
//! edge, each node's retainers, and the type numbers the analyses compare against. Built
//! from what the parser read after checking every cross-reference, so the analyses index
//! without checks that could fail.

use std::cell::OnceCell;
use std::collections::HashMap;
use std::ops::Range;

use super::parse::Raw;
use super::strings::Strings;

/// A type the snapshot's meta may not list: compares unequal to every type number.
pub(super) const ABSENT: u8 = u8::MAX;

/// The type numbers of the node and edge types the analyses look for.
#[allow(dead_code)] // some are read only by the listing questions
pub(crate) struct Types {
    pub node_names: Vec<String>,
    pub edge_names: Vec<String>,
    pub hidden: u8,
    pub array: u8,
    pub object: u8,
    pub native: u8,
    pub string: u8,
    pub cons_string: u8,
    pub sliced_string: u8,
    pub code: u8,
    pub synthetic: u8,
    pub closure: u8,
    pub regexp: u8,
    pub number: u8,
    pub element: u8,
    pub hidden_edge: u8,
    pub internal: u8,
    pub shortcut: u8,
    pub weak: u8,
    pub invisible: u8,
    pub property: u8,
    pub context: u8,
}

fn position(names: &[String], name: &str) -> u8 {
    names
        .iter()
        .position(|n| n == name)
        .map_or(ABSENT, |i| i as u8)
}

impl Types {
    fn new(node_names: Vec<String>, mut edge_names: Vec<String>) -> Types {
        // DevTools adds a type of its own that no edge in a file has.
        edge_names.push("invisible".into());
        let n = |name| position(&node_names, name);
        let e = |name| position(&edge_names, name);
        Types {
            hidden: n("hidden"),
            array: n("array"),
            object: n("object"),
            native: n("native"),
            string: n("string"),
            cons_string: n("concatenated string"),
            sliced_string: n("sliced string"),
            code: n("code"),
            synthetic: n("synthetic"),
            closure: n("closure"),
            regexp: n("regexp"),
            number: n("number"),
            element: e("element"),
            hidden_edge: e("hidden"),
            internal: e("internal"),
            shortcut: e("shortcut"),
            weak: e("weak"),
            invisible: e("invisible"),
            property: e("property"),
            context: e("context"),
            node_names,
            edge_names,
        }
    }
}

/// Each node's retainers: `first[n]..first[n + 1]` index `node` (the retaining node) and
/// `edge` (the retaining edge; empty when only the nodes were asked for).
pub(crate) struct Retainers {
    pub first: Vec<u32>,
    pub node: Vec<u32>,
    pub edge: Vec<u32>,
}

impl Retainers {
    pub(crate) fn of(&self, node: u32) -> Range<usize> {
        self.first[node as usize] as usize..self.first[node as usize + 1] as usize
    }
}

/// The graph. Node and edge numbers are ordinals; `first_edge[n]..first_edge[n + 1]` are
/// node `n`'s edges. Retainers are indexed only when a question asks for them: the load's
/// analyses need only the retaining edges that count for retention (see `dominators`).
pub(crate) struct Graph {
    pub types: Types,
    pub strings: Strings,
    pub node_fields: u32,
    pub root: u32,
    pub extra_native_bytes: f64,
    pub node_type: Vec<u8>,
    pub node_name: Vec<u32>,
    pub node_id: Vec<u32>,
    pub self_size: Vec<u32>,
    pub first_edge: Vec<u32>,
    pub edge_type: Vec<u8>,
    pub edge_name: Vec<u32>,
    pub edge_to: Vec<u32>,
    retainer_index: OnceCell<Retainers>,
    /// Source locations by node: script id, line, column (the last record of a node wins).
    pub locations: HashMap<u32, (u32, u32, u32)>,
    /// From the file when it has the field (0 unknown, 1 attached, 2 detached).
    pub detachedness: Vec<u8>,
    pub has_detachedness: bool,
}

impl Graph {
    pub(super) fn node_count(&self) -> usize {
        self.node_type.len()
    }

    pub(super) fn edges(&self, node: u32) -> std::ops::Range<usize> {
        self.first_edge[node as usize] as usize..self.first_edge[node as usize + 1] as usize
    }

    /// Every node's retainers, indexed on first use.
    pub(super) fn retainer_index(&self) -> &Retainers {
        self.retainer_index
            .get_or_init(|| retainers(self, |_| true, true))
    }

    pub(super) fn retainers(&self, node: u32) -> Range<usize> {
        self.retainer_index().of(node)
    }

    pub(super) fn retainer_node(&self, r: usize) -> u32 {
        self.retainer_index().node[r]
    }

    pub(super) fn retainer_edge(&self, r: usize) -> usize {
        self.retainer_index().edge[r] as usize
    }

    pub(crate) fn raw_name(&self, node: u32) -> &str {
        self.strings.get(self.node_name[node as usize])
    }

    /// An edge's name as DevTools prints it: the index of an element or hidden edge, else
    /// its string (a shortcut's numeric name as a number).
    pub(crate) fn edge_name(&self, edge: usize) -> String {
        let t = self.edge_type[edge];
        let raw = self.edge_name[edge];
        if t == self.types.element || t == self.types.hidden_edge {
            return raw.to_string();
        }
        let name = self.strings.get(raw);
        if t == self.types.shortcut {
            if let Some(n) = super::js::parse_int(name) {
                return crate::numbers::js_number(n);
            }
        }
        name.to_owned()
    }

    /// Whether the edge's name is a string (not an element's or hidden edge's index).
    pub(crate) fn edge_has_string_name(&self, edge: usize) -> bool {
        let t = self.edge_type[edge];
        if t == self.types.shortcut {
            return super::js::parse_int(self.strings.get(self.edge_name[edge])).is_none();
        }
        t != self.types.element && t != self.types.hidden_edge
    }

    pub(crate) fn is_user_root(&self, node: u32) -> bool {
        self.node_type[node as usize] != self.types.synthetic
    }

    pub(crate) fn is_document_dom_trees_root(&self, node: u32) -> bool {
        self.node_type[node as usize] == self.types.synthetic
            && self.raw_name(node) == "(Document DOM trees)"
    }

    /// The JavaScript snapshot's user roots: real objects and the document trees' root.
    pub(crate) fn is_js_user_root(&self, node: u32) -> bool {
        self.is_user_root(node) || self.is_document_dom_trees_root(node)
    }

    pub(crate) fn is_context(&self, node: u32) -> bool {
        let name = self.raw_name(node);
        name == "system / Context" || name.starts_with("system / Context / ")
    }

    pub(super) fn bytes(&self) -> usize {
        let n = self.node_count();
        let e = self.edge_type.len();
        // The retainers counted as if indexed: they are once a question asks.
        let retainers = (n + 1) * 4 + e * (4 + 4);
        n * (1 + 4 + 4 + 4 + 4 + 1) + e * (1 + 4 + 4) + retainers + self.strings.bytes()
    }
}

/// Checks what the parser read across its arrays and builds the graph with edge indexes
/// and retainers.
pub(super) fn build(raw: Raw) -> Result<Graph, String> {
    let n = raw.node_type.len();
    let width = raw.layout.node_fields;
    if n == 0 {
        return Err("the snapshot has no nodes".into());
    }
    if n >= (u32::MAX as usize) / width {
        return Err(format!("the snapshot has too many nodes ({n})"));
    }
    let strings_len = raw.strings.len();
    if let Some(i) = raw
        .node_name
        .iter()
        .position(|&s| s as usize >= strings_len)
    {
        return Err(format!(
            "node {i} names string {}, but there are {strings_len} strings",
            raw.node_name[i]
        ));
    }
    let first_edge = edge_indexes(raw.edge_count, raw.edge_type.len())?;
    let edge_to = edge_targets(raw.edge_to, width, n)?;
    let types = Types::new(raw.layout.node_types, raw.layout.edge_types);
    check_edge_names(&raw.edge_type, &raw.edge_name, &types, strings_len)?;
    let root = match raw.header.root_index {
        None => 0,
        Some(i) if i % width as u64 == 0 && (i / width as u64) < n as u64 => {
            (i / width as u64) as u32
        }
        Some(i) => return Err(format!("snapshot.root_index {i} is not a node")),
    };
    if root != 0 && root as usize != n - 1 {
        return Err("the root node is neither the first nor the last node".into());
    }
    let locations = raw
        .locations
        .iter()
        .filter(|l| (l[0] as usize).is_multiple_of(width))
        .map(|l| (l[0] / width as u32, (l[1], l[2], l[3])))
        .collect();
    Ok(Graph {
        types,
        strings: raw.strings,
        node_fields: width as u32,
        root,
        extra_native_bytes: raw.header.extra_native_bytes.unwrap_or(0.0),
        node_type: raw.node_type,
        node_name: raw.node_name,
        node_id: raw.node_id,
        self_size: raw.self_size,
        first_edge,
        edge_type: raw.edge_type,
        edge_name: raw.edge_name,
        edge_to,
        retainer_index: OnceCell::new(),
        locations,
        has_detachedness: raw.layout.has_detachedness,
        detachedness: raw.detachedness,
    })
}

/// Each node's first edge, made in place from the nodes' edge counts.
fn edge_indexes(mut first: Vec<u32>, edges: usize) -> Result<Vec<u32>, String> {
    first.reserve_exact(1);
    first.push(0);
    let mut at: u64 = 0;
    for f in first.iter_mut() {
        let count = *f as u64;
        *f = at as u32;
        at += count;
        if at > edges as u64 {
            return Err(format!(
                "the nodes' edge counts add up to more than the {edges} edges"
            ));
        }
    }
    if at != edges as u64 {
        return Err(format!(
            "the nodes' edge counts add up to {at}, but there are {edges} edges"
        ));
    }
    Ok(first)
}

/// Each edge's target node as an ordinal, made in place from its index in `nodes`.
fn edge_targets(mut to: Vec<u32>, width: usize, n: usize) -> Result<Vec<u32>, String> {
    for (i, t) in to.iter_mut().enumerate() {
        let at = *t as usize;
        if !at.is_multiple_of(width) || at / width >= n {
            return Err(format!("edge {i} points to {at}, which is not a node"));
        }
        *t = (at / width) as u32;
    }
    Ok(to)
}

fn check_edge_names(types: &[u8], names: &[u32], t: &Types, strings: usize) -> Result<(), String> {
    for (i, (&ty, &name)) in types.iter().zip(names).enumerate() {
        let indexed = ty == t.element || ty == t.hidden_edge;
        if !indexed && name as usize >= strings {
            return Err(format!(
                "edge {i} names string {name}, but there are {strings} strings"
            ));
        }
    }
    Ok(())
}

/// Turns `first`, holding each node's count in its first `n` entries, into where each
/// node's run starts in one array of all runs, the end in its last entry (CSR layout).
/// Returns that total.
pub(super) fn counts_to_starts(first: &mut [u32]) -> u32 {
    let n = first.len() - 1;
    let mut slot = 0u32;
    for f in first.iter_mut().take(n) {
        let count = *f;
        *f = slot;
        slot += count;
    }
    first[n] = slot;
    slot
}

/// Each node's retainers along the edges `keep` accepts, in the order DevTools lists them:
/// the reverse of the order in which the retaining edges appear; with the edges themselves
/// when `with_edges`.
pub(super) fn retainers(g: &Graph, keep: impl Fn(usize) -> bool, with_edges: bool) -> Retainers {
    let n = g.node_count();
    let mut first = vec![0u32; n + 1];
    for (e, &t) in g.edge_to.iter().enumerate() {
        if keep(e) {
            first[t as usize] += 1;
        }
    }
    let total = counts_to_starts(&mut first) as usize;
    // Filled from each node's last slot down: `next` starts as each run's end.
    let mut next: Vec<u32> = first[1..].to_vec();
    let mut nodes = vec![0u32; total];
    let mut edges = vec![0u32; if with_edges { total } else { 0 }];
    for src in 0..n as u32 {
        for e in g.edges(src) {
            if !keep(e) {
                continue;
            }
            let t = g.edge_to[e] as usize;
            next[t] -= 1;
            nodes[next[t] as usize] = src;
            if with_edges {
                edges[next[t] as usize] = e as u32;
            }
        }
    }
    Retainers {
        first,
        node: nodes,
        edge: edges,
    }
}

// accessors (the column change replaces this block)
impl Graph {
    pub(super) fn edge_to(&self, e: usize) -> u32 {
        self.edge_to[e]
    }

    pub(super) fn self_size(&self, node: u32) -> u32 {
        self.self_size[node as usize]
    }
}
