//! Logging: stderr always, and `--logFile` when given. Never stdout (that is the protocol's).
//!
//! Lines are rate-limited per kind (the message's format string): a page can make the
//! server log (a frame calling the binding, say) as fast as it likes, and stderr must not
//! become the bottleneck. Past [`BURST`] lines of one kind within [`WINDOW`], lines of that
//! kind are counted instead of written; the next line of that kind written afterwards is
//! preceded by "(N similar lines suppressed)".

use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

static LOG_FILE: OnceLock<Mutex<File>> = OnceLock::new();
static KINDS: OnceLock<Mutex<HashMap<&'static str, Rate>>> = OnceLock::new();

/// Lines of one kind written per window before the rest are counted.
pub(crate) const BURST: u32 = 10;
pub(crate) const WINDOW: Duration = Duration::from_secs(1);

pub(crate) fn open_file(path: &str) -> Result<(), String> {
    let file = File::options()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("cannot open log file {path}: {e}"))?;
    let _ = LOG_FILE.set(Mutex::new(file));
    Ok(())
}

/// One kind's count in its current window.
struct Rate {
    start: Instant,
    written: u32,
    suppressed: u64,
}

impl Rate {
    /// Whether a line goes out now, and how many lines before it were suppressed (to say
    /// so first).
    fn admit(&mut self, now: Instant) -> (bool, u64) {
        if now.duration_since(self.start) >= WINDOW {
            self.start = now;
            self.written = 0;
        }
        if self.written >= BURST {
            self.suppressed += 1;
            return (false, 0);
        }
        self.written += 1;
        (true, std::mem::take(&mut self.suppressed))
    }
}

/// Writes `message` unless too many lines of `kind` went out just now.
pub(crate) fn write_kind(kind: &'static str, message: &str) {
    let now = Instant::now();
    let (admitted, suppressed) = match KINDS.get_or_init(Default::default).lock() {
        Ok(mut kinds) => kinds
            .entry(kind)
            .or_insert(Rate {
                start: now,
                written: 0,
                suppressed: 0,
            })
            .admit(now),
        Err(_) => (true, 0),
    };
    if !admitted {
        return;
    }
    if suppressed > 0 {
        write(&format!("({suppressed} similar lines suppressed)"));
    }
    write(message);
}

pub(crate) fn write(message: &str) {
    let line = format!("devtools-mcp: {message}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
    if let Some(file) = LOG_FILE.get() {
        if let Ok(mut f) = file.lock() {
            let _ = f.write_all(line.as_bytes());
        }
    }
}

/// `log!("format", args…)`: a line, rate-limited per format string.
macro_rules! log {
    ($fmt:literal $($arg:tt)*) => { $crate::log::write_kind($fmt, &format!($fmt $($arg)*)) };
}
pub(crate) use log;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_is_cut_and_the_next_line_says_how_many_went() {
        let t0 = Instant::now();
        let mut r = Rate {
            start: t0,
            written: 0,
            suppressed: 0,
        };
        let out: Vec<_> = (0..50).map(|_| r.admit(t0)).collect();
        assert_eq!(out.iter().filter(|(w, _)| *w).count(), BURST as usize);
        assert_eq!(r.admit(t0 + WINDOW), (true, 40));
        assert_eq!(r.admit(t0 + WINDOW), (true, 0));
    }
}
