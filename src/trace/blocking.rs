//! Total Blocking Time from a trace, as Lighthouse defines it: over the main thread's
//! top-level tasks from FCP to TTI, the sum of each task's part over 50 ms (a task is
//! clipped to that span first). TTI here is the end of the last long task before the first
//! 5 s without one after FCP; Lighthouse also wants at most two requests in flight in that
//! window, which this does not check. Without such a window (the trace stops sooner) the
//! span runs to the trace's end.

use super::event::At;

/// A task shorter than this blocks nothing (µs).
const THRESHOLD: f64 = 50_000.0;
/// The quiet window that makes the page interactive (µs).
const QUIET: f64 = 5_000_000.0;

/// Long `RunTask` slices, the only tasks TBT and TTI look at: (pid, tid, ts, dur).
#[derive(Clone, Debug, Default)]
pub(super) struct LongTasks {
    tasks: Vec<(i64, i64, f64, f64)>,
}

impl LongTasks {
    pub(super) fn take(&mut self, ph: &str, at: At, dur: Option<f64>) {
        match (ph, dur) {
            ("X", Some(dur)) if dur > THRESHOLD => self.tasks.push((at.pid, at.tid, at.ts, dur)),
            _ => {}
        }
    }

    /// TBT from `fcp` to TTI on the thread of `at` (the navigation's), TTI at the latest at
    /// `end`.
    pub(super) fn blocking(&self, at: At, fcp: f64, end: f64) -> Blocking {
        let tasks = self.on_thread(at.pid, at.tid);
        let (to, interactive) = interactive(&tasks, fcp, end);
        Blocking {
            total: sum(&tasks, fcp, to),
            from: fcp,
            to,
            interactive,
        }
    }

    /// The top-level long tasks of one thread, by start (a task inside another is not one).
    fn on_thread(&self, pid: i64, tid: i64) -> Vec<(f64, f64)> {
        let mut tasks: Vec<(f64, f64)> = self
            .tasks
            .iter()
            .filter(|t| t.0 == pid && t.1 == tid)
            .map(|t| (t.2, t.2 + t.3))
            .collect();
        tasks.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut top: Vec<(f64, f64)> = Vec::new();
        for task in tasks {
            if top.last().is_none_or(|last| task.0 >= last.1) {
                top.push(task);
            }
        }
        top
    }
}

/// A navigation's TBT and the span it was summed over (µs, absolute).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Blocking {
    pub total: f64,
    pub from: f64,
    pub to: f64,
    /// Whether `to` is TTI (false: the trace ended first).
    pub interactive: bool,
}

/// The end of the last long task before the first quiet window after `fcp`.
fn interactive(tasks: &[(f64, f64)], fcp: f64, end: f64) -> (f64, bool) {
    let mut quiet_from = fcp;
    for (start, stop) in tasks.iter().filter(|t| t.1 > fcp) {
        if start - quiet_from >= QUIET {
            return (quiet_from, true);
        }
        quiet_from = quiet_from.max(*stop);
    }
    if end - quiet_from >= QUIET {
        (quiet_from, true)
    } else {
        (end, false)
    }
}

/// Lighthouse's `calculateSumOfBlockingTime`.
fn sum(tasks: &[(f64, f64)], from: f64, to: f64) -> f64 {
    if to <= from {
        return 0.0;
    }
    tasks
        .iter()
        .filter(|(start, stop)| *stop >= from && *start <= to)
        .map(|(start, stop)| stop.min(to) - start.max(from))
        .filter(|clipped| *clipped >= THRESHOLD)
        .fold(0.0, |total, clipped| total + clipped - THRESHOLD)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: f64 = 1000.0;

    #[test]
    fn only_the_part_after_fcp_and_over_50_ms_blocks() {
        // A task straddling FCP counts from FCP; one of 40 ms after FCP counts nothing.
        let tasks = [
            (0.0, 300.0 * MS),
            (400.0 * MS, 440.0 * MS),
            (500.0 * MS, 620.0 * MS),
        ];
        assert_eq!(
            sum(&tasks, 200.0 * MS, 10_000.0 * MS),
            50.0 * MS + 70.0 * MS
        );
        assert_eq!(sum(&tasks, 200.0 * MS, 100.0 * MS), 0.0);
        // Nothing blocking is +0, which prints as 0.
        assert!(sum(&[], 0.0, MS).is_sign_positive());
    }

    #[test]
    fn tti_is_the_end_of_the_last_long_task_before_five_quiet_seconds() {
        let tasks = [(1_000.0 * MS, 1_100.0 * MS), (7_000.0 * MS, 7_200.0 * MS)];
        assert_eq!(
            interactive(&tasks, 500.0 * MS, 20_000.0 * MS),
            (1_100.0 * MS, true)
        );
        // No quiet window before the trace ends: the span runs to the end.
        assert_eq!(
            interactive(&tasks[..1], 500.0 * MS, 4_000.0 * MS),
            (4_000.0 * MS, false)
        );
        // So the task after TTI does not count.
        assert_eq!(sum(&tasks, 500.0 * MS, 1_100.0 * MS), 50.0 * MS);
    }

    #[test]
    fn nested_long_slices_are_one_task() {
        let mut long = LongTasks::default();
        let at = |ts: f64| At {
            index: 0,
            ts,
            pid: 1,
            tid: 1,
        };
        long.take("X", at(0.0), Some(200.0 * MS));
        long.take("X", at(10.0 * MS), Some(100.0 * MS));
        long.take("X", at(300.0 * MS), Some(60.0 * MS));
        long.take("X", at(500.0 * MS), Some(10.0 * MS));
        assert_eq!(
            long.on_thread(1, 1),
            vec![(0.0, 200.0 * MS), (300.0 * MS, 360.0 * MS)]
        );
    }
}
