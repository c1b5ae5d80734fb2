//! What the main-thread insights read of an insight set: its frame and bounds, and which
//! threads are its main thread.

use std::collections::HashSet;

use crate::trace::event::Bounds;

/// The part of the trace an insight set covers, as the main-thread insights read it.
pub(super) struct Context<'a> {
    pub(super) frame: String,
    pub(super) bounds: Bounds,
    pub(super) navigation_pid: Option<i64>,
    pub(super) main_tid: Option<i64>,
    pub(super) main_threads: &'a HashSet<(i64, i64)>,
    pub(super) renderers: &'a HashSet<i64>,
}

impl Context<'_> {
    /// A process that renders a frame.
    pub(super) fn is_renderer(&self, pid: i64) -> bool {
        self.renderers.contains(&pid)
    }

    /// The navigation's main thread (DevTools compares thread ids only), or without a
    /// navigation the main threads of the main frame's renderers.
    pub(super) fn is_main_thread(&self, pid: i64, tid: i64) -> bool {
        match self.main_tid {
            Some(main) => tid == main,
            None => self.main_threads.contains(&(pid, tid)),
        }
    }
}
