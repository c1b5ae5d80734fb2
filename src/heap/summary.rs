//! The snapshot's totals as DevTools' summary shows them: sizes by kind (native, code,
//! strings, JS arrays, system), the static data, each native context's sizes, and how much
//! is held only through closure contexts.

use super::bits::Bits;
use super::distances;
use super::graph::Graph;
use super::names;
use super::native_contexts::{NONE, SHARED};
use super::packed::PackedSigned;
use super::Snapshot;

#[derive(Clone, Copy)]
pub(crate) struct Statistics {
    pub total: f64,
    pub native: f64,
    pub typed_arrays: f64,
    pub code: f64,
    pub js_arrays: f64,
    pub strings: f64,
    pub system: f64,
}

/// The sizes by kind; `total` is left 0 for the load to fill in once the dominators give it.
pub(super) fn statistics(g: &Graph) -> Statistics {
    let t = &g.types;
    let mut s = Statistics {
        total: 0.0,
        native: g.extra_native_bytes,
        typed_arrays: 0.0,
        code: 0.0,
        js_arrays: 0.0,
        strings: 0.0,
        system: 0.0,
    };
    // The nodes more than one edge retains: all an array's size needs to know, without
    // indexing every retainer (two bits a node: this runs beside the dominators' peak).
    let (mut once, mut more) = (Bits::new(g.node_count()), Bits::new(g.node_count()));
    for t in g.edge_targets() {
        let t = t as usize;
        if once.get(t) {
            more.set(t);
        }
        once.set(t);
    }
    drop(once);
    for node in 0..g.node_count() as u32 {
        let size = g.self_size(node as usize) as f64;
        let ty = g.node_type[node as usize];
        if ty == t.hidden {
            s.system += size;
        } else if ty == t.native {
            s.native += size;
            if g.raw_name(node) == "system / JSArrayBufferData" {
                s.typed_arrays += size;
            }
        } else if ty == t.code {
            s.code += size;
        } else if ty == t.cons_string || ty == t.sliced_string || ty == t.string {
            s.strings += size;
        } else if g.raw_name(node) == "Array" {
            s.js_arrays += array_size(g, node, &more);
        }
    }
    s
}

/// An array's size with its elements store, when the array is that store's only retainer
/// (`more`: the nodes more than one edge retains).
fn array_size(g: &Graph, node: u32, more: &Bits) -> f64 {
    let mut size = g.self_size(node as usize) as f64;
    for e in g.edges(node) {
        if g.edge_type(e) != g.types.internal || g.strings.get(g.edge_name_index(e)) != "elements" {
            continue;
        }
        let elements = g.edge_to(e);
        if !more.get(elements as usize) {
            size += g.self_size(elements as usize) as f64;
        }
        break;
    }
    size
}

/// The largest odd (JavaScript object) id.
pub(super) fn max_js_object_id(g: &Graph) -> u32 {
    g.node_ids().filter(|id| id % 2 == 1).max().unwrap_or(0)
}

pub(crate) struct NativeContext {
    pub id: u32,
    pub name: String,
    pub self_size: u32,
    pub retained: f64,
    pub attributed: f64,
}

pub(crate) struct NativeContextSizes {
    pub contexts: Vec<NativeContext>,
    pub shared: f64,
    pub unattributed: f64,
}

pub(super) fn native_context_sizes(s: &Snapshot) -> NativeContextSizes {
    let g = &s.graph;
    let mut contexts: Vec<NativeContext> = s
        .native_contexts
        .iter()
        .map(|&node| NativeContext {
            id: g.node_id(node as usize),
            name: names::name(g, node),
            self_size: g.self_size(node as usize),
            retained: s.retained(node as usize),
            attributed: 0.0,
        })
        .collect();
    let (mut shared, mut unattributed) = (0.0, 0.0);
    for (i, owner) in s.attribution.iter().enumerate() {
        let size = g.self_size(i) as f64;
        match owner {
            SHARED => shared += size,
            NONE => unattributed += size,
            o => {
                if let Ok(at) = s.native_contexts.binary_search(&(o as u32)) {
                    contexts[at].attributed += size;
                }
            }
        }
    }
    NativeContextSizes {
        contexts,
        shared,
        unattributed,
    }
}

#[derive(Clone, Copy)]
pub(crate) struct ContextRetention {
    pub contexts: u64,
    pub retained_size: f64,
    pub retained_count: u64,
    pub other_size: f64,
    pub other_count: u64,
}

/// Objects (of some size) held only through closure contexts, and the rest: outside are
/// those the root reaches without passing a context (`reached`) and those it cannot reach.
pub(super) fn context_retention(
    g: &Graph,
    reached: &Bits,
    distances: &PackedSigned,
) -> ContextRetention {
    let mut r = ContextRetention {
        contexts: 0,
        retained_size: 0.0,
        retained_count: 0,
        other_size: 0.0,
        other_count: 0,
    };
    for (node, distance) in distances.iter().enumerate() {
        let size = g.self_size(node);
        if size == 0 {
            continue;
        }
        if reached.get(node) || distance == distances::NO_DISTANCE {
            r.other_count += 1;
            r.other_size += size as f64;
        } else {
            r.retained_count += 1;
            r.retained_size += size as f64;
        }
        if g.is_context(node as u32) {
            r.contexts += 1;
        }
    }
    r
}
