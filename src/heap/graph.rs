//! The snapshot as a graph: nodes and edges in columns indexed by ordinal, each node's first
//! edge, each node's retainers, and the type numbers the analyses compare against. Built
//! from what the parser read after checking every cross-reference, so the analyses index
//! without checks that could fail.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::OnceLock;

use super::packed::Packed;
use super::parse::Raw;
use super::runs::Runs;
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

/// Every node's retaining edges, as the questions list them: the reverse of the order in
/// which they appear. The retaining node is the edge's source (`Graph::source`), so it is
/// not kept.
pub(crate) struct RetainerIndex(Runs);

/// The most unpacked entries building the retainer index holds at once: it fills a range of
/// nodes at a time, each range a pass over the edges.
const RETAINER_CHUNK: u32 = 1 << 22;

impl RetainerIndex {
    /// Builds the index holding at most `chunk` unpacked entries at once.
    pub(super) fn build(g: &Graph, chunk: u32) -> RetainerIndex {
        let pairs = || g.edge_targets().enumerate().map(|(e, t)| (t, e as u32));
        RetainerIndex(Runs::group(g.node_count(), pairs, chunk))
    }

    fn of(&self, node: u32) -> Range<usize> {
        self.0.of(node)
    }

    fn edge(&self, r: usize) -> usize {
        self.0.value(r) as usize
    }

    /// Node `node`'s retaining edges, in the index's order.
    #[cfg(test)]
    pub(super) fn edges_of(&self, node: u32) -> Vec<u32> {
        self.of(node).map(|r| self.edge(r) as u32).collect()
    }

    fn bytes(&self) -> usize {
        self.0.bytes()
    }
}

/// The graph. Node and edge numbers are ordinals; `first_edge(n)..first_edge(n + 1)` are
/// node `n`'s edges. Retainers are indexed only when a question asks for them: the load's
/// analyses need only the retaining edges that count for retention (see `dominators`).
/// The numeric columns are packed (see `packed`) and read through the methods of the same
/// names: a snapshot of millions of objects holds a few bits a number, not 32.
pub(crate) struct Graph {
    pub types: Types,
    pub strings: Strings,
    pub node_fields: u32,
    pub root: u32,
    pub extra_native_bytes: f64,
    pub node_type: Vec<u8>,
    node_name: Packed,
    node_id: Packed,
    self_size: Packed,
    first_edge: Packed,
    edge_type: Packed,
    edge_name: Packed,
    edge_to: Packed,
    retainer_index: OnceLock<RetainerIndex>,
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

    pub(super) fn edge_count(&self) -> usize {
        self.edge_to.len()
    }

    /// The node's name as an index into `strings`.
    #[inline]
    pub(crate) fn node_name(&self, node: usize) -> u32 {
        self.node_name.get(node)
    }

    #[inline]
    pub(crate) fn node_id(&self, node: usize) -> u32 {
        self.node_id.get(node)
    }

    pub(crate) fn node_ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.node_id.iter()
    }

    #[inline]
    pub(crate) fn self_size(&self, node: usize) -> u32 {
        self.self_size.get(node)
    }

    #[inline]
    fn first_edge(&self, node: usize) -> u32 {
        self.first_edge.get(node)
    }

    #[inline]
    pub(crate) fn edge_type(&self, edge: usize) -> u8 {
        self.edge_type.get(edge) as u8
    }

    /// The edge's name as the file gives it: an index into `strings`, or an element's or
    /// hidden edge's index.
    #[inline]
    pub(crate) fn edge_name_index(&self, edge: usize) -> u32 {
        self.edge_name.get(edge)
    }

    #[inline]
    pub(crate) fn edge_to(&self, edge: usize) -> u32 {
        self.edge_to.get(edge)
    }

    pub(crate) fn edge_targets(&self) -> impl Iterator<Item = u32> + '_ {
        self.edge_to.iter()
    }

    /// Replaces the self sizes (`dominators::shallow_sizes` moves sizes to their owners).
    pub(super) fn set_self_sizes(&mut self, sizes: Packed) {
        self.self_size = sizes;
    }

    /// Gives the nodes in `renamed` (ascending, node and new name) their new names.
    pub(super) fn rename(&mut self, renamed: &[(u32, u32)]) {
        if renamed.is_empty() {
            return;
        }
        let mut next = renamed.iter().peekable();
        let names = (0..self.node_count()).map(|i| match next.peek() {
            Some(&&(node, name)) if node as usize == i => {
                next.next();
                name
            }
            _ => self.node_name.get(i),
        });
        self.node_name = names.collect();
    }

    #[inline]
    pub(super) fn edges(&self, node: u32) -> std::ops::Range<usize> {
        let (first, end) = self.first_edge.pair(node as usize);
        first as usize..end as usize
    }

    /// Every node's retainers, indexed on first use.
    fn retainer_index(&self) -> &RetainerIndex {
        self.retainer_index
            .get_or_init(|| RetainerIndex::build(self, RETAINER_CHUNK))
    }

    pub(super) fn retainers(&self, node: u32) -> Range<usize> {
        self.retainer_index().of(node)
    }

    pub(super) fn retainer_node(&self, r: usize) -> u32 {
        self.source(self.retainer_edge(r))
    }

    pub(super) fn retainer_edge(&self, r: usize) -> usize {
        self.retainer_index().edge(r)
    }

    /// The node whose edge `edge` is: the last node whose edges start at or before it.
    pub(super) fn source(&self, edge: usize) -> u32 {
        let (mut low, mut high) = (0, self.node_count());
        while high - low > 1 {
            let mid = low + (high - low) / 2;
            if self.first_edge(mid) as usize <= edge {
                low = mid;
            } else {
                high = mid;
            }
        }
        low as u32
    }

    pub(crate) fn raw_name(&self, node: u32) -> &str {
        self.strings.get(self.node_name(node as usize))
    }

    /// An edge's name as DevTools prints it: the index of an element or hidden edge, else
    /// its string (a shortcut's numeric name as a number).
    pub(crate) fn edge_name(&self, edge: usize) -> String {
        let t = self.edge_type(edge);
        let raw = self.edge_name_index(edge);
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
        let t = self.edge_type(edge);
        if t == self.types.shortcut {
            return super::js::parse_int(self.strings.get(self.edge_name_index(edge))).is_none();
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
        // The retainers counted as if indexed (at most 4 bytes an entry): they are once a
        // question asks.
        let retainers = self
            .retainer_index
            .get()
            .map_or((n + 1 + self.edge_count()) * 4, RetainerIndex::bytes);
        let columns = [
            &self.node_name,
            &self.node_id,
            &self.self_size,
            &self.first_edge,
            &self.edge_type,
            &self.edge_name,
            &self.edge_to,
        ];
        let packed: usize = columns.iter().map(|c| c.bytes()).sum();
        n * 2 + packed + retainers + self.strings.bytes()
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
    if let Some((i, s)) = raw.node_name.at_least(strings_len as u64).next() {
        return Err(format!(
            "node {i} names string {s}, but there are {strings_len} strings"
        ));
    }
    check_edge_total(raw.edge_total, raw.edge_to.len())?;
    if let Some((i, to)) = raw.edge_to.at_least(n as u64).next() {
        let at = to as usize * width;
        return Err(format!("edge {i} points to {at}, which is not a node"));
    }
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
        first_edge: raw.first_edge,
        edge_type: raw.edge_type,
        edge_name: raw.edge_name,
        edge_to: raw.edge_to,
        retainer_index: OnceLock::new(),
        locations,
        has_detachedness: raw.layout.has_detachedness,
        detachedness: raw.detachedness,
    })
}

/// The nodes' edge counts must add up to the edges there are.
fn check_edge_total(total: u64, edges: usize) -> Result<(), String> {
    if total > edges as u64 {
        return Err(format!(
            "the nodes' edge counts add up to more than the {edges} edges"
        ));
    }
    if total != edges as u64 {
        return Err(format!(
            "the nodes' edge counts add up to {total}, but there are {edges} edges"
        ));
    }
    Ok(())
}

fn check_edge_names(
    types: &Packed,
    names: &Packed,
    t: &Types,
    strings: usize,
) -> Result<(), String> {
    for (i, name) in names.at_least(strings as u64) {
        let ty = types.get(i) as u8;
        // Element and hidden edges are named by an index, not a string.
        if ty != t.element && ty != t.hidden_edge {
            return Err(format!(
                "edge {i} names string {name}, but there are {strings} strings"
            ));
        }
    }
    Ok(())
}
