//! The accessibility snapshot behind `take_snapshot`: CDP accessibility trees in, the text tree
//! agents read out, with a uid on every line that later tools use to target the element.
//!
//! The output matches chrome-devtools-mcp 1.11 byte for byte, which means following what its
//! pipeline (puppeteer's `Accessibility.snapshot` + its own uid assignment and formatter) does
//! with the data of `Accessibility.getFullAXTree`:
//!
//! * Non-verbose snapshots keep only "interesting" nodes: landmarks, controls, focusable or live
//!   nodes, and named leaves outside controls. Verbose snapshots keep every node.
//! * Each `<iframe>` node gets its document's tree (fetched by the caller) as its last child.
//! * Uids look like `<snapshot id>_<n>`. A uid is kept for as long as the same DOM node (same
//!   document load, same backend node id) appears in every snapshot of the page, so an agent's
//!   uids stay valid across snapshots; a new document load gives fresh uids. Nodes that have no
//!   DOM node (inline text boxes, pseudo-element text) all share one uid per document: that is
//!   what the reference prints, and such uids cannot target anything anyway.
//! * DOM elements returned by page tools that are not in the tree ("extra elements") are
//!   inserted under their nearest ancestor in the tree, printed with their tag name.
//!
//! Everything here is pure: the caller fetches trees and DOM data over CDP.

mod dom;
mod js_value;
mod resolve;
mod uids;

pub use dom::DomIndex;
pub use resolve::no_snapshot_message;
pub use uids::UidMap;

use uids::IdAssigner;

use js_value::{js_name, js_number, js_string, strip_js_whitespace, truthy};
use serde_json::{Map, Number, Value};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

/// The heading line of the snapshot section in a tool response.
pub const SECTION_HEADING: &str = "## Latest page snapshot";

/// One frame's `Accessibility.getFullAXTree` result.
#[derive(Debug, Clone, Copy)]
pub struct FrameTree<'a> {
    /// The CDP target the tree was fetched from (the page, or an out-of-process iframe).
    /// Backend node ids are only unique within one renderer, so lookups are scoped by it.
    pub target_id: &'a str,
    pub frame_id: &'a str,
    /// The frame's current loader id: part of the uid key, so a new document gets new uids.
    pub loader_id: &'a str,
    /// The `nodes` array; the first node is the root.
    pub nodes: &'a [Value],
    /// Where this document hangs: the `<iframe>` element's backend node id in the parent frame.
    /// `None` for the main frame.
    pub owner: Option<FrameOwner<'a>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameOwner<'a> {
    pub frame_id: &'a str,
    pub backend_node_id: i64,
}

/// A DOM element to show even when the accessibility tree leaves it out (an element a page tool
/// returned). Build one with [`DomIndex::extra_element`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtraElement {
    pub backend_node_id: i64,
    /// Printed as the role, e.g. `div`.
    pub local_name: String,
    /// Backend ids of the parent-element chain, nearest first.
    pub ancestors: Vec<i64>,
    /// Backend ids of every node below it (light DOM): tree nodes among them move under it.
    pub descendants: HashSet<i64>,
}

/// Everything one snapshot is built from.
#[derive(Debug, Clone, Copy)]
pub struct SnapshotInput<'a> {
    /// `frames[0]` is the main frame; the others are matched to `<iframe>` nodes by `owner`.
    pub frames: &'a [FrameTree<'a>],
    pub extras: &'a [ExtraElement],
    pub verbose: bool,
    /// The node selected in an attached DevTools Elements panel, if known.
    pub selected_backend_node_id: Option<i64>,
}

/// The snapshot could not be built: the main frame's tree is empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmptyTree;

impl fmt::Display for EmptyTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The reference's wording.
        f.write_str("Failed to create accessibility snapshot")
    }
}

impl std::error::Error for EmptyTree {}

/// A finished snapshot: its text and the uid lookups tools need.
#[derive(Debug)]
pub struct Snapshot {
    pub verbose: bool,
    /// The tree as printed, one node per line, ending with a newline.
    pub text: String,
    nodes: Vec<Node>,
    root: usize,
    by_uid: HashMap<String, usize>,
    frames: Vec<FrameInfo>,
    selected_uid: Option<String>,
}

#[derive(Debug)]
struct FrameInfo {
    target_id: String,
    frame_id: String,
}

/// A node as printed. `props` holds the printable properties by name: sorted, since the
/// reference prints them in sorted key order.
#[derive(Debug)]
struct Node {
    uid: String,
    role: String,
    name: String,
    props: BTreeMap<&'static str, Prop>,
    backend_node_id: Option<i64>,
    frame: usize,
    children: Vec<usize>,
}

/// A property value as JavaScript would see it. Values of other types are never printed, so
/// they are not kept.
#[derive(Debug, Clone, PartialEq)]
enum Prop {
    Bool(bool),
    Num(Number),
    Str(String),
}

/// Builds the snapshot numbered `snapshot_id` (a server-wide counter starting at 1, as the
/// reference numbers them across all pages), reusing and updating the page's uids.
pub fn build(
    input: &SnapshotInput<'_>,
    snapshot_id: u64,
    uids: &mut UidMap,
) -> Result<Snapshot, EmptyTree> {
    let mut nodes = Vec::new();
    let mut used = vec![false; input.frames.len()];
    if input.frames.is_empty() {
        return Err(EmptyTree);
    }
    let root =
        build_frame(input.frames, 0, input.verbose, &mut used, &mut nodes).ok_or(EmptyTree)?;

    let mut ids = IdAssigner::new(snapshot_id, input.frames, uids);
    let order = preorder(&nodes, root);
    let mut seen_backend: HashSet<i64> = HashSet::new();
    for &n in &order {
        let node = &mut nodes[n];
        node.uid = ids.tree_uid(node.frame, node.backend_node_id);
        if let Some(b) = node.backend_node_id {
            seen_backend.insert(b);
        }
        // Chrome gives options no value; the reference uses their text as the value.
        if node.role == "option" && !node.name.is_empty() {
            let name = node.name.clone();
            node.props.insert("value", Prop::Str(name));
        }
    }

    // Uid -> node, filled in post-order with the last write winning: that is how the
    // reference resolves a uid that several nodes share.
    let postorder = order_postorder(&nodes, root);
    let mut by_uid: HashMap<String, usize> = HashMap::with_capacity(postorder.len());
    for &n in &postorder {
        by_uid.insert(nodes[n].uid.clone(), n);
    }

    if !input.extras.is_empty() {
        insert_extras(
            input.extras,
            &mut nodes,
            root,
            &postorder,
            &mut ids,
            &mut seen_backend,
            &mut by_uid,
        );
    }
    // Uids of elements missing from this snapshot are forgotten.
    ids.finish(uids);

    let frames = input
        .frames
        .iter()
        .map(|f| FrameInfo {
            target_id: f.target_id.to_string(),
            frame_id: f.frame_id.to_string(),
        })
        .collect();
    let mut snapshot = Snapshot {
        verbose: input.verbose,
        text: String::new(),
        nodes,
        root,
        by_uid,
        frames,
        selected_uid: None,
    };
    let has_selected = input.selected_backend_node_id.is_some_and(|b| b != 0);
    if let Some(b) = input.selected_backend_node_id.filter(|_| has_selected) {
        snapshot.selected_uid = snapshot.find_backend(b, None).map(str::to_string);
    }
    snapshot.text = snapshot.render(has_selected);
    Ok(snapshot)
}

/// Backend node ids of the `<iframe>` nodes in one frame's tree: the frames whose trees the
/// caller should fetch (`DOM.describeNode` gives the content frame id) and pass as `owner`ed
/// [`FrameTree`]s.
pub fn iframe_backend_ids(nodes: &[Value]) -> Vec<i64> {
    nodes
        .iter()
        .filter(|n| n.pointer("/role/value").and_then(Value::as_str) == Some("Iframe"))
        .filter_map(|n| n.get("backendDOMNodeId").and_then(Value::as_i64))
        .collect()
}

/// The snapshot section of a tool response, as the reference prints it (heading, then the tree).
pub fn format_section(snapshot: &Snapshot) -> String {
    let mut out = String::with_capacity(SECTION_HEADING.len() + 1 + snapshot.text.len());
    out.push_str(SECTION_HEADING);
    out.push('\n');
    out.push_str(&snapshot.text);
    out
}

/// The response line when the snapshot was written to a file instead.
pub fn format_saved(path: &str) -> String {
    format!("Saved snapshot to {path}.")
}

impl Snapshot {
    /// The tree as the reference's structured content (`structuredContent.snapshot`).
    pub fn to_json(&self) -> Value {
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

    fn render(&self, has_selected: bool) -> String {
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
                    out.push_str(&js_number(num));
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

/// Puts each extra element under its nearest ancestor in the tree (or the root), taking over
/// the tree nodes that are its descendants, as the reference does.
fn insert_extras(
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
}

/// Pre-order node list (children in order).
fn preorder(nodes: &[Node], root: usize) -> Vec<usize> {
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
fn order_postorder(nodes: &[Node], root: usize) -> Vec<usize> {
    let mut order = Vec::with_capacity(nodes.len());
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        order.push(n);
        stack.extend(nodes[n].children.iter().copied());
    }
    order.reverse();
    order
}

// ---------------------------------------------------------------------------------------------
// From CDP nodes to the printed tree (what puppeteer's Accessibility.snapshot does).

/// A CDP AX node with the facts the filtering needs, read once.
struct RawNode<'a> {
    payload: &'a Value,
    role: String,
    ignored: bool,
    has_name: bool,
    has_description: bool,
    focusable: bool,
    editable: bool,
    richly_editable: bool,
    hidden: bool,
    busy: bool,
    live: bool,
    modal: bool,
    roledescription: bool,
    errormessage: bool,
    details: bool,
    backend_node_id: Option<i64>,
    children: Vec<usize>,
}

impl<'a> RawNode<'a> {
    fn new(payload: &'a Value) -> RawNode<'a> {
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

    fn is_control(&self) -> bool {
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
    fn is_leaf(&self, has_focusable_descendant: bool) -> bool {
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

    fn is_interesting(&self, inside_control: bool, is_leaf: bool) -> bool {
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

    /// The printable node: which CDP properties become which printed keys, and how.
    fn to_node(&self, frame: usize, children: Vec<usize>) -> Node {
        // Property names compare lower-cased and the last one wins; name, value and
        // description come from the payload's own fields when it has them. `None`: absent;
        // `Some(None)`: present without a value.
        let listed: Vec<(&str, Option<&Value>)> = properties(self.payload).collect();
        let get = |key: &str| -> Option<Option<&Value>> {
            if matches!(key, "name" | "value" | "description") {
                if let Some(v) = self.payload.get(key) {
                    return Some(v.get("value"));
                }
            }
            listed
                .iter()
                .rev()
                .find(|(name, _)| name.eq_ignore_ascii_case(key))
                .map(|(_, v)| *v)
        };

        let mut props = BTreeMap::new();
        let mut name = String::new();
        if let Some(v) = get("name") {
            name = js_name(v);
        }
        for key in [
            "value",
            "description",
            "keyshortcuts",
            "roledescription",
            "valuetext",
            "url",
        ] {
            if let Some(prop) = get(key).and_then(as_prop) {
                props.insert(key, prop);
            }
        }
        for key in [
            "disabled",
            "expanded",
            "focused",
            "modal",
            "multiline",
            "multiselectable",
            "readonly",
            "required",
            "selected",
            "busy",
            "atomic",
        ] {
            if key == "focused" && self.role == "RootWebArea" {
                continue;
            }
            if let Some(v) = get(key) {
                props.insert(key, Prop::Bool(truthy(v)));
            }
        }
        for key in ["checked", "pressed"] {
            if let Some(v) = get(key) {
                let prop = match v.and_then(Value::as_str) {
                    Some("mixed") => Prop::Str("mixed".into()),
                    Some("true") => Prop::Bool(true),
                    _ => Prop::Bool(false),
                };
                props.insert(key, prop);
            }
        }
        for key in ["level", "valuemax", "valuemin"] {
            if let Some(prop) = get(key).and_then(as_prop) {
                props.insert(key, prop);
            }
        }
        for key in [
            "autocomplete",
            "haspopup",
            "invalid",
            "orientation",
            "live",
            "relevant",
            "errormessage",
            "details",
        ] {
            let v = get(key).flatten();
            if !truthy(v) || v.and_then(Value::as_str) == Some("false") {
                continue;
            }
            if let Some(prop) = as_prop(v) {
                props.insert(key, prop);
            }
        }
        Node {
            uid: String::new(),
            role: self.role.clone(),
            name,
            props,
            backend_node_id: self.backend_node_id,
            frame,
            children,
        }
    }
}

/// `(name, value.value)` of each entry in a payload's `properties`.
fn properties(payload: &Value) -> impl Iterator<Item = (&str, Option<&Value>)> {
    payload
        .get("properties")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| {
            let name = p.get("name")?.as_str()?;
            Some((name, p.get("value").and_then(|v| v.get("value"))))
        })
}

/// Builds one frame's printed subtree (with its iframes' subtrees attached) into `out`, and
/// returns its root. `None` when the frame has no tree or nothing in it survives filtering.
fn build_frame(
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
            out.push(raw[level.raw].to_node(frame, children));
            vec![out.len() - 1]
        };
        match stack.last_mut() {
            Some(parent) => parent.emitted.extend(produced),
            None => return produced,
        }
    }
    Vec::new()
}

/// A property value kept for printing: strings, numbers and booleans only.
fn as_prop(v: Option<&Value>) -> Option<Prop> {
    match v? {
        Value::Bool(b) => Some(Prop::Bool(*b)),
        Value::Number(n) => Some(Prop::Num(n.clone())),
        Value::String(s) => Some(Prop::Str(s.clone())),
        _ => None,
    }
}

#[cfg(test)]
mod test_support;

#[cfg(test)]
mod tests {
    //! Fixture trees were captured from headless Chromium (getFullAXTree per frame) on the pages
    //! in tests/fixtures/snapshot/, while chrome-devtools-mcp 1.11 snapshotted the same pages in
    //! the same browser; the `.txt` files are its responses, compared byte for byte.
    use super::test_support::*;
    use super::*;
    use serde_json::json;

    #[test]
    fn page_with_iframes_matches_reference_across_four_snapshots() {
        let doc = fixture_json("page.ax.json");
        let frames = frames(&doc);
        let mut uids = UidMap::new();
        let first = fixture("page.1.txt");
        // The reference took: plain, plain, verbose, plain; uids carry over between them.
        let s1 = snap(&frames, &[], false, 1, &mut uids);
        assert_text(&format_section(&s1), &first);
        let s2 = snap(&frames, &[], false, 2, &mut uids);
        assert_text(&format_section(&s2), &first);
        let s3 = snap(&frames, &[], true, 3, &mut uids);
        assert_text(&format_section(&s3), &fixture("page.3.verbose.txt"));
        let s4 = snap(&frames, &[], false, 4, &mut uids);
        assert_text(&format_section(&s4), &first);
    }

    #[test]
    fn edge_cases_page_matches_reference_and_reload_gives_new_uids() {
        let before = fixture_json("edge-a.ax.json");
        let after_reload = fixture_json("edge-c.ax.json");
        let mut uids = UidMap::new();
        let s1 = snap(&frames(&before), &[], false, 1, &mut uids);
        assert_text(&format_section(&s1), &fixture("edge.1.txt"));
        let s2 = snap(&frames(&before), &[], true, 2, &mut uids);
        assert_text(&format_section(&s2), &fixture("edge.2.verbose.txt"));
        let s3 = snap(&frames(&after_reload), &[], false, 3, &mut uids);
        assert_text(&format_section(&s3), &fixture("edge.3.txt"));
    }

    #[test]
    fn blank_page_matches_reference() {
        let doc = fixture_json("blank.ax.json");
        let s = snap(&frames(&doc), &[], false, 1, &mut UidMap::new());
        assert_text(&format_section(&s), &fixture("blank.1.txt"));
    }

    #[test]
    fn structured_content_matches_reference() {
        let doc = fixture_json("edge-a.ax.json");
        let s1 = snap(&frames(&doc), &[], false, 1, &mut UidMap::new());
        assert_eq!(s1.to_json(), fixture_json("edge.1.structured.json"));
    }

    /// Backend id of the DOM element with `id="<html_id>"` in a DOM.getDocument result.
    fn element_by_html_id(dom: &Value, html_id: &str) -> i64 {
        let mut stack = vec![&dom["root"]];
        while let Some(n) = stack.pop() {
            if let Some(attrs) = n["attributes"].as_array() {
                if attrs.chunks(2).any(|kv| kv[0] == "id" && kv[1] == html_id) {
                    return n["backendNodeId"].as_i64().expect("backendNodeId");
                }
            }
            for key in ["children", "shadowRoots"] {
                stack.extend(n[key].as_array().into_iter().flatten());
            }
        }
        panic!("no element #{html_id}");
    }

    fn element_by_tag(dom: &Value, tag: &str) -> i64 {
        let mut stack = vec![&dom["root"]];
        while let Some(n) = stack.pop() {
            if n["localName"] == tag {
                return n["backendNodeId"].as_i64().expect("backendNodeId");
            }
            stack.extend(n["children"].as_array().into_iter().flatten());
        }
        panic!("no <{tag}>");
    }

    #[test]
    fn dom_changes_and_tool_elements_match_reference() {
        let mut uids = UidMap::new();
        let a = fixture_json("dyn-a.ax.json");
        let s1 = snap(&frames(&a), &[], false, 1, &mut uids);
        assert_text(&format_section(&s1), &fixture("dyn.1.txt"));

        // Button A removed, button B added: B gets a new uid, the rest keep theirs.
        let b = fixture_json("dyn-b.ax.json");
        let s2 = snap(&frames(&b), &[], false, 2, &mut uids);
        assert_text(&format_section(&s2), &fixture("dyn.2.txt"));

        // A page tool returned {plain, h1, empty, wrap, hidden}: the reference snapshots once
        // to place them (id 3) and once for the response (id 4).
        let dom = fixture_json("dyn-c.dom.json");
        let index = DomIndex::from_document(&dom);
        let returned = [
            ("plain", element_by_html_id(&dom, "plain")),
            ("h1", element_by_tag(&dom, "h1")),
            ("empty", element_by_html_id(&dom, "empty")),
            ("wrap", element_by_html_id(&dom, "wrap")),
            ("hidden", element_by_html_id(&dom, "hidden")),
        ];
        let extras: Vec<ExtraElement> = returned
            .iter()
            .map(|(_, id)| index.extra_element(*id).expect("indexed"))
            .collect();
        let c = fixture_json("dyn-c.ax.json");
        let c_frames = frames(&c);
        let s3 = snap(&c_frames, &extras, false, 3, &mut uids);
        // The tool result as the reference prints it (JSON.stringify(result, null, 2)).
        let entries: Vec<String> = returned
            .iter()
            .map(|(key, id)| {
                let uid = s3.uid_for_backend(*id).expect("element has a uid");
                format!("  \"{key}\": {{\n    \"uid\": \"{uid}\"\n  }}")
            })
            .collect();
        let s4 = snap(&c_frames, &extras, false, 4, &mut uids);
        let response = format!("{{\n{}\n}}\n{}", entries.join(",\n"), format_section(&s4));
        assert_text(&response, &fixture("dyn.4.tool-result.txt"));

        // The elements stay in later snapshots, plain and verbose.
        let s5 = snap(&c_frames, &extras, false, 5, &mut uids);
        assert_text(&format_section(&s5), &fixture("dyn.5.txt"));
        let s6 = snap(&c_frames, &extras, true, 6, &mut uids);
        assert_text(&format_section(&s6), &fixture("dyn.6.verbose.txt"));

        // After a reload (new loader id) every uid is new. (The reference fails here: its
        // element handles died with the old document. Callers drop extras on navigation.)
        let d = fixture_json("dyn-d.ax.json");
        let s7 = snap(&frames(&d), &[], false, 7, &mut uids);
        for line in s7.text.lines() {
            assert!(line.trim_start().starts_with("uid=7_"), "{line}");
        }
        assert_eq!(remembered(&uids), s7.by_uid.len());
    }

    // --- formatting rules on small trees ---------------------------------------------------

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
        let s = snap(&frames, &[], true, 1, &mut UidMap::new());
        assert_eq!(
            s.text,
            "uid=1_0 RootWebArea \"T\"\n  uid=1_1 listbox \"Pick\"\n    uid=1_2 option \"One\" selected\n    uid=1_3 option \"Two\"\n  uid=1_4 ignored\n"
        );
        assert_eq!(s.to_json()["children"][0]["children"][0]["value"], "One");
    }

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
        let mut uids = UidMap::new();
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
        let s = build(&input, 1, &mut UidMap::new()).expect("snapshot");
        assert_eq!(s.selected_uid.as_deref(), Some("1_1"));
        assert_eq!(
            s.text,
            "uid=1_0 RootWebArea \"T\"\n  uid=1_1 button \"Go\" [selected in the DevTools Elements panel]\n"
        );
        input.selected_backend_node_id = Some(3);
        let s = build(&input, 2, &mut UidMap::new()).expect("snapshot");
        assert!(s.text.starts_with(
            "Note: there is a selected element in the DevTools Elements panel but it is not included into the current a11y tree snapshot.\nGet a verbose snapshot to include all elements if you are interested in the selected element.\n\nuid=2_0"
        ));
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
            &mut UidMap::new(),
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
        let s = snap(&frames, &[], false, 1, &mut UidMap::new());
        assert_eq!(s.text, "uid=1_0 RootWebArea \"T\"\n  uid=1_1 \"deep\"\n");
        assert_eq!(s.uid_for_backend(depth as i64), Some("1_1"));
    }

    #[test]
    fn iframe_backend_ids_lists_iframe_nodes() {
        let doc = fixture_json("page.ax.json");
        let main = doc["frames"][0]["nodes"].as_array().expect("nodes");
        assert_eq!(iframe_backend_ids(main), vec![105, 106]);
    }
}
