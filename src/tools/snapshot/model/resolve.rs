//! From a uid back to the element: what tools act on, and the errors they report.

use super::Snapshot;
use std::fmt;

/// Where a uid points: resolve it with `DOM.resolveNode {backendNodeId}` on `target_id`'s session.
/// For text nodes (`role` StaticText) that gives a Text node: use its parent element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ElementRef<'a> {
    pub backend_node_id: i64,
    pub target_id: &'a str,
    pub frame_id: &'a str,
    pub role: &'a str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UidError {
    /// No such uid in the latest snapshot.
    NotFound,
    /// The uid names a tree node without a DOM node (e.g. an inline text box).
    NoDomNode,
}

impl UidError {
    /// The reference's error text for this failure.
    pub(crate) fn message(self, uid: &str, page_id: impl fmt::Display) -> String {
        match self {
            UidError::NotFound => format!("Element uid \"{uid}\" not found on page {page_id}."),
            UidError::NoDomNode => format!("Element with uid {uid} no longer exists on the page."),
        }
    }
}

/// The reference's error text for a uid used before any snapshot of the page.
pub(crate) fn no_snapshot_message(page_id: impl fmt::Display) -> String {
    format!("No snapshot found for page {page_id}. Use take_snapshot to capture one.")
}

impl Snapshot {
    /// The DOM node behind a uid.
    #[cfg(test)]
    pub(crate) fn backend_node_id(&self, uid: &str) -> Option<i64> {
        self.resolve(uid).ok().map(|e| e.backend_node_id)
    }

    /// Everything needed to act on the element behind a uid.
    pub(crate) fn resolve(&self, uid: &str) -> Result<ElementRef<'_>, UidError> {
        let n = *self.by_uid.get(uid).ok_or(UidError::NotFound)?;
        let node = &self.nodes[n];
        let backend_node_id = node.backend_node_id.ok_or(UidError::NoDomNode)?;
        let frame = &self.frames[node.frame];
        Ok(ElementRef {
            backend_node_id,
            target_id: &frame.target_id,
            frame_id: &frame.frame_id,
            role: &node.role,
        })
    }

    /// The uid of a DOM node from the main page target (e.g. an element a page tool returned).
    pub(crate) fn uid_for_backend(&self, backend_node_id: i64) -> Option<&str> {
        let main = self.frames.first().map(|f| f.target_id.as_str());
        self.find_backend(backend_node_id, main)
    }

    /// The uid of a DOM node of a given target (the page or an out-of-process iframe).
    #[cfg(test)]
    pub(crate) fn uid_for_backend_in(&self, target_id: &str, backend_node_id: i64) -> Option<&str> {
        self.find_backend(backend_node_id, Some(target_id))
    }

    /// Depth-first from the root, last child first: the order the reference searches in, which
    /// decides the winner when one backend id appears twice.
    pub(super) fn find_backend(&self, backend_node_id: i64, target: Option<&str>) -> Option<&str> {
        let mut stack = vec![self.root];
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n];
            let in_target = target.is_none_or(|t| self.frames[node.frame].target_id == t);
            if in_target && node.backend_node_id == Some(backend_node_id) {
                return Some(&node.uid);
            }
            stack.extend(node.children.iter().copied());
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::snapshot::model::test_support::*;
    use crate::tools::snapshot::model::UidMap;

    #[test]
    fn uids_resolve_to_dom_nodes_in_the_right_target() {
        let doc = fixture_json("page.ax.json");
        let frames = frames(&doc);
        let s = snap(&frames, &[], true, 1, &mut UidMap::default());
        let find = |name: &str, role: &str| {
            s.nodes
                .iter()
                .find(|n| n.name == name && n.role == role)
                .map(|n| n.uid.clone())
                .unwrap_or_else(|| panic!("{role} {name}"))
        };
        // A main-frame button: its AX node's backendDOMNodeId.
        let go = find("Go", "button");
        let go_backend = frames[0]
            .nodes
            .iter()
            .find(|n| n["name"]["value"] == "Go" && n["role"]["value"] == "button")
            .and_then(|n| n["backendDOMNodeId"].as_i64())
            .expect("Go button node");
        let r = s.resolve(&go).expect("resolves");
        assert_eq!(
            (r.backend_node_id, r.target_id),
            (go_backend, frames[0].target_id)
        );
        assert_eq!(s.backend_node_id(&go), Some(go_backend));
        assert_eq!(s.uid_for_backend(go_backend), Some(go.as_str()));

        // The cross-site frame's input lives in its own target.
        let cross = s
            .resolve(&find("Cross input", "textbox"))
            .expect("resolves");
        assert_eq!(cross.target_id, frames[2].target_id);
        assert_eq!(cross.frame_id, frames[2].frame_id);
        assert_eq!(
            s.uid_for_backend_in(frames[2].target_id, cross.backend_node_id),
            Some(find("Cross input", "textbox").as_str())
        );

        // Inline text boxes have no DOM node; unknown uids are unknown.
        let inline = find("Go", "InlineTextBox");
        assert_eq!(s.resolve(&inline), Err(UidError::NoDomNode));
        assert_eq!(s.resolve("99_1"), Err(UidError::NotFound));
        assert_eq!(
            UidError::NotFound.message("99_1", 2),
            "Element uid \"99_1\" not found on page 2."
        );
        assert_eq!(
            UidError::NoDomNode.message("1_4", 2),
            "Element with uid 1_4 no longer exists on the page."
        );

        // Every node of the main target with a DOM node maps back to a uid that resolves to it.
        for n in s.nodes.iter().filter(|n| !n.uid.is_empty() && n.frame != 2) {
            if let Some(b) = n.backend_node_id {
                let uid = s.uid_for_backend(b).expect("uid");
                assert_eq!(s.backend_node_id(uid), Some(b));
            }
        }
    }
}
