//! Process-table helpers (Linux `/proc`), so tests can prove that shutting the server down
//! leaves no browser process and no temporary profile behind.
//!
//! Why more than a walk down from the server's pid: when the server exits, its surviving children
//! are re-parented to init and no longer show up as its descendants, and Chromium's crash handler
//! (chrome_crashpad_handler) double-forks into its own session from the start and does not carry
//! the profile directory on its command line. The harness therefore tags each server with an
//! environment variable ([`find_by_env`]), which every process it starts inherits.

use std::fs;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// One process as read from `/proc/<pid>/stat` and `/proc/<pid>/cmdline`.
#[derive(Clone, Debug)]
pub struct Proc {
    /// Process id.
    pub pid: u32,
    /// Parent process id.
    pub ppid: u32,
    /// The short command name (`comm`), e.g. `chromium`.
    pub comm: String,
    /// Single-letter state: R, S, D, Z (zombie), ...
    pub state: char,
    /// The argument vector (empty for kernel threads and zombies).
    pub cmdline: Vec<String>,
}

impl Proc {
    /// Read one process; `None` if it does not exist (or vanished while being read).
    pub fn read(pid: u32) -> Option<Proc> {
        let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // `pid (comm) state ppid ...`; comm may itself contain spaces and parentheses, so split at
        // the last ')'.
        let open = stat.find('(')?;
        let close = stat.rfind(')')?;
        let comm = stat.get(open + 1..close)?.to_string();
        let mut rest = stat.get(close + 1..)?.split_whitespace();
        let state = rest.next()?.chars().next()?;
        let ppid = rest.next()?.parse().ok()?;
        let cmdline = fs::read(format!("/proc/{pid}/cmdline"))
            .map(|raw| {
                raw.split(|b| *b == 0)
                    .filter(|a| !a.is_empty())
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect()
            })
            .unwrap_or_default();
        Some(Proc {
            pid,
            ppid,
            comm,
            state,
            cmdline,
        })
    }

    /// The whole command line joined with spaces.
    pub fn command(&self) -> String {
        self.cmdline.join(" ")
    }
}

/// Every process currently in `/proc`.
pub fn all() -> Vec<Proc> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(Proc::read)
        .collect()
}

/// The direct children of `pid` (by their `ppid`).
pub fn children(pid: u32) -> Vec<Proc> {
    all().into_iter().filter(|p| p.ppid == pid).collect()
}

/// All descendants of `pid` (children, grandchildren, ...), parents before their children.
pub fn descendants(pid: u32) -> Vec<Proc> {
    let table = all();
    let mut out: Vec<Proc> = Vec::new();
    let mut frontier = vec![pid];
    while let Some(parent) = frontier.pop() {
        for p in table.iter().filter(|p| p.ppid == parent) {
            if !out.iter().any(|o| o.pid == p.pid) {
                frontier.push(p.pid);
                out.push(p.clone());
            }
        }
    }
    out
}

/// True while `pid` exists and is not a zombie (a zombie has exited; it only awaits reaping).
pub fn alive(pid: u32) -> bool {
    Proc::read(pid).is_some_and(|p| p.state != 'Z')
}

/// Live processes (not zombies) whose command line contains `needle`, excluding this test
/// process itself.
pub fn find_by_cmdline(needle: &str) -> Vec<Proc> {
    let me = std::process::id();
    all()
        .into_iter()
        .filter(|p| p.pid != me && p.state != 'Z' && p.command().contains(needle))
        .collect()
}

/// Live processes (not zombies) whose environment contains exactly the entry `name=value`,
/// excluding this test process. Environments are inherited through every fork and exec — also by
/// Chromium's crash handler, which double-forks into its own session and names neither its parent
/// nor the profile — so a variable set on the server finds everything it ever started.
pub fn find_by_env(name: &str, value: &str) -> Vec<Proc> {
    let me = std::process::id();
    let entry = format!("{name}={value}");
    all()
        .into_iter()
        .filter(|p| p.pid != me && p.state != 'Z')
        .filter(|p| {
            fs::read(format!("/proc/{}/environ", p.pid))
                .map(|raw| raw.split(|b| *b == 0).any(|e| e == entry.as_bytes()))
                .unwrap_or(false)
        })
        .collect()
}

/// The `--user-data-dir=` values on the command lines of `pid`'s descendants (deduplicated), i.e.
/// the profile directories of the browsers the server launched.
pub fn user_data_dirs(pid: u32) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for p in descendants(pid) {
        for arg in &p.cmdline {
            if let Some(dir) = arg.strip_prefix("--user-data-dir=") {
                let dir = PathBuf::from(dir);
                if !dirs.contains(&dir) {
                    dirs.push(dir);
                }
            }
        }
    }
    dirs
}

/// Poll until `done()` holds or `timeout` passes; returns whether it held.
pub fn wait_until(timeout: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        if done() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Send `signal` (`libc::SIGTERM`, `libc::SIGKILL`, ...) to each pid. Errors — typically "no
/// such process" — are ignored. Through libc, not the `kill` command, so the harness does not
/// depend on procps being installed.
pub fn signal(pids: &[u32], signal: libc::c_int) {
    for &pid in pids {
        if let Ok(pid) = libc::pid_t::try_from(pid) {
            // SAFETY: kill(2) only reads its two integer arguments.
            unsafe { libc::kill(pid, signal) };
        }
    }
}

/// Send `signal` to every process in the process group `leader` leads (a browser started in
/// its own group: its zygotes, renderers and utilities too). Errors are ignored.
pub fn signal_group(leader: u32, signal: libc::c_int) {
    if let Ok(pgid) = libc::pid_t::try_from(leader) {
        // SAFETY: as above; a negative pid names the process group.
        unsafe { libc::kill(-pgid, signal) };
    }
}
