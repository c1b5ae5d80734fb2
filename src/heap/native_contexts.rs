//! Which native context (a page's or a frame's JavaScript realm) each object belongs to, as
//! DevTools attributes them: a context itself and every object whose map's map names a
//! context are fixed; the rest inherit along strong edges, and an object reached from two
//! contexts is shared.

use std::collections::VecDeque;

use super::graph::Graph;

/// An object no context reaches.
pub(crate) const NONE: i32 = -1;
/// An object two or more contexts reach.
pub(crate) const SHARED: i32 = -2;

pub(crate) fn is_native_context(g: &Graph, node: u32) -> bool {
    let name = g.raw_name(node);
    name == "system / NativeContext"
        || name.starts_with("system / NativeContext / ")
        || name == "Detached system / NativeContext"
        || name.starts_with("Detached system / NativeContext / ")
}

/// Each node's context (an ordinal), [`NONE`] or [`SHARED`]; and the contexts, in order.
pub(super) fn attribution(g: &Graph) -> (Vec<i32>, Vec<u32>) {
    let n = g.node_count();
    let mut owner = vec![NONE; n];
    let mut fixed = vec![false; n];
    let (context_of, map_of) = first_targets(g);
    let mut contexts = Vec::new();
    for node in 0..n as u32 {
        let i = node as usize;
        if is_native_context(g, node) {
            contexts.push(node);
            owner[i] = node as i32;
            fixed[i] = true;
            continue;
        }
        let map = map_of[i];
        let meta_map = if map >= 0 { map_of[map as usize] } else { -1 };
        let context = if meta_map >= 0 {
            context_of[meta_map as usize]
        } else {
            -1
        };
        if context >= 0 {
            owner[i] = context;
            fixed[i] = true;
        }
    }
    spread(g, &mut owner, &fixed);
    (owner, contexts)
}

/// Each node's first internal `native_context` edge to a context and first internal `map`
/// edge, by target ordinal (-1 for none).
fn first_targets(g: &Graph) -> (Vec<i32>, Vec<i32>) {
    let n = g.node_count();
    let mut context = vec![-1i32; n];
    let mut map = vec![-1i32; n];
    let context_name = g.strings.index_of("native_context");
    let map_name = g.strings.index_of("map");
    for node in 0..n as u32 {
        let i = node as usize;
        for e in g.edges(node) {
            if g.edge_type(e) != g.types.internal {
                continue;
            }
            let name = Some(g.edge_name_index(e));
            let child = g.edge_to(e);
            if name == context_name && context[i] == -1 && is_native_context(g, child) {
                context[i] = child as i32;
            } else if name == map_name && map[i] == -1 {
                map[i] = child as i32;
            }
        }
    }
    (context, map)
}

fn merge(current: i32, incoming: i32) -> i32 {
    if current == SHARED || incoming == SHARED {
        SHARED
    } else if current == NONE || current == incoming {
        incoming
    } else {
        SHARED
    }
}

fn spread(g: &Graph, owner: &mut [i32], fixed: &[bool]) {
    let t = &g.types;
    let mut queue: VecDeque<u32> = (0..owner.len() as u32)
        .filter(|&i| fixed[i as usize])
        .collect();
    while let Some(node) = queue.pop_front() {
        let current = owner[node as usize];
        for e in g.edges(node) {
            let ty = g.edge_type(e);
            if ty == t.shortcut || ty == t.weak {
                continue;
            }
            let child = g.edge_to(e);
            if child == node || fixed[child as usize] {
                continue;
            }
            let merged = merge(owner[child as usize], current);
            if merged != owner[child as usize] {
                owner[child as usize] = merged;
                queue.push_back(child);
            }
        }
    }
}
