//! Helpers for the snapshot unit tests: the fixtures in tests/fixtures/snapshot/ and small
//! hand-written accessibility trees.

use super::{build, ExtraElement, FrameOwner, FrameTree, Snapshot, SnapshotInput, UidMap};
use serde_json::{json, Value};
use std::collections::HashMap;

pub(super) fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/snapshot/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

pub(super) fn fixture_json(name: &str) -> Value {
    serde_json::from_str(&fixture(name)).expect("fixture is JSON")
}

pub(super) fn frames(doc: &Value) -> Vec<FrameTree<'_>> {
    let list = doc["frames"].as_array().expect("frames");
    list.iter()
        .map(|f| FrameTree {
            target_id: f["targetId"].as_str().expect("targetId"),
            frame_id: f["frameId"].as_str().expect("frameId"),
            loader_id: f["loaderId"].as_str().expect("loaderId"),
            nodes: f["nodes"].as_array().expect("nodes"),
            owner: f["owner"].as_array().map(|o| FrameOwner {
                frame_id: o[0].as_str().expect("owner frame"),
                backend_node_id: o[1].as_i64().expect("owner node"),
            }),
        })
        .collect()
}

pub(super) fn snap(
    frames: &[FrameTree<'_>],
    extras: &[ExtraElement],
    verbose: bool,
    id: u64,
    uids: &mut UidMap,
) -> Snapshot {
    let input = SnapshotInput {
        frames,
        extras,
        verbose,
        selected_backend_node_id: None,
    };
    build(&input, id, uids).expect("snapshot")
}

/// Asserts equality with a readable first difference (the texts are long).
pub(super) fn assert_text(actual: &str, expected: &str) {
    if actual != expected {
        let line = actual
            .lines()
            .zip(expected.lines())
            .position(|(a, e)| a != e)
            .unwrap_or(actual.lines().count().min(expected.lines().count()));
        panic!(
            "differs at line {}:\n  ours: {:?}\n  ref:  {:?}\n--- ours ---\n{actual}",
            line + 1,
            actual.lines().nth(line),
            expected.lines().nth(line)
        );
    }
}

/// How many elements have a remembered uid.
pub(super) fn remembered(uids: &UidMap) -> usize {
    uids.tree.values().map(HashMap::len).sum::<usize>() + uids.extra.len()
}

/// A single-frame input from hand-written nodes.
pub(super) fn main_only(nodes: &[Value]) -> [FrameTree<'_>; 1] {
    [FrameTree {
        target_id: "T",
        frame_id: "F",
        loader_id: "L1",
        nodes,
        owner: None,
    }]
}

pub(super) fn ax(
    id: &str,
    role: &str,
    name: &str,
    children: &[&str],
    backend: Option<i64>,
) -> Value {
    let mut n = json!({
        "nodeId": id,
        "ignored": false,
        "role": {"type": "role", "value": role},
        "name": {"type": "computedString", "value": name},
        "properties": [],
        "childIds": children,
    });
    if let Some(b) = backend {
        n["backendDOMNodeId"] = json!(b);
    }
    n
}

pub(super) fn with_prop(mut node: Value, name: &str, value: Value) -> Value {
    node["properties"]
        .as_array_mut()
        .expect("properties")
        .push(json!({"name": name, "value": {"type": "x", "value": value}}));
    node
}

pub(super) fn text_of(nodes: &[Value], verbose: bool) -> String {
    let frames = main_only(nodes);
    snap(&frames, &[], verbose, 1, &mut UidMap::default()).text
}
