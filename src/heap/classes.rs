//! Class names and class keys, as DevTools groups objects in its summary view: `(system)`,
//! `(compiled code)`, `Function`, `(string)`, … by type; DOM nodes by tag (`<li>`,
//! `Detached <li>`); plain objects by the interface their properties match
//! (`{key, value}`), inferred from the shapes common in the heap; objects with a source
//! location per location. Classes are numbered in the order DevTools lists them: by the first
//! object of some size of each.

use std::cmp::Ordering;
use std::collections::HashMap;

use super::graph::Graph;
use super::js;
use super::packed::{Builder, Packed};

/// A node without a class (no size: never listed).
pub(crate) const NONE: u32 = u32::MAX;

/// Each node's class, and each class's name and key (`,<name>`, or `<script>,<line>,<column>,<name>`
/// for an object with a source location).
pub(crate) struct Classes {
    pub of: Packed,
    pub names: Vec<String>,
    pub keys: Vec<String>,
}

/// JavaScript's default string order (UTF-16 code units).
pub(crate) fn js_cmp(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// The classes of the nodes, plain objects named by `interfaces`. Only objects with a size
/// have one (the rest are `NONE`).
pub(super) fn classes(g: &Graph, interfaces: &Interfaces) -> Classes {
    let mut namer = Namer::new(g);
    let locations = &g.locations;
    // A class is its name and, for an object with a source location, that location.
    type Key = (Option<(u32, u32, u32)>, u32);
    let mut index: HashMap<Key, u32> = HashMap::new();
    let mut of = Builder::new();
    let (mut names, mut keys) = (Vec::new(), Vec::new());
    for node in 0..g.node_count() {
        if g.self_size(node) == 0 {
            of.push(NONE);
            continue;
        }
        let name = namer.name(g, interfaces, node as u32);
        let located = if g.node_type[node] == g.types.object {
            locations.get(&(node as u32)).copied()
        } else {
            None
        };
        let next = names.len() as u32;
        let class = *index.entry((located, name)).or_insert(next);
        if class == next {
            let name = &namer.table.names[name as usize];
            keys.push(match located {
                Some((script, line, column)) => format!("{script},{line},{column},{name}"),
                None => format!(",{name}"),
            });
            names.push(name.clone());
        }
        of.push(class);
    }
    Classes {
        of: of.finish(),
        names,
        keys,
    }
}

/// Names, each kept once.
#[derive(Default)]
struct NameTable {
    names: Vec<String>,
    index: HashMap<String, u32>,
}

impl NameTable {
    fn id(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_owned());
        self.index.insert(name.to_owned(), i);
        i
    }
}

/// Names nodes by class, each name kept once in `table`.
struct Namer {
    table: NameTable,
    type_names: Vec<String>,
    /// A plain object's class follows from its property names alone: matched once per shape.
    by_shape: HashMap<Box<[u32]>, u32>,
    shape: Vec<u32>,
}

impl Namer {
    fn new(g: &Graph) -> Namer {
        Namer {
            table: NameTable::default(),
            type_names: g
                .types
                .node_names
                .iter()
                .map(|n| format!("({n})"))
                .collect(),
            by_shape: HashMap::new(),
            shape: Vec::new(),
        }
    }

    /// The node's class name, as an index into `table`.
    fn name(&mut self, g: &Graph, interfaces: &Interfaces, node: u32) -> u32 {
        let t = &g.types;
        let ty = g.node_type[node as usize];
        let raw = g.raw_name(node);
        if ty == t.object && raw == "Object" {
            property_names(g, node, &mut self.shape);
            if let Some(&id) = self.by_shape.get(&self.shape[..]) {
                return id;
            }
            let id = self.table.id(interfaces.class_of(g, node).unwrap_or(raw));
            self.by_shape.insert(self.shape.as_slice().into(), id);
            return id;
        }
        let table = &mut self.table;
        if ty == t.hidden {
            table.id("(system)")
        } else if ty == t.object || ty == t.native {
            match element_class(raw) {
                Some(tag) => table.id(&tag),
                None => table.id(raw),
            }
        } else if ty == t.code {
            table.id("(compiled code)")
        } else if ty == t.closure {
            table.id("Function")
        } else if ty == t.regexp {
            table.id("RegExp")
        } else {
            table.id(self
                .type_names
                .get(ty as usize)
                .map_or("()", String::as_str))
        }
    }
}

/// `<li class="x">` and `Detached <li class="x">` as `<li>` and `Detached <li>`; `None` for
/// a name that stays as it is.
fn element_class(name: &str) -> Option<String> {
    let from = if name.starts_with('<') {
        0
    } else if name.starts_with("Detached <") {
        "Detached ".len()
    } else {
        return None;
    };
    name[from..]
        .find(' ')
        .map(|at| format!("{}>", &name[..from + at]))
}

/// The plain-object interfaces common enough to name a class, and a trie of their sorted
/// property names to match objects against.
/// An interface as DevTools keeps it: name, property names, objects seen.
pub(crate) type Definition = (String, Vec<String>, usize);

pub(crate) struct Interfaces {
    pub definitions: Vec<Definition>,
    trie: Vec<TrieNode>,
}

impl PartialEq for Interfaces {
    fn eq(&self, other: &Interfaces) -> bool {
        self.definitions == other.definitions
    }
}

#[derive(Default)]
struct TrieNode {
    next: HashMap<String, usize>,
    /// The interface ending here: (property count, definition index).
    ends: Option<(usize, usize)>,
    greatest: Option<String>,
}

/// Of two matches (property count, definition index), the one with more properties, else
/// the earlier definition.
fn better(a: Option<(usize, usize)>, b: Option<(usize, usize)>) -> Option<(usize, usize)> {
    match (a, b) {
        (a, None) => a,
        (None, b) => b,
        (Some(a), Some(b)) if a.0 > b.0 => Some(a),
        (Some(a), Some(b)) if b.0 > a.0 => Some(b),
        (Some(a), Some(b)) => Some(if a.1 <= b.1 { a } else { b }),
    }
}

fn is_plain_object(g: &Graph, node: u32) -> bool {
    g.node_type[node as usize] == g.types.object && g.raw_name(node) == "Object"
}

impl Interfaces {
    pub(super) fn infer(g: &Graph) -> Interfaces {
        let mut candidates: Vec<(String, Vec<String>, usize)> = Vec::new();
        let mut by_name: HashMap<String, usize> = HashMap::new();
        // An object's interface follows from its property names alone: named once per shape
        // (the candidate it counts for, if any).
        let mut by_shape: HashMap<Box<[u32]>, Option<usize>> = HashMap::new();
        let mut shape = Vec::new();
        let mut objects = 0usize;
        for node in 0..g.node_count() as u32 {
            if !is_plain_object(g, node) {
                continue;
            }
            objects += 1;
            property_names(g, node, &mut shape);
            let candidate = match by_shape.get(&shape[..]) {
                Some(&c) => c,
                None => {
                    let c = candidate_of(g, node, &mut candidates, &mut by_name);
                    by_shape.insert(shape.as_slice().into(), c);
                    c
                }
            };
            if let Some(i) = candidate {
                candidates[i].2 += 1;
            }
        }
        candidates.sort_by_key(|c| std::cmp::Reverse(c.2));
        let min = (2.0f64).max(objects as f64 / 1000.0);
        let kept: Vec<_> = candidates
            .into_iter()
            .take_while(|c| c.2 as f64 >= min)
            .collect();
        Interfaces::of(kept)
    }

    /// The matcher of these definitions.
    pub(super) fn of(definitions: Vec<(String, Vec<String>, usize)>) -> Interfaces {
        let mut me = Interfaces {
            definitions: Vec::new(),
            trie: vec![TrieNode::default()],
        };
        for (i, d) in definitions.iter().enumerate() {
            let mut properties = d.1.clone();
            properties.sort_by(|a, b| js_cmp(a, b));
            me.add(i, &properties);
        }
        me.definitions = definitions;
        me
    }

    fn add(&mut self, index: usize, properties: &[String]) {
        let mut at = 0;
        for p in properties {
            at = match self.trie[at].next.get(p) {
                Some(&n) => n,
                None => {
                    let n = self.trie.len();
                    self.trie.push(TrieNode::default());
                    let node = &mut self.trie[at];
                    node.next.insert(p.clone(), n);
                    if node
                        .greatest
                        .as_deref()
                        .is_none_or(|g| js_cmp(g, p).is_lt())
                    {
                        node.greatest = Some(p.clone());
                    }
                    n
                }
            };
        }
        if self.trie[at].ends.is_none() {
            self.trie[at].ends = Some((properties.len(), index));
        }
    }

    /// The interface a plain object matches best, if any.
    fn class_of(&self, g: &Graph, node: u32) -> Option<&str> {
        let mut properties: Vec<&str> = g
            .edges(node)
            .filter(|&e| g.edge_type(e) == g.types.property)
            .map(|e| g.strings.get(g.edge_name_index(e)))
            .collect();
        properties.sort_by(|a, b| js_cmp(a, b));
        let mut states = vec![0usize];
        let mut best = self.trie[0].ends;
        for &p in &properties {
            let mut next_states = Vec::with_capacity(states.len());
            for &s in &states {
                let state = &self.trie[s];
                let stays = state
                    .greatest
                    .as_deref()
                    .is_some_and(|g| js_cmp(p, g).is_lt());
                if stays && !next_states.contains(&s) {
                    next_states.push(s);
                }
                if let Some(&n) = state.next.get(p) {
                    if !next_states.contains(&n) {
                        next_states.push(n);
                    }
                    best = better(best, self.trie[n].ends);
                }
            }
            states = next_states;
        }
        best.map(|(_, i)| self.definitions[i].0.as_str())
    }
}

/// The names (string indexes) of a node's property edges, in order, into `out`.
fn property_names(g: &Graph, node: u32, out: &mut Vec<u32>) {
    out.clear();
    out.extend(
        g.edges(node)
            .filter(|&e| g.edge_type(e) == g.types.property)
            .map(|e| g.edge_name_index(e)),
    );
}

/// The candidate interface a plain object counts for (made, with no objects yet, when its
/// name is new), or none when it has no properties.
fn candidate_of(
    g: &Graph,
    node: u32,
    candidates: &mut Vec<Definition>,
    by_name: &mut HashMap<String, usize>,
) -> Option<usize> {
    let (name, properties) = interface_of(g, node);
    if properties.is_empty() {
        return None;
    }
    if let Some(&i) = by_name.get(&name) {
        return Some(i);
    }
    by_name.insert(name.clone(), candidates.len());
    let owned = properties.iter().map(|p| p.to_string()).collect();
    candidates.push((name, owned, 0));
    Some(candidates.len() - 1)
}

/// `{a, b, c}` of a plain object's first properties (up to about 120 characters) and the
/// property names in it.
fn interface_of(g: &Graph, node: u32) -> (String, Vec<&str>) {
    let mut name = String::from("{");
    let mut length = 1;
    let mut properties = Vec::new();
    for e in g.edges(node) {
        if g.edge_type(e) != g.types.property {
            continue;
        }
        let edge_name = g.strings.get(g.edge_name_index(e));
        if edge_name == "__proto__" {
            continue;
        }
        let formatted = js::property_name(edge_name);
        let formatted_length = js::length(&formatted);
        if length > 1 && length + formatted_length > 120 {
            break;
        }
        if length != 1 {
            name.push_str(", ");
            length += 2;
        }
        name.push_str(&formatted);
        length += formatted_length;
        properties.push(edge_name);
    }
    name.push('}');
    (name, properties)
}
