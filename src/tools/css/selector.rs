//! The element and its ancestors, found in the document the browser sends, and how DevTools
//! names an element (`div#main`, `p.note.big`, `input[type="text"]`).

use serde_json::Value;

/// An element of the document.
#[derive(Debug, Clone, Default)]
pub(super) struct Node {
    pub(super) node_id: i64,
    pub(super) backend_id: i64,
    local_name: String,
    /// Name, value, name, value…, as the browser lists them.
    attributes: Vec<String>,
}

impl Node {
    fn of(v: &Value) -> Node {
        Node {
            node_id: v.get("nodeId").and_then(Value::as_i64).unwrap_or(0),
            backend_id: v.get("backendNodeId").and_then(Value::as_i64).unwrap_or(0),
            local_name: v
                .get("localName")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            attributes: v
                .get("attributes")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .chunks(2)
            .find(|pair| pair[0].eq_ignore_ascii_case(name))
            .and_then(|pair| pair.get(1))
            .map(String::as_str)
    }

    pub(super) fn tag(&self) -> String {
        self.local_name.to_ascii_lowercase()
    }

    /// DevTools' short name for the element.
    pub(super) fn simple_selector(&self) -> String {
        let tag = self.tag();
        let (id, classes) = (self.attribute("id"), self.attribute("class"));
        let id = id.filter(|s| !s.is_empty());
        let classes = classes.map(str::trim).filter(|s| !s.is_empty());
        match (id, classes, self.attribute("type")) {
            (None, None, Some(t)) if tag == "input" && !t.is_empty() => {
                format!("input[type=\"{}\"]", escape(t))
            }
            (Some(id), _, _) => format!("{tag}#{}", escape(id)),
            (None, Some(classes), _) => {
                let prefix = if tag == "div" { "" } else { tag.as_str() };
                let names: Vec<String> = classes.split_ascii_whitespace().map(escape).collect();
                format!("{prefix}.{}", names.join("."))
            }
            _ => tag,
        }
    }
}

/// `CSS.escape`, as the CSSOM specification defines it.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let chars: Vec<char> = s.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let digit = c.is_ascii_digit();
        match c {
            '\0' => out.push('\u{FFFD}'),
            '\u{1}'..='\u{1f}' | '\u{7f}' => out.push_str(&format!("\\{:x} ", c as u32)),
            _ if digit && (i == 0 || (i == 1 && chars[0] == '-')) => {
                out.push_str(&format!("\\{:x} ", c as u32))
            }
            '-' if i == 0 && chars.len() == 1 => out.push_str("\\-"),
            _ if c as u32 >= 0x80 || c == '-' || c == '_' || c.is_ascii_alphanumeric() => {
                out.push(c)
            }
            _ => {
                out.push('\\');
                out.push(c);
            }
        }
    }
    out
}

/// The element with `backend_id` (a text node's parent element) and its ancestor elements,
/// nearest first, up to its document's root; from a `DOM.getDocument {depth: -1, pierce}`.
/// An element in a shadow tree inherits from its host, so the chain goes on through hosts.
pub(super) fn chain(document: &Value, backend_id: i64) -> Option<(Node, Vec<Node>)> {
    let root = document.get("root").unwrap_or(document);
    // Every node seen, with its parent's index: a walk with an explicit stack, since a page
    // can nest elements deeper than a recursive walk could go.
    let mut seen: Vec<(Option<usize>, &Value)> = Vec::new();
    let mut stack: Vec<(Option<usize>, &Value)> = vec![(None, root)];
    let mut found = None;
    while let Some((parent, node)) = stack.pop() {
        let at = seen.len();
        seen.push((parent, node));
        if node.get("backendNodeId").and_then(Value::as_i64) == Some(backend_id) {
            found = Some(at);
            break;
        }
        for key in ["children", "shadowRoots"] {
            for child in node
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                stack.push((Some(at), child));
            }
        }
        if let Some(doc) = node.get("contentDocument") {
            stack.push((Some(at), doc));
        }
    }
    let mut elements = Vec::new();
    let mut at = found;
    while let Some(i) = at {
        let (parent, node) = seen[i];
        match node.get("nodeType").and_then(Value::as_i64) {
            Some(1) => elements.push(Node::of(node)),
            // Inheritance stops at the element's document.
            Some(9) => break,
            _ => {}
        }
        at = parent;
    }
    let mut elements = elements.into_iter();
    let element = elements.next()?;
    Some((element, elements.collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn node(name: &str, attributes: &[&str]) -> Node {
        Node {
            local_name: name.into(),
            attributes: attributes.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn elements_are_named_as_devtools_names_them() {
        assert_eq!(node("P", &[]).simple_selector(), "p");
        assert_eq!(
            node("div", &["id", "main", "class", "a"]).simple_selector(),
            "div#main"
        );
        assert_eq!(node("div", &["class", " a  b "]).simple_selector(), ".a.b");
        assert_eq!(node("p", &["class", "note"]).simple_selector(), "p.note");
        assert_eq!(
            node("input", &["type", "text"]).simple_selector(),
            "input[type=\"text\"]"
        );
        assert_eq!(node("p", &["id", "1x"]).simple_selector(), "p#\\31 x");
        assert_eq!(node("p", &["id", "a.b"]).simple_selector(), "p#a\\.b");
    }

    #[test]
    fn the_chain_runs_from_a_text_node_up_through_shadow_hosts_to_its_document() {
        let doc = json!({"root": {"nodeType": 9, "backendNodeId": 1, "children": [
            {"nodeType": 1, "nodeId": 2, "backendNodeId": 2, "localName": "html", "children": [
                {"nodeType": 1, "nodeId": 3, "backendNodeId": 3, "localName": "body", "children": [
                    {"nodeType": 1, "nodeId": 4, "backendNodeId": 4, "localName": "x-host", "shadowRoots": [
                        {"nodeType": 11, "backendNodeId": 5, "children": [
                            {"nodeType": 1, "nodeId": 6, "backendNodeId": 6, "localName": "p", "children": [
                                {"nodeType": 3, "nodeId": 7, "backendNodeId": 7}
                            ]}
                        ]}
                    ]}
                ]}
            ]}
        ]}});
        let (element, ancestors) = chain(&doc, 7).unwrap();
        assert_eq!(element.node_id, 6);
        let names: Vec<String> = ancestors.iter().map(Node::tag).collect();
        assert_eq!(names, ["x-host", "body", "html"]);
        assert!(chain(&doc, 99).is_none());
    }
}
