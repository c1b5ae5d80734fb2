//! The printed tree: its nodes, walks over it, and how one frame's CDP nodes become it (what
//! puppeteer's `Accessibility.snapshot` does: link, filter, attach iframe documents).

use super::ax::RawNode;
use super::js_value::js_name;
use super::props::{Prop, PropLookup};
use super::{FrameOwner, FrameTree};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// A node as printed. `props` holds the printable properties by name: sorted, since the
/// reference prints them in sorted key order.
#[derive(Debug)]
pub(super) struct Node {
    pub(super) uid: String,
    pub(super) role: String,
    pub(super) name: String,
    pub(super) props: BTreeMap<&'static str, Prop>,
    pub(super) backend_node_id: Option<i64>,
    pub(super) frame: usize,
    pub(super) children: Vec<usize>,
}

/// Pre-order node list (children in order).
pub(super) fn preorder(nodes: &[Node], root: usize) -> Vec<usize> {
    let mut order = Vec::with_capacity(nodes.len());
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        order.push(n);
        stack.extend(nodes[n].children.iter().rev().copied());
    }
    order
}

/// Post-order node list (children in order, then the parent): the reverse of a pre-order walk
/// that visits children last-first.
pub(super) fn order_postorder(nodes: &[Node], root: usize) -> Vec<usize> {
    let mut order = Vec::with_capacity(nodes.len());
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        order.push(n);
        stack.extend(nodes[n].children.iter().copied());
    }
    order.reverse();
    order
}

/// Builds one frame's printed subtree (with its iframes' subtrees attached) into `out`, and
/// returns its root. `None` when the frame has no tree or nothing in it survives filtering.
pub(super) fn build_frame(
    frames: &[FrameTree<'_>],
    index: usize,
    verbose: bool,
    used: &mut [bool],
    out: &mut Vec<Node>,
) -> Option<usize> {
    // Each frame is used once, so a malformed owner cycle cannot loop.
    used[index] = true;
    let frame = frames[index];
    let raw = link_raw_nodes(frame.nodes);
    if raw.is_empty() {
        return None;
    }
    let order = raw_preorder(&raw);

    // Documents of this frame's iframes, attached as the iframe node's last child.
    let mut iframe_roots: HashMap<usize, usize> = HashMap::new();
    for &i in &order {
        let node = &raw[i];
        let Some(b) = node.backend_node_id.filter(|_| node.role == "Iframe") else {
            continue;
        };
        let owner = FrameOwner {
            frame_id: frame.frame_id,
            backend_node_id: b,
        };
        let child = (0..frames.len()).find(|&j| !used[j] && frames[j].owner == Some(owner));
        if let Some(j) = child {
            if let Some(sub) = build_frame(frames, j, verbose, used, out) {
                iframe_roots.insert(i, sub);
            }
        }
    }

    let keep = if verbose {
        None
    } else {
        Some(interesting_nodes(&raw, &order, &iframe_roots))
    };
    serialize(&raw, keep.as_deref(), &iframe_roots, index, out)
        .first()
        .copied()
}

/// Parses the payloads and links children by `childIds`. The first payload is the root.
fn link_raw_nodes(payloads: &[Value]) -> Vec<RawNode<'_>> {
    let mut raw: Vec<RawNode<'_>> = payloads.iter().map(RawNode::new).collect();
    // CDP node ids are strings.
    let mut by_id: HashMap<&str, usize> = HashMap::with_capacity(payloads.len());
    for (i, p) in payloads.iter().enumerate() {
        if let Some(id) = p.get("nodeId").and_then(Value::as_str) {
            by_id.insert(id, i);
        }
    }
    for (i, p) in payloads.iter().enumerate() {
        let Some(child_ids) = p.get("childIds").and_then(Value::as_array) else {
            continue;
        };
        raw[i].children = child_ids
            .iter()
            .filter_map(|c| by_id.get(c.as_str()?).copied())
            .collect();
    }
    raw
}

/// Nodes reachable from the root, pre-order, each once (guards against malformed cycles).
fn raw_preorder(raw: &[RawNode<'_>]) -> Vec<usize> {
    let mut seen = vec![false; raw.len()];
    let mut order = Vec::with_capacity(raw.len());
    let mut stack = vec![0];
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        order.push(i);
        stack.extend(raw[i].children.iter().rev().copied());
    }
    order
}

/// Marks the nodes a non-verbose snapshot keeps.
fn interesting_nodes(
    raw: &[RawNode<'_>],
    order: &[usize],
    iframe_roots: &HashMap<usize, usize>,
) -> Vec<bool> {
    // Whether any descendant is focusable, computed children-first.
    let mut focusable_below = vec![false; raw.len()];
    for &i in order.iter().rev() {
        focusable_below[i] = raw[i]
            .children
            .iter()
            .any(|&c| raw[c].focusable || focusable_below[c]);
    }
    let mut keep = vec![false; raw.len()];
    let mut seen = vec![false; raw.len()];
    let mut stack = vec![(0usize, false)];
    while let Some((i, inside_control)) = stack.pop() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        let node = &raw[i];
        let leaf = node.is_leaf(focusable_below[i]);
        if node.is_interesting(inside_control, leaf) || iframe_roots.contains_key(&i) {
            keep[i] = true;
        }
        if leaf {
            continue;
        }
        let inside_control = inside_control || node.is_control();
        for &c in node.children.iter().rev() {
            stack.push((c, inside_control));
        }
    }
    keep
}

/// Emits the kept nodes into `out` (children before parents); a dropped node's kept
/// descendants go to its parent. Returns the top-level nodes.
fn serialize(
    raw: &[RawNode<'_>],
    keep: Option<&[bool]>,
    iframe_roots: &HashMap<usize, usize>,
    frame: usize,
    out: &mut Vec<Node>,
) -> Vec<usize> {
    struct Level {
        raw: usize,
        next_child: usize,
        emitted: Vec<usize>,
    }
    let mut seen = vec![false; raw.len()];
    seen[0] = true;
    let mut stack = vec![Level {
        raw: 0,
        next_child: 0,
        emitted: Vec::new(),
    }];
    while let Some(top) = stack.last_mut() {
        if let Some(&child) = raw[top.raw].children.get(top.next_child) {
            top.next_child += 1;
            if !std::mem::replace(&mut seen[child], true) {
                stack.push(Level {
                    raw: child,
                    next_child: 0,
                    emitted: Vec::new(),
                });
            }
            continue;
        }
        let Some(level) = stack.pop() else { break };
        let produced = if keep.is_some_and(|k| !k[level.raw]) {
            level.emitted
        } else {
            let mut children = level.emitted;
            if let Some(&sub) = iframe_roots.get(&level.raw) {
                children.push(sub);
            }
            out.push(printable(&raw[level.raw], frame, children));
            vec![out.len() - 1]
        };
        match stack.last_mut() {
            Some(parent) => parent.emitted.extend(produced),
            None => return produced,
        }
    }
    Vec::new()
}

/// The printable node of an accessibility node: which CDP properties become which printed
/// keys, and how.
fn printable(raw: &RawNode<'_>, frame: usize, children: Vec<usize>) -> Node {
    let lookup = PropLookup::new(raw.payload);
    let mut name = String::new();
    if let Some(v) = lookup.get("name") {
        name = js_name(v);
    }
    Node {
        uid: String::new(),
        role: raw.role.clone(),
        name,
        props: lookup.printed(&raw.role),
        backend_node_id: raw.backend_node_id,
        frame,
        children,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::snapshot::model::test_support::*;
    use crate::tools::snapshot::model::{build, SnapshotInput, UidMap};
    use serde_json::json;

    #[test]
    fn a_filtered_out_root_leaves_only_its_first_kept_descendant() {
        // As in the reference: without `focusable` the root is not kept, and of the nodes
        // that replace it only the first becomes the snapshot.
        let nodes = [
            ax("1", "RootWebArea", "T", &["2", "3"], Some(1)),
            ax("2", "button", "One", &[], Some(2)),
            ax("3", "button", "Two", &[], Some(3)),
        ];
        assert_eq!(text_of(&nodes, false), "uid=1_0 button \"One\"\n");
    }

    #[test]
    fn malformed_trees_do_not_hang_or_panic() {
        // Cycles through childIds, unknown child ids, missing fields, odd value types.
        let nodes = [
            json!({"nodeId": "1", "childIds": ["2", "404"], "role": {"value": "RootWebArea"},
                   "properties": [{"name": "focusable"}], "backendDOMNodeId": 1}),
            json!({"nodeId": "2", "childIds": ["1", "2"], "name": {"value": 0},
                   "properties": [{"name": "checked", "value": {"value": true}}, {"bogus": 1}],
                   "backendDOMNodeId": "2"}),
            json!("not an object"),
        ];
        let text = text_of(&nodes, true);
        assert_eq!(text, "uid=1_0 RootWebArea\n  uid=1_1 Unknown\n");
        let nothing: [Value; 0] = [];
        let frames = main_only(&nothing);
        let err = build(
            &SnapshotInput {
                frames: &frames,
                extras: &[],
                verbose: false,
                selected_backend_node_id: None,
            },
            1,
            &mut UidMap::default(),
        )
        .expect_err("empty tree");
        assert_eq!(err.to_string(), "Failed to create accessibility snapshot");
    }

    #[test]
    fn deep_trees_need_no_deep_stack() {
        // 200,000 nested generic nodes with one named leaf: far deeper than any recursion
        // would survive; the printed tree stays small since the generics are filtered out.
        let depth = 200_000;
        let mut nodes: Vec<Value> = (0..depth)
            .map(|i| {
                let kids: Vec<String> = if i + 1 < depth {
                    vec![(i + 1).to_string()]
                } else {
                    vec![]
                };
                json!({"nodeId": i.to_string(), "role": {"value": "generic"}, "childIds": kids,
                       "backendDOMNodeId": i + 1})
            })
            .collect();
        nodes[0] = with_prop(
            ax("0", "RootWebArea", "T", &["1"], Some(1)),
            "focusable",
            json!(true),
        );
        nodes[depth - 1] = ax(
            &(depth - 1).to_string(),
            "StaticText",
            "deep",
            &[],
            Some(depth as i64),
        );
        let frames = main_only(&nodes);
        let s = snap(&frames, &[], false, 1, &mut UidMap::default());
        assert_eq!(s.text, "uid=1_0 RootWebArea \"T\"\n  uid=1_1 \"deep\"\n");
        assert_eq!(s.uid_for_backend(depth as i64), Some("1_1"));
    }
}
