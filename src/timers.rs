//! Deadlines for the event loop: call timeouts, grace periods, bounded waits.
//!
//! A timer is a boxed action run on the loop when its deadline passes. Cancelling removes the
//! action; its heap entry is skipped when it surfaces.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::time::{Duration, Instant};

pub(crate) type TimerId = u64;

pub(crate) struct Timers<A> {
    heap: BinaryHeap<Reverse<(Instant, TimerId)>>,
    actions: HashMap<TimerId, A>,
    next_id: TimerId,
}

impl<A> Default for Timers<A> {
    fn default() -> Self {
        Timers {
            heap: BinaryHeap::new(),
            actions: HashMap::new(),
            next_id: 1,
        }
    }
}

impl<A> Timers<A> {
    pub(crate) fn add(&mut self, after: Duration, action: A) -> TimerId {
        let id = self.next_id;
        self.next_id += 1;
        self.heap.push(Reverse((Instant::now() + after, id)));
        self.actions.insert(id, action);
        id
    }

    pub(crate) fn cancel(&mut self, id: TimerId) {
        self.actions.remove(&id);
    }

    /// The next live deadline.
    pub(crate) fn next_deadline(&mut self) -> Option<Instant> {
        while let Some(Reverse((when, id))) = self.heap.peek().copied() {
            if self.actions.contains_key(&id) {
                return Some(when);
            }
            self.heap.pop();
        }
        None
    }

    /// Removes and returns one action whose deadline has passed.
    pub(crate) fn pop_due(&mut self, now: Instant) -> Option<A> {
        while let Some(Reverse((when, id))) = self.heap.peek().copied() {
            if when > now {
                return None;
            }
            self.heap.pop();
            if let Some(action) = self.actions.remove(&id) {
                return Some(action);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn due_in_order_and_cancel() {
        let mut t = Timers::default();
        let a = t.add(Duration::from_millis(0), "a");
        t.add(Duration::from_millis(0), "b");
        t.add(Duration::from_secs(60), "late");
        t.cancel(a);
        let now = Instant::now() + Duration::from_millis(1);
        assert_eq!(t.pop_due(now), Some("b"));
        assert_eq!(t.pop_due(now), None);
        assert!(t.next_deadline().unwrap() > Instant::now() + Duration::from_secs(50));
    }
}
