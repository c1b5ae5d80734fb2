//! A page's heap snapshot in progress: the file its chunks go to as they arrive. `Ctx` holds
//! one [`Captures`] per page.

use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;

/// A snapshot being written: where the page's chunks go.
pub(super) struct Capture {
    pub(super) path: PathBuf,
    pub(super) file: File,
    /// The first write that failed; the rest of the chunks are dropped.
    pub(super) failed: Option<io::Error>,
}

/// A page's snapshot in progress, if any.
#[derive(Default)]
pub(crate) struct Captures(Option<Capture>);

impl Captures {
    /// Whether a snapshot of the page is being taken.
    pub(super) fn busy(&self) -> bool {
        self.0.is_some()
    }

    pub(super) fn begin(&mut self, capture: Capture) {
        self.0 = Some(capture);
    }

    /// Writes a chunk of the snapshot to its file (nothing after a write failed).
    pub(super) fn write(&mut self, chunk: &str) {
        let Some(capture) = &mut self.0 else {
            return;
        };
        if capture.failed.is_none() {
            if let Err(e) = capture.file.write_all(chunk.as_bytes()) {
                capture.failed = Some(e);
            }
        }
    }

    /// Ends the snapshot in progress: its file closed, and the first write that failed.
    pub(super) fn end(&mut self) -> Option<(PathBuf, Option<io::Error>)> {
        let Capture {
            path,
            mut file,
            failed,
        } = self.0.take()?;
        let flushed = file.flush();
        drop(file);
        Some((path, failed.or(flushed.err())))
    }
}
