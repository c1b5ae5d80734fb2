//! Where a DOM element sits, from one `DOM.getDocument {depth: -1, pierce: true}`: what extra
//! elements are built from.

use super::ExtraElement;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// An index of a DOM tree, for placing extra elements.
#[derive(Debug, Default)]
pub(crate) struct DomIndex {
    /// Parent element of each node whose parent is an element (`parentElement`).
    parent_element: HashMap<i64, i64>,
    /// Light-DOM children of each node.
    children: HashMap<i64, Vec<i64>>,
    local_name: HashMap<i64, String>,
}

impl DomIndex {
    /// `document` is the `root` node of `DOM.getDocument` (the whole result is accepted too).
    pub(crate) fn from_document(document: &Value) -> DomIndex {
        let root = document.get("root").unwrap_or(document);
        let mut index = DomIndex::default();
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            let Some(id) = node.get("backendNodeId").and_then(Value::as_i64) else {
                continue;
            };
            let is_element = node.get("nodeType").and_then(Value::as_i64) == Some(1);
            if is_element {
                let name = node.get("localName").and_then(Value::as_str).unwrap_or("");
                index.local_name.insert(id, name.to_string());
            }
            let children = node.get("children").and_then(Value::as_array);
            let mut child_ids = Vec::new();
            for child in children.into_iter().flatten() {
                if let Some(c) = child.get("backendNodeId").and_then(Value::as_i64) {
                    child_ids.push(c);
                    if is_element {
                        index.parent_element.insert(c, id);
                    }
                }
                stack.push(child);
            }
            index.children.insert(id, child_ids);
            // Shadow roots and frame documents are indexed too, but they are not children:
            // their top nodes have no parent element, as in the DOM.
            for sub in node
                .get("shadowRoots")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                stack.push(sub);
            }
            if let Some(doc) = node.get("contentDocument") {
                stack.push(doc);
            }
        }
        index
    }

    /// The extra element for a DOM element, or `None` when the element is not in the index.
    pub(crate) fn extra_element(&self, backend_node_id: i64) -> Option<ExtraElement> {
        let local_name = self.local_name.get(&backend_node_id)?.clone();
        let mut ancestors = Vec::new();
        let mut current = backend_node_id;
        while let Some(&parent) = self.parent_element.get(&current) {
            // A cycle would only come from malformed data; stop rather than loop.
            if ancestors.contains(&parent) || parent == backend_node_id {
                break;
            }
            ancestors.push(parent);
            current = parent;
        }
        let mut descendants = HashSet::new();
        let mut stack: Vec<i64> = self
            .children
            .get(&backend_node_id)
            .cloned()
            .unwrap_or_default();
        while let Some(n) = stack.pop() {
            if n == backend_node_id || !descendants.insert(n) {
                continue;
            }
            if let Some(c) = self.children.get(&n) {
                stack.extend(c.iter().copied());
            }
        }
        Some(ExtraElement {
            backend_node_id,
            local_name,
            ancestors,
            descendants,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dom_index_gives_parent_elements_and_light_descendants() {
        let dom = json!({"root": {"backendNodeId": 1, "nodeType": 9, "children": [
            {"backendNodeId": 2, "nodeType": 1, "localName": "html", "children": [
                {"backendNodeId": 3, "nodeType": 1, "localName": "body", "children": [
                    {"backendNodeId": 4, "nodeType": 1, "localName": "div",
                     "children": [{"backendNodeId": 5, "nodeType": 3}],
                     "shadowRoots": [{"backendNodeId": 6, "nodeType": 11, "children": [
                        {"backendNodeId": 7, "nodeType": 1, "localName": "button"}]}]}
                ]}
            ]}
        ]}});
        let index = DomIndex::from_document(&dom);
        let div = index.extra_element(4).expect("div");
        assert_eq!(div.local_name, "div");
        assert_eq!(div.ancestors, vec![3, 2]);
        assert_eq!(div.descendants, [5].into_iter().collect());
        // Inside a shadow root there is no parent element.
        let button = index.extra_element(7).expect("button");
        assert!(button.ancestors.is_empty());
        assert!(
            index.extra_element(5).is_none(),
            "text nodes are not elements"
        );
        assert!(index.extra_element(99).is_none());
    }
}
