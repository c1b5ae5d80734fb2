//! The snapshot as tool responses show it: the text tree (one line per node, the reference's
//! wording) and the structured-content JSON.

use super::js_value::{json_number, strip_js_whitespace};
use super::props::Prop;
use super::tree::{order_postorder, Node};
use super::Snapshot;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// The heading line of the snapshot section in a tool response.
pub(super) const SECTION_HEADING: &str = "## Latest page snapshot";

/// The snapshot section of a tool response, as the reference prints it (heading, then the tree).
pub(crate) fn format_section(snapshot: &Snapshot) -> String {
    let mut out = String::with_capacity(SECTION_HEADING.len() + 1 + snapshot.text.len());
    out.push_str(SECTION_HEADING);
    out.push('\n');
    out.push_str(&snapshot.text);
    out
}

/// The response line when the snapshot was written to a file instead.
pub(crate) fn format_saved(path: &str) -> String {
    format!("Saved snapshot to {path}.")
}

impl Snapshot {
    /// The tree as the reference's structured content (`structuredContent.snapshot`).
    pub(crate) fn to_json(&self) -> Value {
        // Built bottom-up without recursion: trees can be deep.
        let post = order_postorder(&self.nodes, self.root);
        let mut done: HashMap<usize, Value> = HashMap::with_capacity(post.len());
        for &n in &post {
            let node = &self.nodes[n];
            let mut obj = Map::new();
            obj.insert("id".into(), Value::String(node.uid.clone()));
            if !node.role.is_empty() {
                obj.insert("role".into(), Value::String(node.role.clone()));
            }
            if !node.name.is_empty() {
                obj.insert("name".into(), Value::String(node.name.clone()));
            }
            for (key, prop) in &node.props {
                match prop {
                    Prop::Bool(b) => {
                        if let Some(mapped) = capability_of(key) {
                            obj.insert(mapped.into(), Value::Bool(true));
                        }
                        if *b {
                            obj.insert((*key).into(), Value::Bool(true));
                        }
                    }
                    Prop::Num(num) => {
                        obj.insert((*key).into(), Value::Number(num.clone()));
                    }
                    Prop::Str(s) => {
                        obj.insert((*key).into(), Value::String(s.clone()));
                    }
                }
            }
            let children: Vec<Value> = node
                .children
                .iter()
                .filter_map(|c| done.remove(c))
                .collect();
            if !children.is_empty() {
                obj.insert("children".into(), Value::Array(children));
            }
            done.insert(n, Value::Object(obj));
        }
        done.remove(&self.root).unwrap_or(Value::Null)
    }

    pub(super) fn render(&self, has_selected: bool) -> String {
        let mut out = String::new();
        if !self.verbose && has_selected && self.selected_uid.is_none() {
            out.push_str(
                "Note: there is a selected element in the DevTools Elements panel but it is not \
                 included into the current a11y tree snapshot.\nGet a verbose snapshot to include \
                 all elements if you are interested in the selected element.\n\n",
            );
        }
        let mut stack = vec![(self.root, 0usize)];
        while let Some((n, depth)) = stack.pop() {
            let node = &self.nodes[n];
            for _ in 0..depth {
                out.push_str("  ");
            }
            self.render_line(node, &mut out);
            if self.selected_uid.as_deref() == Some(node.uid.as_str()) {
                out.push_str(" [selected in the DevTools Elements panel]");
            }
            out.push('\n');
            if !self.text_children_redundant(node) {
                for &c in node.children.iter().rev() {
                    stack.push((c, depth + 1));
                }
            }
        }
        out
    }

    /// One line: uid, role, quoted name, then the properties in sorted order, where a boolean
    /// state also announces its capability (`disabled` -> `disableable disabled`).
    fn render_line(&self, node: &Node, out: &mut String) {
        out.push_str("uid=");
        out.push_str(&node.uid);
        if !node.role.is_empty() && node.role != "StaticText" {
            out.push(' ');
            out.push_str(if node.role == "none" {
                "ignored"
            } else {
                &node.role
            });
        }
        if !node.name.is_empty() {
            out.push_str(" \"");
            out.push_str(&node.name);
            out.push('"');
        }
        let is_option = node.role == "option";
        for (key, prop) in &node.props {
            match prop {
                Prop::Bool(b) => {
                    if let Some(mapped) = capability_of(key) {
                        // Options are all selectable; the reference leaves that out.
                        if !(is_option && mapped == "selectable") {
                            out.push(' ');
                            out.push_str(mapped);
                        }
                    }
                    if *b {
                        out.push(' ');
                        out.push_str(key);
                    }
                }
                Prop::Str(s) => {
                    if is_option && *key == "value" && *s == node.name {
                        continue;
                    }
                    out.push(' ');
                    out.push_str(key);
                    out.push_str("=\"");
                    out.push_str(s);
                    out.push('"');
                }
                Prop::Num(num) => {
                    out.push(' ');
                    out.push_str(key);
                    out.push_str("=\"");
                    out.push_str(&json_number(num));
                    out.push('"');
                }
            }
        }
    }

    /// A named node whose children are only text that repeats its name prints without them
    /// (non-verbose only): `link "Home"` rather than `link "Home"` plus a `"Home"` line.
    fn text_children_redundant(&self, node: &Node) -> bool {
        if self.verbose || node.name.is_empty() || node.children.is_empty() {
            return false;
        }
        let mut text = String::new();
        for &c in &node.children {
            let child = &self.nodes[c];
            if child.role != "StaticText"
                || !child.children.is_empty()
                || self.selected_uid.as_deref() == Some(child.uid.as_str())
            {
                return false;
            }
            text.push_str(&child.name);
        }
        strip_js_whitespace(&text) == strip_js_whitespace(&node.name)
    }
}

/// The capability a boolean state implies, printed before it.
fn capability_of(key: &str) -> Option<&'static str> {
    match key {
        "disabled" => Some("disableable"),
        "expanded" => Some("expandable"),
        "focused" => Some("focusable"),
        "selected" => Some("selectable"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::tools::snapshot::model::test_support::*;
    use crate::tools::snapshot::model::{build, SnapshotInput, UidMap};
    use serde_json::json;

    #[test]
    fn structured_content_matches_reference() {
        let doc = fixture_json("edge-a.ax.json");
        let s1 = snap(&frames(&doc), &[], false, 1, &mut UidMap::default());
        assert_eq!(s1.to_json(), fixture_json("edge.1.structured.json"));
    }

    #[test]
    fn redundant_text_children_compare_without_whitespace() {
        let link = |name: &str, text: &str| {
            [
                with_prop(
                    ax("1", "RootWebArea", "T", &["2"], Some(1)),
                    "focusable",
                    json!(true),
                ),
                with_prop(
                    ax("2", "link", name, &["3"], Some(2)),
                    "focusable",
                    json!(true),
                ),
                ax("3", "StaticText", text, &[], Some(3)),
            ]
        };
        // Same text apart from (JavaScript) whitespace: the child is hidden, its uid still used.
        assert_eq!(
            text_of(&link("Read more", "Read\u{a0} more\n"), false),
            "uid=1_0 RootWebArea \"T\"\n  uid=1_1 link \"Read more\"\n"
        );
        // Different text: shown.
        assert_eq!(
            text_of(&link("Label", "Text"), false),
            "uid=1_0 RootWebArea \"T\"\n  uid=1_1 link \"Label\"\n    uid=1_2 \"Text\"\n"
        );
    }

    #[test]
    fn properties_print_in_sorted_order_with_capabilities() {
        let mut input = ax("2", "textbox", "Field", &[], Some(2));
        input["value"] = json!({"type": "string", "value": "typed \"text\""});
        input["description"] = json!({"type": "computedString", "value": "Help"});
        for (name, value) in [
            ("focusable", json!(true)),
            ("focused", json!(true)),
            ("disabled", json!(false)),
            ("required", json!(true)),
            ("invalid", json!("false")),
            ("autocomplete", json!("list")),
            ("level", json!(2.0)),
            ("valuemax", json!(1e21)),
            ("valuemin", json!(-0.000_000_5)),
            ("errormessage", json!(null)),
        ] {
            input = with_prop(input, name, value);
        }
        let mut root = ax("1", "RootWebArea", "T", &["2", "3", "4"], Some(1));
        root = with_prop(root, "focusable", json!(true));
        root = with_prop(root, "focused", json!(true));
        let mixed = with_prop(
            ax("3", "checkbox", "Mixed", &[], Some(3)),
            "checked",
            json!("mixed"),
        );
        let pressed = with_prop(
            ax("4", "button", "Off", &[], Some(4)),
            "pressed",
            json!("false"),
        );
        assert_eq!(
            text_of(&[root, input, mixed, pressed], false),
            "uid=1_0 RootWebArea \"T\"\n  \
             uid=1_1 textbox \"Field\" autocomplete=\"list\" description=\"Help\" disableable focusable focused level=\"2\" required value=\"typed \"text\"\" valuemax=\"1e+21\" valuemin=\"-5e-7\"\n  \
             uid=1_2 checkbox \"Mixed\" checked=\"mixed\"\n  \
             uid=1_3 button \"Off\"\n"
        );
    }

    #[test]
    fn options_use_their_text_as_value_and_ignored_nodes_say_so() {
        let nodes = [
            with_prop(
                ax("1", "RootWebArea", "T", &["2", "5"], Some(1)),
                "focusable",
                json!(true),
            ),
            ax("2", "listbox", "Pick", &["3", "4"], Some(2)),
            with_prop(
                ax("3", "option", "One", &[], Some(3)),
                "selected",
                json!(true),
            ),
            with_prop(
                ax("4", "option", "Two", &[], Some(4)),
                "selected",
                json!(false),
            ),
            ax("5", "none", "", &[], Some(5)),
        ];
        let frames = main_only(&nodes);
        let s = snap(&frames, &[], true, 1, &mut UidMap::default());
        assert_eq!(
            s.text,
            "uid=1_0 RootWebArea \"T\"\n  uid=1_1 listbox \"Pick\"\n    uid=1_2 option \"One\" selected\n    uid=1_3 option \"Two\"\n  uid=1_4 ignored\n"
        );
        assert_eq!(s.to_json()["children"][0]["children"][0]["value"], "One");
    }

    #[test]
    fn devtools_selection_is_marked_or_noted() {
        let nodes = [
            with_prop(
                ax("1", "RootWebArea", "T", &["2", "3"], Some(1)),
                "focusable",
                json!(true),
            ),
            ax("2", "button", "Go", &[], Some(2)),
            ax("3", "generic", "", &[], Some(3)),
        ];
        let frames = main_only(&nodes);
        let mut input = SnapshotInput {
            frames: &frames,
            extras: &[],
            verbose: false,
            selected_backend_node_id: Some(2),
        };
        let s = build(&input, 1, &mut UidMap::default()).expect("snapshot");
        assert_eq!(s.selected_uid.as_deref(), Some("1_1"));
        assert_eq!(
            s.text,
            "uid=1_0 RootWebArea \"T\"\n  uid=1_1 button \"Go\" [selected in the DevTools Elements panel]\n"
        );
        input.selected_backend_node_id = Some(3);
        let s = build(&input, 2, &mut UidMap::default()).expect("snapshot");
        assert!(s.text.starts_with(
            "Note: there is a selected element in the DevTools Elements panel but it is not included into the current a11y tree snapshot.\nGet a verbose snapshot to include all elements if you are interested in the selected element.\n\nuid=2_0"
        ));
    }
}
