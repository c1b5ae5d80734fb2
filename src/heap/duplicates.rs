//! Strings held more than once: DevTools' "duplicated strings" — string objects of some size
//! with the same text (a truncated string's also the same length and hash) — grouped by text,
//! the groups retaining most first.

use std::collections::HashMap;

use super::graph::Graph;
use super::{names, Snapshot};

pub(crate) struct DuplicateGroup {
    pub value: String,
    pub truncated: bool,
    pub self_size: f64,
    pub retained: f64,
    /// The strings' ids.
    pub ids: Vec<u32>,
}

/// A string's length and hash, as the snapshot records them for a truncated one.
type Identity = (Option<f64>, Option<f64>);

/// The target of the node's first internal edge named `name`.
fn internal_target(g: &Graph, node: u32, name: &str) -> Option<u32> {
    g.edges(node)
        .find(|&e| g.edge_type(e) == g.types.internal && g.edge_name(e) == name)
        .map(|e| g.edge_to(e))
}

/// A boxed number's value: `int` (parsed) or `bool` nodes with a `value` edge.
fn number_value(g: &Graph, node: u32, kind: &str) -> Option<String> {
    if g.node_type[node as usize] != g.types.number || g.raw_name(node) != kind {
        return None;
    }
    internal_target(g, node, "value").map(|v| g.raw_name(v).to_owned())
}

fn int_field(g: &Graph, node: u32, field: &str) -> Option<f64> {
    let target = internal_target(g, node, field)?;
    number_value(g, target, "int").and_then(|v| super::js::parse_int(&v))
}

fn is_truncated(g: &Graph, node: u32) -> bool {
    internal_target(g, node, "truncated")
        .and_then(|t| number_value(g, t, "bool"))
        .is_some_and(|v| v == "true")
}

/// A concatenated string one of whose halves is empty (it stands for the other).
fn is_flat_cons(g: &Graph, node: u32) -> bool {
    g.node_type[node as usize] == g.types.cons_string
        && g.edges(node).any(|e| {
            let name = g.edge_name(e);
            g.edge_type(e) == g.types.internal
                && (name == "first" || name == "second")
                && names::name(g, g.edge_to(e)).is_empty()
        })
}

impl Snapshot {
    pub(crate) fn duplicate_strings(&self) -> Vec<DuplicateGroup> {
        let g = &self.graph;
        let mut plain: Vec<DuplicateGroup> = Vec::new();
        let mut plain_at: HashMap<String, usize> = HashMap::new();
        let mut cut: Vec<(String, Vec<(Identity, DuplicateGroup)>)> = Vec::new();
        let mut cut_at: HashMap<String, usize> = HashMap::new();
        for node in self.duplicated() {
            let name = names::name(g, node);
            let n = node as usize;
            let (size, retained, id) = (g.self_size(n) as f64, self.retained(n), g.node_id(n));
            let group = if is_truncated(g, node) {
                let identity = (int_field(g, node, "length"), int_field(g, node, "hash"));
                let at = *cut_at.entry(name.clone()).or_insert_with(|| {
                    cut.push((name.clone(), Vec::new()));
                    cut.len() - 1
                });
                let groups = &mut cut[at].1;
                let i = match groups.iter().position(|(k, _)| *k == identity) {
                    Some(i) => i,
                    None => {
                        groups.push((identity, empty(&name, true)));
                        groups.len() - 1
                    }
                };
                &mut groups[i].1
            } else {
                let at = *plain_at.entry(name.clone()).or_insert_with(|| {
                    plain.push(empty(&name, false));
                    plain.len() - 1
                });
                &mut plain[at]
            };
            group.self_size += size;
            group.retained += retained;
            group.ids.push(id);
        }
        let mut all = plain;
        all.extend(
            cut.into_iter()
                .flat_map(|(_, groups)| groups.into_iter().map(|(_, g)| g)),
        );
        // Stable, as JavaScript's sort.
        all.sort_by(|a, b| b.retained.total_cmp(&a.retained));
        all
    }

    /// The strings that have a twin, in snapshot order.
    fn duplicated(&self) -> Vec<u32> {
        let g = &self.graph;
        let t = &g.types;
        let mut twin = vec![false; g.node_count()];
        let mut first_plain: HashMap<String, u32> = HashMap::new();
        let mut first_cut: HashMap<String, Vec<(Identity, u32)>> = HashMap::new();
        for node in 0..g.node_count() as u32 {
            let ty = g.node_type[node as usize];
            if (ty != t.string && ty != t.cons_string)
                || is_flat_cons(g, node)
                || g.self_size(node as usize) == 0
            {
                continue;
            }
            let name = names::name(g, node);
            if is_truncated(g, node) {
                let identity = (int_field(g, node, "length"), int_field(g, node, "hash"));
                let entries = first_cut.entry(name).or_default();
                match entries.iter().find(|(k, _)| *k == identity) {
                    Some(&(_, first)) => {
                        twin[first as usize] = true;
                        twin[node as usize] = true;
                    }
                    None => entries.push((identity, node)),
                }
            } else {
                match first_plain.get(&name) {
                    Some(&first) => {
                        twin[first as usize] = true;
                        twin[node as usize] = true;
                    }
                    None => {
                        first_plain.insert(name, node);
                    }
                }
            }
        }
        (0..g.node_count() as u32)
            .filter(|&n| twin[n as usize])
            .collect()
    }
}

fn empty(value: &str, truncated: bool) -> DuplicateGroup {
    DuplicateGroup {
        value: value.to_owned(),
        truncated,
        self_size: 0.0,
        retained: 0.0,
        ids: Vec::new(),
    }
}
