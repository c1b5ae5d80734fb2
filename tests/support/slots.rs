//! A machine-wide cap on how many real servers (and so browsers) tests run at once.
//!
//! Why: the machine has 2 cores and is shared; `cargo test` runs tests on parallel threads and
//! nextest runs them in parallel processes, and a dozen Chromiums at once make every timing
//! assertion flaky. Slots are `flock`ed files under the temp dir, so the cap holds across threads,
//! test binaries and concurrent test runs alike; the kernel releases a lock when its holder dies,
//! so a crashed test never leaks a slot.
//!
//! A thread holds at most one slot: a test that starts a second server on the same thread shares
//! the first one's slot. So no test ever holds a slot while waiting for another, and slots can
//! never deadlock.

use std::cell::RefCell;
use std::fs::{self, File, OpenOptions};
use std::sync::{Arc, Weak};
use std::thread;
use std::time::Duration;

/// Default number of servers that may run at once, machine-wide.
pub const DEFAULT_SLOTS: usize = 2;

/// Environment variable overriding [`DEFAULT_SLOTS`] (a number ≥ 1).
pub const SLOTS_ENV: &str = "DEVTOOLS_MCP_TEST_SLOTS";

/// A held slot; the lock is released when the last clone is dropped.
#[derive(Debug)]
pub struct Slot {
    _file: Option<File>,
}

thread_local! {
    static HELD: RefCell<Weak<Slot>> = const { RefCell::new(Weak::new()) };
}

fn slot_count() -> usize {
    std::env::var(SLOTS_ENV)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n >= 1)
        .unwrap_or(DEFAULT_SLOTS)
}

/// Take a slot, waiting as long as it takes; reuses the slot this thread already holds.
pub fn acquire() -> Arc<Slot> {
    if let Some(held) = HELD.with(|h| h.borrow().upgrade()) {
        return held;
    }
    let dir = std::env::temp_dir().join("devtools-mcp-tests");
    let _ = fs::create_dir_all(&dir);
    let count = slot_count();
    loop {
        let mut opened_any = false;
        for index in 0..count {
            let path = dir.join(format!("server-slot-{index}.lock"));
            let Ok(file) = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
            else {
                continue;
            };
            opened_any = true;
            if file.try_lock().is_ok() {
                let slot = Arc::new(Slot { _file: Some(file) });
                HELD.with(|h| *h.borrow_mut() = Arc::downgrade(&slot));
                return slot;
            }
        }
        if !opened_any {
            // No usable temp dir: run uncapped rather than hang.
            return Arc::new(Slot { _file: None });
        }
        thread::sleep(Duration::from_millis(50));
    }
}
