//! Which native context (a page's or a frame's JavaScript realm) each object belongs to, as
//! DevTools attributes them: a context itself and every object whose map's map names a
//! context are fixed; the rest inherit along strong edges, and an object reached from two
//! contexts is shared.

use std::collections::{HashMap, VecDeque};

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
    let mut by_map = ContextByMap::new(g);
    let mut contexts = Vec::new();
    for node in 0..n as u32 {
        let i = node as usize;
        if is_native_context(g, node) {
            contexts.push(node);
            owner[i] = node as i32;
            fixed[i] = true;
            continue;
        }
        let context = by_map.first_map(g, node).and_then(|map| by_map.of(g, map));
        if let Some(context) = context {
            owner[i] = context as i32;
            fixed[i] = true;
        }
    }
    spread(g, &mut owner, &fixed);
    (owner, contexts)
}

/// The native context an object's map names: its map's own map (the meta map) and that
/// one's first `native_context` edge to a native context. Worked out once per map.
struct ContextByMap {
    context_name: Option<u32>,
    map_name: Option<u32>,
    known: HashMap<u32, Option<u32>>,
    /// The map asked for last and its context: objects of one map tend to come together.
    last: Option<(u32, Option<u32>)>,
}

impl ContextByMap {
    fn new(g: &Graph) -> ContextByMap {
        ContextByMap {
            context_name: g.strings.index_of("native_context"),
            map_name: g.strings.index_of("map"),
            known: HashMap::new(),
            last: None,
        }
    }

    fn of(&mut self, g: &Graph, map: u32) -> Option<u32> {
        if let Some((last, context)) = self.last {
            if last == map {
                return context;
            }
        }
        let context = match self.known.get(&map) {
            Some(&known) => known,
            None => {
                let context = self
                    .first_map(g, map)
                    .and_then(|meta| self.first_context(g, meta));
                self.known.insert(map, context);
                context
            }
        };
        self.last = Some((map, context));
        context
    }

    /// The node's first internal edge named `map`.
    fn first_map(&self, g: &Graph, node: u32) -> Option<u32> {
        self.first_internal(g, node, self.map_name, |_| true)
    }

    /// The node's first internal edge named `native_context` to a native context.
    fn first_context(&self, g: &Graph, node: u32) -> Option<u32> {
        self.first_internal(g, node, self.context_name, |child| {
            is_native_context(g, child)
        })
    }

    fn first_internal(
        &self,
        g: &Graph,
        node: u32,
        name: Option<u32>,
        to: impl Fn(u32) -> bool,
    ) -> Option<u32> {
        name?;
        g.edges(node)
            .filter(|&e| g.edge_type(e) == g.types.internal)
            .filter(|&e| Some(g.edge_name_index(e)) == name)
            .map(|e| g.edge_to(e))
            .find(|&child| to(child))
    }
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
