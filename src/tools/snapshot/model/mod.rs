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

mod ax;
mod dom;
mod extras;
mod format;
mod js_value;
mod props;
mod resolve;
mod tree;
mod uids;

pub(crate) use ax::iframe_backend_ids;
pub(crate) use dom::DomIndex;
pub(crate) use extras::ExtraElement;
pub(crate) use format::{format_saved, format_section};
pub(crate) use resolve::no_snapshot_message;
pub(crate) use uids::UidMap;

use extras::insert_extras;
use props::Prop;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::fmt;
use tree::{build_frame, order_postorder, preorder, Node};
use uids::IdAssigner;

/// One frame's `Accessibility.getFullAXTree` result.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FrameTree<'a> {
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
pub(crate) struct FrameOwner<'a> {
    pub frame_id: &'a str,
    pub backend_node_id: i64,
}

/// Everything one snapshot is built from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SnapshotInput<'a> {
    /// `frames[0]` is the main frame; the others are matched to `<iframe>` nodes by `owner`.
    pub frames: &'a [FrameTree<'a>],
    pub extras: &'a [ExtraElement],
    pub verbose: bool,
    /// The node selected in an attached DevTools Elements panel, if known.
    pub selected_backend_node_id: Option<i64>,
}

/// The snapshot could not be built: the main frame's tree is empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EmptyTree;

impl fmt::Display for EmptyTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The reference's wording.
        f.write_str("Failed to create accessibility snapshot")
    }
}

impl std::error::Error for EmptyTree {}

/// A finished snapshot: its text and the uid lookups tools need.
#[derive(Debug)]
pub(crate) struct Snapshot {
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

impl FrameInfo {
    fn of(frame: &FrameTree<'_>) -> FrameInfo {
        FrameInfo {
            target_id: frame.target_id.to_string(),
            frame_id: frame.frame_id.to_string(),
        }
    }
}

/// Builds the snapshot numbered `snapshot_id` (a server-wide counter starting at 1, as the
/// reference numbers them across all pages), reusing and updating the page's uids.
pub(crate) fn build(
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
    let mut seen_backend = assign_tree_uids(&mut nodes, root, &mut ids);
    let postorder = order_postorder(&nodes, root);
    let mut by_uid = uid_index(&nodes, &postorder);
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

    let mut snapshot = Snapshot {
        verbose: input.verbose,
        text: String::new(),
        nodes,
        root,
        by_uid,
        frames: input.frames.iter().map(FrameInfo::of).collect(),
        selected_uid: None,
    };
    let has_selected = input.selected_backend_node_id.is_some_and(|b| b != 0);
    if let Some(b) = input.selected_backend_node_id.filter(|_| has_selected) {
        snapshot.selected_uid = snapshot.find_backend(b, None).map(str::to_string);
    }
    snapshot.text = snapshot.render(has_selected);
    Ok(snapshot)
}

/// Gives every tree node its uid, in pre-order (options also get their value), and returns
/// the backend ids seen.
fn assign_tree_uids(nodes: &mut [Node], root: usize, ids: &mut IdAssigner) -> HashSet<i64> {
    let order = preorder(nodes, root);
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
    seen_backend
}

/// Uid -> node, filled in post-order with the last write winning: that is how the reference
/// resolves a uid that several nodes share.
fn uid_index(nodes: &[Node], postorder: &[usize]) -> HashMap<String, usize> {
    let mut by_uid: HashMap<String, usize> = HashMap::with_capacity(postorder.len());
    for &n in postorder {
        by_uid.insert(nodes[n].uid.clone(), n);
    }
    by_uid
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

    #[test]
    fn page_with_iframes_matches_reference_across_four_snapshots() {
        let doc = fixture_json("page.ax.json");
        let frames = frames(&doc);
        let mut uids = UidMap::default();
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
        let mut uids = UidMap::default();
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
        let s = snap(&frames(&doc), &[], false, 1, &mut UidMap::default());
        assert_text(&format_section(&s), &fixture("blank.1.txt"));
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
        let mut uids = UidMap::default();
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
}
