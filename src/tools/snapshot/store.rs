//! What snapshots keep, per page: the latest snapshot, the uid memory that keeps uids stable
//! between snapshots of one document, and the elements a page tool returned; and the
//! server-wide count that numbers snapshots.

use super::model;
use crate::browser::PageId;
use crate::tools::per_page::PerPage;

#[derive(Default)]
pub(crate) struct Snapshots {
    pages: PerPage<PageSnapshots>,
    /// One snapshot counter for the whole server, as the reference numbers them.
    counter: u64,
}

#[derive(Default)]
pub(super) struct PageSnapshots {
    pub latest: Option<model::Snapshot>,
    pub uids: model::UidMap,
    /// DOM elements (backend ids) a page tool returned: snapshots show them (this document).
    pub extra_elements: Vec<i64>,
}

impl Snapshots {
    /// The page's latest snapshot, if it has one for its current document.
    pub(crate) fn latest(&self, page: PageId) -> Option<&model::Snapshot> {
        self.pages.get(page).and_then(|p| p.latest.as_ref())
    }

    pub(super) fn page(&mut self, page: PageId) -> &mut PageSnapshots {
        self.pages.entry(page)
    }

    /// The next snapshot's number.
    pub(super) fn next_id(&mut self) -> u64 {
        self.counter += 1;
        self.counter
    }

    /// A new document (or a crash): its snapshot and returned elements are void. The uid
    /// memory stays: the loader id is part of its key.
    pub(crate) fn new_document(&mut self, page: PageId) {
        let p = self.pages.entry(page);
        p.latest = None;
        p.extra_elements.clear();
    }

    pub(crate) fn remove(&mut self, page: PageId) {
        self.pages.remove(page);
    }
}
