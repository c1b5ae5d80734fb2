//! The snapshots loaded so far, by the path they were asked for (made absolute), so that a
//! second question on a file answers without reading it again. Their total memory is bounded:
//! past the bound, the least recently used are dropped first.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::heap::Snapshot;

/// The most memory the cached snapshots hold together (the one just loaded always stays).
const BUDGET: usize = 2 << 30;

#[derive(Default)]
pub(crate) struct HeapSnapshots {
    entries: Vec<Entry>,
    clock: u64,
}

struct Entry {
    path: PathBuf,
    snapshot: Rc<Snapshot>,
    used: u64,
}

impl HeapSnapshots {
    pub(crate) fn get(&mut self, path: &Path) -> Option<Rc<Snapshot>> {
        self.clock += 1;
        let clock = self.clock;
        let e = self.entries.iter_mut().find(|e| e.path == path)?;
        e.used = clock;
        Some(e.snapshot.clone())
    }

    pub(crate) fn insert(&mut self, path: PathBuf, snapshot: Snapshot) -> Rc<Snapshot> {
        self.clock += 1;
        let snapshot = Rc::new(snapshot);
        self.entries.retain(|e| e.path != path);
        self.entries.push(Entry {
            path,
            snapshot: snapshot.clone(),
            used: self.clock,
        });
        self.shrink();
        snapshot
    }

    /// Forgets the snapshot of `path`; whether there was one.
    pub(crate) fn close(&mut self, path: &Path) -> bool {
        let before = self.entries.len();
        self.entries.retain(|e| e.path != path);
        self.entries.len() != before
    }

    fn shrink(&mut self) {
        let total = |entries: &[Entry]| entries.iter().map(|e| e.snapshot.bytes()).sum::<usize>();
        while self.entries.len() > 1 && total(&self.entries) > BUDGET {
            let newest = self.clock;
            let oldest = self
                .entries
                .iter()
                .enumerate()
                .filter(|(_, e)| e.used != newest)
                .min_by_key(|(_, e)| e.used)
                .map(|(i, _)| i);
            match oldest {
                Some(i) => drop(self.entries.remove(i)),
                None => break,
            }
        }
    }
}
