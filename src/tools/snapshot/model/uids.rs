//! Uids: the per-page memory that keeps them stable between snapshots, and handing them out
//! for one snapshot.

use super::FrameTree;
use std::collections::HashMap;

/// Per-page uid memory. Keep one per page for its whole life: it is what keeps uids stable
/// between snapshots. New document loads need no reset: the loader id is part of the key, and
/// whatever a snapshot did not see is forgotten.
#[derive(Debug, Default)]
pub(crate) struct UidMap {
    /// Per document load (loader id): backend node id -> uid (`None`: nodes without one).
    pub(super) tree: HashMap<String, HashMap<Option<i64>, String>>,
    /// Extra elements, by backend node id.
    pub(super) extra: HashMap<i64, String>,
}

/// Hands out uids for one snapshot: the remembered one if the element had one in the
/// previous snapshot, else the next `<snapshot>_<n>`. Only the elements seen now are kept.
pub(super) struct IdAssigner {
    snapshot_id: u64,
    next: u64,
    /// One per distinct loader id among the frames.
    docs: Vec<DocUids>,
    /// Frame index -> its entry in `docs`.
    frame_doc: Vec<usize>,
    old_extra: HashMap<i64, String>,
    extra: HashMap<i64, String>,
}

struct DocUids {
    loader_id: String,
    old: HashMap<Option<i64>, String>,
    seen: HashMap<Option<i64>, String>,
}

impl IdAssigner {
    pub(super) fn new(snapshot_id: u64, frames: &[FrameTree<'_>], uids: &mut UidMap) -> IdAssigner {
        let mut docs: Vec<DocUids> = Vec::new();
        let mut frame_doc = Vec::with_capacity(frames.len());
        for f in frames {
            let at = match docs.iter().position(|d| d.loader_id == f.loader_id) {
                Some(at) => at,
                None => {
                    docs.push(DocUids {
                        loader_id: f.loader_id.to_string(),
                        old: uids.tree.remove(f.loader_id).unwrap_or_default(),
                        seen: HashMap::new(),
                    });
                    docs.len() - 1
                }
            };
            frame_doc.push(at);
        }
        IdAssigner {
            snapshot_id,
            next: 0,
            docs,
            frame_doc,
            old_extra: std::mem::take(&mut uids.extra),
            extra: HashMap::new(),
        }
    }

    fn fresh(&mut self) -> String {
        let uid = format!("{}_{}", self.snapshot_id, self.next);
        self.next += 1;
        uid
    }

    pub(super) fn tree_uid(&mut self, frame: usize, backend_node_id: Option<i64>) -> String {
        let d = self.frame_doc[frame];
        if let Some(uid) = self.docs[d].seen.get(&backend_node_id) {
            return uid.clone();
        }
        let uid = match self.docs[d].old.remove(&backend_node_id) {
            Some(uid) => uid,
            None => self.fresh(),
        };
        self.docs[d].seen.insert(backend_node_id, uid.clone());
        uid
    }

    pub(super) fn extra_seen(&self, backend_node_id: i64) -> bool {
        self.extra.contains_key(&backend_node_id)
    }

    pub(super) fn extra_uid(&mut self, backend_node_id: i64) -> String {
        let uid = match self.old_extra.remove(&backend_node_id) {
            Some(uid) => uid,
            None => self.fresh(),
        };
        self.extra.insert(backend_node_id, uid.clone());
        uid
    }

    /// Stores what this snapshot saw as the page's uid memory (documents not in it are gone).
    pub(super) fn finish(self, uids: &mut UidMap) {
        uids.tree = self
            .docs
            .into_iter()
            .filter(|d| !d.seen.is_empty())
            .map(|d| (d.loader_id, d.seen))
            .collect();
        uids.extra = self.extra;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::snapshot::model::resolve::UidError;
    use crate::tools::snapshot::model::test_support::*;
    use serde_json::json;

    #[test]
    fn uid_kept_while_element_stays_and_renewed_after_it_leaves() {
        let root = |kids: &[&str]| {
            with_prop(
                ax("1", "RootWebArea", "Doc", kids, Some(1)),
                "focusable",
                json!(true),
            )
        };
        let a = ax("2", "button", "A", &[], Some(2));
        let b = ax("3", "button", "B", &[], Some(3));
        let mut uids = UidMap::default();
        let both = [root(&["2", "3"]), a.clone(), b.clone()];
        let only_b = [root(&["3"]), b.clone()];
        let s1 = snap(&main_only(&both), &[], false, 1, &mut uids);
        assert_eq!(s1.uid_for_backend(2), Some("1_1"));
        let s2 = snap(&main_only(&only_b), &[], false, 2, &mut uids);
        assert_eq!(s2.uid_for_backend(3), Some("1_2"));
        assert_eq!(s2.resolve("1_1"), Err(UidError::NotFound));
        // A came back: it was not in the previous snapshot, so it gets a new uid.
        let s3 = snap(&main_only(&both), &[], false, 3, &mut uids);
        assert_eq!(s3.uid_for_backend(2), Some("3_0"));
        assert_eq!(s3.uid_for_backend(3), Some("1_2"));
        // Another document load: new uids for everything.
        let frames = [FrameTree {
            loader_id: "L2",
            ..main_only(&both)[0]
        }];
        let s4 = snap(&frames, &[], false, 4, &mut uids);
        assert_eq!(
            s4.text,
            "uid=4_0 RootWebArea \"Doc\"\n  uid=4_1 button \"A\"\n  uid=4_2 button \"B\"\n"
        );
        assert_eq!(remembered(&uids), 3);
    }

    #[test]
    fn nodes_without_dom_node_share_a_uid_per_document() {
        let nodes = [
            with_prop(
                ax("1", "RootWebArea", "T", &["2", "3"], Some(1)),
                "focusable",
                json!(true),
            ),
            ax("2", "InlineTextBox", "a", &[], None),
            ax("3", "InlineTextBox", "b", &[], None),
        ];
        assert_eq!(
            text_of(&nodes, true),
            "uid=1_0 RootWebArea \"T\"\n  uid=1_1 InlineTextBox \"a\"\n  uid=1_1 InlineTextBox \"b\"\n"
        );
    }
}
