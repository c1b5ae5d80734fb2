//! Logging: stderr always, and `--logFile` when given. Never stdout (that is the protocol's).

use std::fs::File;
use std::io::Write;
use std::sync::{Mutex, OnceLock};

static LOG_FILE: OnceLock<Mutex<File>> = OnceLock::new();

pub fn open_file(path: &str) -> Result<(), String> {
    let file = File::options()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("cannot open log file {path}: {e}"))?;
    let _ = LOG_FILE.set(Mutex::new(file));
    Ok(())
}

pub fn write(message: &str) {
    let line = format!("devtools-mcp: {message}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
    if let Some(file) = LOG_FILE.get() {
        if let Ok(mut f) = file.lock() {
            let _ = f.write_all(line.as_bytes());
        }
    }
}

macro_rules! log {
    ($($arg:tt)*) => { $crate::log::write(&format!($($arg)*)) };
}
pub(crate) use log;
