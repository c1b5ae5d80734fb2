//! What the main-thread insights read of an insight set: its frame and bounds, and which
//! threads are its main thread.

use std::collections::HashSet;

use crate::trace::event::Bounds;

/// The part of the trace an insight set covers, as the main-thread insights read it.
pub struct Context<'a> {
    pub frame: String,
    pub bounds: Bounds,
    pub navigation_pid: Option<i64>,
    pub main_tid: Option<i64>,
    pub main_threads: &'a HashSet<(i64, i64)>,
    pub renderers: &'a HashSet<i64>,
}

impl Context<'_> {
    /// A process that renders a frame.
    pub fn is_renderer(&self, pid: i64) -> bool {
        self.renderers.contains(&pid)
    }

    /// The navigation's main thread (DevTools compares thread ids only), or without a
    /// navigation the main threads of the main frame's renderers.
    pub fn is_main_thread(&self, pid: i64, tid: i64) -> bool {
        match self.main_tid {
            Some(main) => tid == main,
            None => self.main_threads.contains(&(pid, tid)),
        }
    }
}
