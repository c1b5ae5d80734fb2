//! The server process's life: exit, signals, the processes and profiles it started, and the
//! cleanup (and failure report) when an [`Mcp`] is dropped.

use std::fs;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::thread;
use std::time::{Duration, Instant};

use super::inbox::lock;
use super::{procs, Mcp, TAG_ENV};

/// Most of the stderr log printed on failure (the tail is kept).
const STDERR_PRINT_BYTES: usize = 256 * 1024;
/// How long Drop lets the server shut down by itself (EOF on stdin) before killing it.
const GRACEFUL_EXIT: Duration = Duration::from_secs(3);

impl Mcp {
    /// Close the server's stdin (EOF) and wait for it to exit; panics if it has not exited within
    /// `timeout`. Returns the exit status.
    pub fn close_stdin_and_wait(&self, timeout: Duration) -> ExitStatus {
        self.close_stdin();
        self.wait_exit(timeout).unwrap_or_else(|| {
            panic!("devtools-mcp did not exit within {timeout:?} after stdin was closed")
        })
    }

    /// Close the server's stdin without waiting.
    pub fn close_stdin(&self) {
        lock(&self.shared.inbox).note(">>", "<EOF>");
        lock(&self.stdin).take();
    }

    /// Send SIGTERM to the server process (only the server, not its children).
    pub fn terminate(&self) {
        procs::signal(&[self.pid], libc::SIGTERM);
    }

    /// Wait up to `timeout` for the server to exit; `None` if it is still running.
    pub fn wait_exit(&self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.try_exit_status() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }

    /// The exit status if the server has exited (reaping it), else `None`.
    pub fn try_exit_status(&self) -> Option<ExitStatus> {
        lock(&self.child).try_wait().ok().flatten()
    }

    /// The server's live descendants (browser, renderers, ...), read from `/proc`.
    pub fn descendants(&self) -> Vec<procs::Proc> {
        procs::descendants(self.pid)
            .into_iter()
            .filter(|p| p.state != 'Z')
            .collect()
    }

    /// Live processes that inherited this server's [`TAG_ENV`] variable, however they were
    /// re-parented (Chromium's double-forked crash handlers among them). Excludes the server
    /// itself. Not complete on its own: Chromium's zygote scrubs the environment of the renderers
    /// it forks — see [`Mcp::started_processes`].
    pub fn tagged_processes(&self) -> Vec<procs::Proc> {
        procs::find_by_env(TAG_ENV, &self.tag)
            .into_iter()
            .filter(|p| p.pid != self.pid)
            .collect()
    }

    /// Every live process the server started that can be found: its descendants plus the tagged
    /// processes ([`Mcp::tagged_processes`]), without duplicates. Take this while the server runs
    /// and check each pid with [`procs::alive`] after shutdown.
    pub fn started_processes(&self) -> Vec<procs::Proc> {
        let mut all = self.descendants();
        for p in self.tagged_processes() {
            if !all.iter().any(|known| known.pid == p.pid) {
                all.push(p);
            }
        }
        all
    }

    /// The `--user-data-dir` of the browsers the server has launched (empty before the first
    /// launch). Remembered, so Drop can clean up after a server that had to be killed.
    pub fn user_data_dirs(&self) -> Vec<PathBuf> {
        let dirs = procs::user_data_dirs(self.pid);
        let mut seen = lock(&self.seen_profile_dirs);
        for d in &dirs {
            if !seen.contains(d) {
                seen.push(d.clone());
            }
        }
        dirs
    }

    fn print_failure_report(&self) {
        let transcript: Vec<String> = lock(&self.shared.inbox)
            .transcript
            .iter()
            .cloned()
            .collect();
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| {
                if a.chars().count() > 100 {
                    format!("{}…", a.chars().take(100).collect::<String>())
                } else {
                    a.clone()
                }
            })
            .collect();
        eprintln!(
            "----- devtools-mcp {:?} (pid {}) stdio, last {} lines -----",
            args,
            self.pid,
            transcript.len()
        );
        for line in transcript {
            eprintln!("{line}");
        }
        let log = fs::read(&self.stderr_path).unwrap_or_default();
        let start = log.len().saturating_sub(STDERR_PRINT_BYTES);
        eprintln!(
            "----- devtools-mcp stderr ({}, {} bytes{}) -----",
            self.stderr_path.display(),
            log.len(),
            if start > 0 { ", tail" } else { "" }
        );
        eprintln!("{}", String::from_utf8_lossy(&log[start..]));
        eprintln!("----- end of devtools-mcp stderr -----");
        if start == 0 {
            // Printed in full: the file has nothing more to tell.
            let _ = fs::remove_file(&self.stderr_path);
        }
    }

    /// Stop the server and everything it started; remove browser profiles it left behind.
    fn shut_down(&self) {
        // Learn the process tree while the server is still its root: once it exits, its
        // children are re-parented and can only be found by their tag or command line.
        let mut doomed: Vec<u32> = self.started_processes().iter().map(|p| p.pid).collect();
        self.user_data_dirs();
        // EOF is the normal way a client ends a session; let the server clean up itself.
        self.close_stdin();
        let graceful = self.wait_exit(GRACEFUL_EXIT).is_some();
        if !graceful {
            doomed.extend(procs::descendants(self.pid).iter().map(|p| p.pid));
            let _ = lock(&self.child).kill();
            let _ = lock(&self.child).wait();
        }
        doomed.extend(self.tagged_processes().iter().map(|p| p.pid));
        let dirs = lock(&self.seen_profile_dirs).clone();
        for dir in &dirs {
            if let Some(text) = dir.to_str() {
                doomed.extend(procs::find_by_cmdline(text).iter().map(|p| p.pid));
            }
        }
        doomed.retain(|pid| procs::alive(*pid));
        procs::signal(&doomed, libc::SIGKILL);
        if !graceful {
            // A killed server cannot remove its temporary profile. Only directories under the
            // temp dir that the test did not pass in itself are removed.
            let tmp = std::env::temp_dir();
            for dir in dirs {
                let given = self
                    .args
                    .iter()
                    .any(|a| a.contains(&*dir.to_string_lossy()));
                if dir.starts_with(&tmp) && !given {
                    let _ = fs::remove_dir_all(&dir);
                }
            }
        }
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let failing = thread::panicking();
        self.shut_down();
        if failing {
            self.print_failure_report();
            return;
        }
        let violations = self.violations();
        if !violations.is_empty() {
            self.print_failure_report();
            panic!(
                "devtools-mcp wrote non-protocol output on stdout:\n{}",
                violations.join("\n")
            );
        }
        if let Some(test) = self.outside_the_browser_kind() {
            self.print_failure_report();
            panic!("{test} started a browser: it belongs in tests/browser/ (see tests/tests.rs)");
        }
        let _ = fs::remove_file(&self.stderr_path);
    }
}

impl Mcp {
    /// The test that runs this server, when it is a test outside `browser::` whose server
    /// started a browser (the server logs each start). Only `browser::` runs on each browser
    /// build (`.ci/test`), so a browser test anywhere else would be run on one build only.
    fn outside_the_browser_kind(&self) -> Option<String> {
        let thread = thread::current();
        // libtest names a test's thread after the test; a thread the test spawned is unnamed.
        let test = thread.name().filter(|n| n.contains("::"))?;
        if test.starts_with("browser::") {
            return None;
        }
        let log = self.stderr_log();
        let started = log
            .lines()
            .any(|l| l.contains("started ") && l.contains("(pid "));
        started.then(|| test.to_owned())
    }
}
