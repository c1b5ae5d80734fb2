//! Snapshot files being read. Reading and analysing a large snapshot takes seconds, so it
//! happens on a worker thread while the loop keeps serving: the finished `Snapshot` comes
//! back through a channel, and a `mio::Waker` registered on the loop's poll wakes the loop
//! to take it. A file asked for again while it is being read waits on that same read. At
//! most [`AT_ONCE`] files are read at once (each holds its columns in memory while it is
//! analysed); the others wait their turn.
//!
//! Without a waker (the server stepped by hand, with no loop to wake) files are read on the
//! spot.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;

use mio::Waker;

use crate::browser::CallId;
use crate::heap::Snapshot;

/// Files read at once, at most.
const AT_ONCE: usize = 2;

/// A file read, or why it could not be.
pub(crate) type Read = Result<Snapshot, String>;

/// What a call does with the snapshot once it is there.
pub(crate) type Then<H> = Box<dyn FnOnce(&mut H, CallId, Rc<Snapshot>)>;

/// A call waiting on a file: what it asked for, and what it does with the snapshot.
pub(crate) struct Waiter<H> {
    pub call: CallId,
    pub given: String,
    pub then: Then<H>,
}

pub(crate) struct Loads<W> {
    waker: Option<Arc<Waker>>,
    sender: Sender<(PathBuf, Read)>,
    receiver: Receiver<(PathBuf, Read)>,
    /// The files being read or waiting their turn, each with what waits on it.
    pending: Vec<Pending<W>>,
    running: usize,
}

struct Pending<W> {
    key: PathBuf,
    waiters: Vec<W>,
    /// The file still to read (`None` once its reader started).
    queued: Option<(File, Option<u64>)>,
}

impl<W> Default for Loads<W> {
    fn default() -> Self {
        let (sender, receiver) = channel();
        Loads {
            waker: None,
            sender,
            receiver,
            pending: Vec::new(),
            running: 0,
        }
    }
}

impl<W> Loads<W> {
    /// From now on files are read on worker threads, and `waker` wakes the loop when one is.
    pub(crate) fn use_waker(&mut self, waker: Waker) {
        self.waker = Some(Arc::new(waker));
    }

    /// Whether files are read beside the loop (else on the spot, with [`read`]).
    pub(crate) fn threaded(&self) -> bool {
        self.waker.is_some()
    }

    /// `waiter` waits on the read of `key` already under way; it is handed back when there
    /// is none.
    pub(crate) fn join(&mut self, key: &Path, waiter: W) -> Result<(), W> {
        match self.pending.iter_mut().find(|p| p.key == key) {
            Some(p) => {
                p.waiters.push(waiter);
                Ok(())
            }
            None => Err(waiter),
        }
    }

    /// Reads `file` (of `size` bytes, when known) as `key`, for `waiter`.
    pub(crate) fn start(&mut self, key: PathBuf, file: File, size: Option<u64>, waiter: W) {
        self.pending.push(Pending {
            key,
            waiters: vec![waiter],
            queued: Some((file, size)),
        });
        self.start_queued();
    }

    /// The reads finished since the last look, each with what waited on it; the next files
    /// in line are started.
    pub(crate) fn finished(&mut self) -> Vec<(PathBuf, Read, Vec<W>)> {
        let mut done = Vec::new();
        while let Ok((key, read)) = self.receiver.try_recv() {
            self.running = self.running.saturating_sub(1);
            let Some(i) = self.pending.iter().position(|p| p.key == key) else {
                continue;
            };
            let p = self.pending.remove(i);
            done.push((key, read, p.waiters));
        }
        self.start_queued();
        done
    }

    fn start_queued(&mut self) {
        let Some(waker) = self.waker.clone() else {
            return;
        };
        while self.running < AT_ONCE {
            let Some(p) = self.pending.iter_mut().find(|p| p.queued.is_some()) else {
                return;
            };
            let Some((file, size)) = p.queued.take() else {
                return;
            };
            self.running += 1;
            let key = p.key.clone();
            let sender = self.sender.clone();
            let reader = std::thread::Builder::new()
                .name("heap snapshot reader".into())
                .spawn({
                    let (key, sender, waker) = (key.clone(), sender.clone(), waker.clone());
                    move || {
                        let _ = sender.send((key, read(file, size)));
                        let _ = waker.wake();
                    }
                });
            if let Err(e) = reader {
                let _ = sender.send((key, Err(format!("no thread to read it: {e}"))));
                let _ = waker.wake();
            }
        }
    }
}

/// Reads and analyses a snapshot file.
pub(crate) fn read(file: File, size: Option<u64>) -> Read {
    Snapshot::read(file, size)
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::time::Duration;

    use mio::{Events, Poll, Token};

    use super::*;

    fn snapshot_file(dir: &Path, name: &str) -> File {
        let path = dir.join(name);
        let meta = r#"{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],"node_types":[["hidden","object","synthetic"]],"edge_fields":["type","name_or_index","to_node"],"edge_types":[["element","property"]]},"node_count":2,"edge_count":1},"nodes":[2,0,1,0,1,1,1,3,16,0],"edges":[0,0,5],"strings":["","Leak"]}"#;
        let mut f = File::create(&path).unwrap();
        f.write_all(meta.as_bytes()).unwrap();
        File::open(&path).unwrap()
    }

    /// Three files asked for at once: two are read, the third waits its turn, and every one
    /// comes back through the waker with its waiters.
    #[test]
    fn at_most_two_files_are_read_at_once_and_each_comes_back_through_the_waker() {
        let dir = std::env::temp_dir().join(format!("heap-loads-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut poll = Poll::new().unwrap();
        let mut loads = Loads::<u32>::default();
        loads.use_waker(Waker::new(poll.registry(), Token(1)).unwrap());
        for (i, name) in ["a", "b", "c"].iter().enumerate() {
            let key = PathBuf::from(name);
            let file = snapshot_file(&dir, &format!("{name}.heapsnapshot"));
            loads.start(key, file, None, i as u32);
        }
        assert!(
            loads.join(Path::new("c"), 7).is_ok(),
            "c is pending: its waiter joins"
        );
        assert_eq!(loads.running, AT_ONCE);
        let queued = loads.pending.iter().filter(|p| p.queued.is_some()).count();
        assert_eq!(queued, 1);
        let mut done = Vec::new();
        let mut events = Events::with_capacity(4);
        while done.len() < 3 {
            poll.poll(&mut events, Some(Duration::from_secs(30)))
                .unwrap();
            assert!(!events.is_empty(), "no wake within 30 s");
            for (key, read, waiters) in loads.finished() {
                assert!(read.is_ok(), "{key:?}: {:?}", read.err());
                done.push((key, waiters));
            }
        }
        done.sort();
        let c = (PathBuf::from("c"), vec![2, 7]);
        assert_eq!(done[2], c);
        assert_eq!(loads.running, 0);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
