//! One CDP accessibility node (`Accessibility.getFullAXTree`), read once: the facts that
//! decide whether a non-verbose snapshot keeps it, and the node it prints as.

use super::js_value::{js_string, truthy};
use super::props::properties;
use serde_json::Value;

/// Backend node ids of the `<iframe>` nodes in one frame's tree: the frames whose trees the
/// caller should fetch (`DOM.describeNode` gives the content frame id) and pass as `owner`ed
/// [`FrameTree`](super::FrameTree)s.
pub(crate) fn iframe_backend_ids(nodes: &[Value]) -> Vec<i64> {
    nodes
        .iter()
        .filter(|n| n.pointer("/role/value").and_then(Value::as_str) == Some("Iframe"))
        .filter_map(|n| n.get("backendDOMNodeId").and_then(Value::as_i64))
        .collect()
}

/// A CDP AX node with the facts the filtering needs, read once.
pub(super) struct RawNode<'a> {
    pub(super) payload: &'a Value,
    pub(super) role: String,
    ignored: bool,
    has_name: bool,
    has_description: bool,
    pub(super) focusable: bool,
    editable: bool,
    richly_editable: bool,
    hidden: bool,
    busy: bool,
    live: bool,
    modal: bool,
    roledescription: bool,
    errormessage: bool,
    details: bool,
    pub(super) backend_node_id: Option<i64>,
    pub(super) children: Vec<usize>,
}

impl<'a> RawNode<'a> {
    pub(super) fn new(payload: &'a Value) -> RawNode<'a> {
        let role = match payload.get("role") {
            Some(role) => js_string(role.get("value")),
            None => "Unknown".to_string(),
        };
        let mut node = RawNode {
            payload,
            role,
            ignored: truthy(payload.get("ignored")),
            has_name: truthy(payload.get("name").and_then(|v| v.get("value"))),
            has_description: truthy(payload.get("description").and_then(|v| v.get("value"))),
            focusable: false,
            editable: false,
            richly_editable: false,
            hidden: false,
            busy: false,
            live: false,
            modal: false,
            roledescription: false,
            errormessage: false,
            details: false,
            backend_node_id: payload.get("backendDOMNodeId").and_then(Value::as_i64),
            children: Vec::new(),
        };
        for (name, value) in properties(payload) {
            match name {
                "editable" => {
                    node.richly_editable = value.and_then(Value::as_str) == Some("richtext");
                    node.editable = true;
                }
                "focusable" => node.focusable = truthy(value),
                "hidden" => node.hidden = truthy(value),
                "busy" => node.busy = truthy(value),
                "live" => node.live = truthy(value) && value.and_then(Value::as_str) != Some("off"),
                "modal" => node.modal = truthy(value),
                "roledescription" => node.roledescription = truthy(value),
                "errormessage" => node.errormessage = true,
                "details" => node.details = true,
                _ => {}
            }
        }
        node
    }

    pub(super) fn is_control(&self) -> bool {
        matches!(
            self.role.as_str(),
            "button"
                | "checkbox"
                | "ColorWell"
                | "combobox"
                | "DisclosureTriangle"
                | "listbox"
                | "menu"
                | "menubar"
                | "menuitem"
                | "menuitemcheckbox"
                | "menuitemradio"
                | "radio"
                | "scrollbar"
                | "searchbox"
                | "slider"
                | "spinbutton"
                | "switch"
                | "tab"
                | "textbox"
                | "tree"
                | "treeitem"
        )
    }

    fn is_landmark(&self) -> bool {
        matches!(
            self.role.as_str(),
            "banner"
                | "complementary"
                | "contentinfo"
                | "form"
                | "main"
                | "navigation"
                | "region"
                | "search"
        )
    }

    /// Nodes whose subtree is summed up by the node itself.
    pub(super) fn is_leaf(&self, has_focusable_descendant: bool) -> bool {
        if self.children.is_empty() {
            return true;
        }
        let plain_text_field = !self.richly_editable
            && (self.editable || self.role == "textbox" || self.role == "searchbox");
        let text_only = matches!(
            self.role.as_str(),
            "LineBreak" | "text" | "InlineTextBox" | "StaticText"
        );
        if plain_text_field || text_only {
            return true;
        }
        if matches!(
            self.role.as_str(),
            "doc-cover"
                | "graphics-symbol"
                | "img"
                | "image"
                | "Meter"
                | "scrollbar"
                | "slider"
                | "separator"
                | "progressbar"
        ) {
            return true;
        }
        if has_focusable_descendant {
            return false;
        }
        self.role == "heading" && self.has_name
    }

    pub(super) fn is_interesting(&self, inside_control: bool, is_leaf: bool) -> bool {
        if self.role == "Ignored" || self.hidden || self.ignored {
            return false;
        }
        if self.is_landmark() {
            return true;
        }
        if self.focusable
            || self.richly_editable
            || self.busy
            || self.live
            || self.modal
            || self.errormessage
            || self.details
            || self.roledescription
            || self.is_control()
        {
            return true;
        }
        if inside_control {
            return false;
        }
        is_leaf && (self.has_name || self.has_description)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::snapshot::model::test_support::*;
    use serde_json::json;

    #[test]
    fn filtering_keeps_controls_landmarks_and_named_leaves() {
        let nodes = [
            with_prop(
                ax("1", "RootWebArea", "T", &["2", "5", "7"], Some(1)),
                "focusable",
                json!(true),
            ),
            ax("2", "generic", "", &["3"], Some(2)),
            ax("3", "button", "Press", &["4"], Some(3)),
            ax("4", "StaticText", "Press", &[], Some(4)),
            ax("5", "navigation", "", &["6"], Some(5)),
            ax("6", "StaticText", "nav text", &[], Some(6)),
            with_prop(
                ax("7", "generic", "", &["8"], Some(7)),
                "hidden",
                json!(true),
            ),
            ax("8", "heading", "Hidden heading", &[], Some(8)),
        ];
        assert_eq!(
            text_of(&nodes, false),
            "uid=1_0 RootWebArea \"T\"\n  uid=1_1 button \"Press\"\n  uid=1_2 navigation\n    uid=1_3 \"nav text\"\n  uid=1_4 heading \"Hidden heading\"\n"
        );
        // Verbose keeps every node and prints text children even when they repeat the name.
        assert_eq!(
            text_of(&nodes, true),
            "uid=1_0 RootWebArea \"T\"\n  uid=1_1 generic\n    uid=1_2 button \"Press\"\n      uid=1_3 \"Press\"\n  uid=1_4 navigation\n    uid=1_5 \"nav text\"\n  uid=1_6 generic\n    uid=1_7 heading \"Hidden heading\"\n"
        );
    }

    #[test]
    fn iframe_backend_ids_lists_iframe_nodes() {
        let doc = fixture_json("page.ax.json");
        let main = doc["frames"][0]["nodes"].as_array().expect("nodes");
        assert_eq!(iframe_backend_ids(main), vec![105, 106]);
    }
}
