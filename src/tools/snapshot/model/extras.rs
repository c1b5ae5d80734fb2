//! Extra elements: DOM elements a page tool returned that the accessibility tree leaves out,
//! shown anyway under their nearest ancestor in the tree.

use super::tree::Node;
use super::uids::IdAssigner;
use std::collections::{BTreeMap, HashMap, HashSet};

/// A DOM element to show even when the accessibility tree leaves it out (an element a page tool
/// returned). Build one with [`DomIndex::extra_element`](super::DomIndex::extra_element).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ExtraElement {
    pub backend_node_id: i64,
    /// Printed as the role, e.g. `div`.
    pub local_name: String,
    /// Backend ids of the parent-element chain, nearest first.
    pub ancestors: Vec<i64>,
    /// Backend ids of every node below it (light DOM): tree nodes among them move under it.
    pub descendants: HashSet<i64>,
}

/// Puts each extra element under its nearest ancestor in the tree (or the root), taking over
/// the tree nodes that are its descendants, as the reference does.
pub(super) fn insert_extras(
    extras: &[ExtraElement],
    nodes: &mut Vec<Node>,
    root: usize,
    postorder: &[usize],
    ids: &mut IdAssigner,
    seen_backend: &mut HashSet<i64>,
    by_uid: &mut HashMap<String, usize>,
) {
    // The node an ancestor's backend id stands for: the first in post-order (the reference
    // searches its uid map in insertion order), as that uid finally resolves.
    let mut by_backend: HashMap<i64, usize> = HashMap::new();
    for &n in postorder {
        if let Some(b) = nodes[n].backend_node_id {
            by_backend
                .entry(b)
                .or_insert_with(|| by_uid.get(&nodes[n].uid).copied().unwrap_or(n));
        }
    }
    let main_frame = nodes[root].frame;
    let mut placements: Vec<(usize, usize, &HashSet<i64>)> = Vec::new();
    for extra in extras {
        let b = extra.backend_node_id;
        if seen_backend.contains(&b) || ids.extra_seen(b) {
            continue;
        }
        seen_backend.insert(b);
        let uid = ids.extra_uid(b);
        let n = nodes.len();
        nodes.push(Node {
            uid: uid.clone(),
            role: extra.local_name.clone(),
            name: String::new(),
            props: BTreeMap::new(),
            backend_node_id: Some(b),
            frame: main_frame,
            children: Vec::new(),
        });
        by_uid.insert(uid, n);
        by_backend.entry(b).or_insert(n);
        let target = extra
            .ancestors
            .iter()
            .find_map(|a| by_backend.get(a).copied())
            .unwrap_or(root);
        placements.push((n, target, &extra.descendants));
    }
    for (n, target, descendants) in placements {
        place(nodes, n, target, descendants);
    }
}

/// Makes node `n` a child of `target`, taking over the target's children that are among
/// `descendants`; `n` goes where the first of them was, else last.
fn place(nodes: &mut [Node], n: usize, target: usize, descendants: &HashSet<i64>) {
    let mut first_moved = None;
    if !descendants.is_empty() {
        let children = std::mem::take(&mut nodes[target].children);
        let mut kept = Vec::with_capacity(children.len());
        for c in children {
            if nodes[c]
                .backend_node_id
                .is_some_and(|b| descendants.contains(&b))
            {
                first_moved.get_or_insert(kept.len());
                nodes[n].children.push(c);
            } else {
                kept.push(c);
            }
        }
        nodes[target].children = kept;
    }
    let at = first_moved.unwrap_or(nodes[target].children.len());
    nodes[target].children.insert(at, n);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::snapshot::model::test_support::*;
    use crate::tools::snapshot::model::UidMap;
    use serde_json::json;

    #[test]
    fn extra_elements_take_over_their_descendants() {
        // root > [button(2), text(3), button(4)]; the extra <div>(10) wraps text 3 and button 4.
        let nodes = [
            with_prop(
                ax("1", "RootWebArea", "T", &["2", "3", "4"], Some(1)),
                "focusable",
                json!(true),
            ),
            ax("2", "button", "First", &[], Some(2)),
            ax("3", "StaticText", "words", &[], Some(3)),
            ax("4", "button", "Second", &[], Some(4)),
        ];
        let frames = main_only(&nodes);
        let div = ExtraElement {
            backend_node_id: 10,
            local_name: "div".into(),
            ancestors: vec![11, 12],
            descendants: [3, 4, 30].into_iter().collect(),
        };
        let span = ExtraElement {
            backend_node_id: 20,
            local_name: "span".into(),
            ancestors: vec![10, 11],
            descendants: HashSet::new(),
        };
        // An element already in the tree gets no second line.
        let button = ExtraElement {
            backend_node_id: 2,
            local_name: "button".into(),
            ancestors: vec![],
            descendants: HashSet::new(),
        };
        let mut uids = UidMap::default();
        let s = snap(
            &frames,
            &[div.clone(), span.clone(), button],
            false,
            1,
            &mut uids,
        );
        assert_eq!(
            s.text,
            "uid=1_0 RootWebArea \"T\"\n  uid=1_1 button \"First\"\n  uid=1_4 div\n    uid=1_2 \"words\"\n    uid=1_3 button \"Second\"\n    uid=1_5 span\n"
        );
        assert_eq!(s.uid_for_backend(10), Some("1_4"));
        assert_eq!(s.resolve("1_5").map(|e| e.role), Ok("span"));
        // They keep their uids in the next snapshot.
        let s2 = snap(&frames, &[div, span], false, 2, &mut uids);
        assert_eq!(s2.uid_for_backend(20), Some("1_5"));
    }
}
