//! Which DOM objects are attached to a document and which are detached, spread from the
//! states the snapshot records (a detached node's name gains `Detached `), and the flags
//! the later analyses read: detached DOM tree nodes, objects a console could query, and
//! objects the page owns.

use std::collections::HashMap;

use super::graph::Graph;

pub(crate) const ATTACHED: u8 = 1;
pub(crate) const DETACHED: u8 = 2;

pub(crate) const CAN_BE_QUERIED: u8 = 1;
pub(crate) const DETACHED_DOM_TREE_NODE: u8 = 2;
pub(crate) const PAGE_OBJECT: u8 = 4;

/// Each node's DOM state: the file's, spread along strong edges from the native nodes that
/// have one; without the field, native nodes named `Detached …` are detached.
pub(super) fn states(g: &mut Graph) -> Result<Vec<u8>, String> {
    let n = g.node_count();
    if !g.has_detachedness {
        let mut states = vec![0u8; n];
        for (i, s) in states.iter_mut().enumerate() {
            if g.node_type[i] == g.types.native && g.raw_name(i as u32).starts_with("Detached ") {
                *s = DETACHED;
            }
        }
        return Ok(states);
    }
    let mut states = std::mem::take(&mut g.detachedness);
    let mut propagation = Propagation {
        visited: vec![false; n],
        attached: Vec::new(),
        detached: Vec::new(),
        renamed: HashMap::new(),
        new_names: Vec::new(),
    };
    propagation.run(g, &mut states)?;
    let mut new_names = propagation.new_names;
    new_names.sort_unstable();
    g.rename(&new_names);
    Ok(states)
}

struct Propagation {
    visited: Vec<bool>,
    attached: Vec<u32>,
    detached: Vec<u32>,
    /// A name's string and the string of the same name with `Detached ` before it.
    renamed: HashMap<u32, u32>,
    /// The detached nodes and their new names, given once the spread is over (nothing
    /// reads a node's name again after it is renamed).
    new_names: Vec<(u32, u32)>,
}

impl Propagation {
    fn run(&mut self, g: &mut Graph, states: &mut [u8]) -> Result<(), String> {
        for node in 0..g.node_count() as u32 {
            let state = states[node as usize];
            if state != 0 {
                self.process(g, states, node, state)?;
            }
        }
        while let Some(node) = self.attached.pop() {
            self.spread(g, states, node, ATTACHED)?;
        }
        while let Some(node) = self.detached.pop() {
            if states[node as usize] != ATTACHED {
                self.spread(g, states, node, DETACHED)?;
            }
        }
        Ok(())
    }

    fn spread(
        &mut self,
        g: &mut Graph,
        states: &mut [u8],
        node: u32,
        state: u8,
    ) -> Result<(), String> {
        let t = &g.types;
        let skipped = [t.hidden_edge, t.invisible, t.weak];
        for e in g.edges(node) {
            if !skipped.contains(&g.edge_type(e)) {
                let child = g.edge_to(e);
                self.process(g, states, child, state)?;
            }
        }
        Ok(())
    }

    fn process(
        &mut self,
        g: &mut Graph,
        states: &mut [u8],
        node: u32,
        state: u8,
    ) -> Result<(), String> {
        let i = node as usize;
        if self.visited[i] {
            return Ok(());
        }
        self.visited[i] = true;
        if g.node_type[i] != g.types.native {
            return Ok(());
        }
        states[i] = state;
        if state == ATTACHED {
            self.attached.push(node);
        } else if state == DETACHED {
            self.rename(g, i)?;
            self.detached.push(node);
        }
        Ok(())
    }

    fn rename(&mut self, g: &mut Graph, i: usize) -> Result<(), String> {
        let old = g.node_name(i);
        let new = match self.renamed.get(&old) {
            Some(&s) => s,
            None => {
                let name = format!("Detached {}", g.strings.get(old));
                let s = g.strings.push(&name).ok_or("the strings pass 4 GB")?;
                self.renamed.insert(old, s);
                s
            }
        };
        self.new_names.push((i as u32, new));
        Ok(())
    }
}

/// The flags of every node (see the constants above).
pub(super) fn flags(g: &Graph, states: &[u8]) -> Vec<u8> {
    let mut flags = vec![0u8; g.node_count()];
    for (i, f) in flags.iter_mut().enumerate() {
        if g.node_type[i] == g.types.native && states[i] == DETACHED {
            *f |= DETACHED_DOM_TREE_NODE;
        }
    }
    mark_queriable(g, &mut flags);
    mark_page_owned(g, &mut flags);
    flags
}

fn mark_queriable(g: &Graph, flags: &mut [u8]) {
    let t = &g.types;
    let skipped = [t.hidden_edge, t.invisible, t.internal, t.weak];
    let mut list: Vec<u32> = g
        .edges(g.root)
        .map(|e| g.edge_to(e))
        .filter(|&n| g.is_user_root(n))
        .collect();
    while let Some(node) = list.pop() {
        if flags[node as usize] & CAN_BE_QUERIED != 0 {
            continue;
        }
        flags[node as usize] |= CAN_BE_QUERIED;
        for e in g.edges(node) {
            let child = g.edge_to(e);
            if flags[child as usize] & CAN_BE_QUERIED == 0 && !skipped.contains(&g.edge_type(e)) {
                list.push(child);
            }
        }
    }
}

fn mark_page_owned(g: &Graph, flags: &mut [u8]) {
    let t = &g.types;
    let mut stack = Vec::new();
    for e in g.edges(g.root) {
        let node = g.edge_to(e);
        let ty = g.edge_type(e);
        let starts = if ty == t.element {
            g.is_document_dom_trees_root(node)
        } else {
            ty == t.shortcut
        };
        if starts {
            stack.push(node);
            flags[node as usize] |= PAGE_OBJECT;
        }
    }
    while let Some(node) = stack.pop() {
        for e in g.edges(node) {
            let child = g.edge_to(e) as usize;
            if flags[child] & PAGE_OBJECT != 0 || g.edge_type(e) == t.weak {
                continue;
            }
            stack.push(child as u32);
            flags[child] |= PAGE_OBJECT;
        }
    }
}
