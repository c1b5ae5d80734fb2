//! The protocol stream to the client: lines are queued and written as stdout accepts them,
//! so a client that reads slowly never blocks the loop.

use std::fs::File;
use std::io::{self, Write};
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;

pub struct Output {
    /// fd 1, never closed by us (hence ManuallyDrop): written directly so that no buffering
    /// layer holds a line back.
    stdout: ManuallyDrop<File>,
    buf: Vec<u8>,
    written: usize,
    /// Set when stdout is closed: further lines are dropped.
    pub closed: bool,
}

impl Output {
    pub fn new() -> Output {
        Output {
            // SAFETY: fd 1 is open for the life of the process and never closed here.
            stdout: ManuallyDrop::new(unsafe { File::from_raw_fd(1) }),
            buf: Vec::with_capacity(64 * 1024),
            written: 0,
            closed: false,
        }
    }

    pub fn push_line(&mut self, line: String) {
        if self.closed {
            return;
        }
        self.buf.extend_from_slice(line.as_bytes());
        self.buf.push(b'\n');
    }

    pub fn is_empty(&self) -> bool {
        self.written >= self.buf.len()
    }

    /// Writes what stdout accepts now. `Ok(true)` when nothing is left.
    pub fn flush(&mut self) -> io::Result<bool> {
        while self.written < self.buf.len() {
            match self.stdout.write(&self.buf[self.written..]) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => self.written += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.compact();
                    return Ok(false);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.closed = true;
                    return Err(e);
                }
            }
        }
        self.buf.clear();
        self.written = 0;
        Ok(true)
    }

    fn compact(&mut self) {
        if self.written > 1 << 20 {
            self.buf.drain(..self.written);
            self.written = 0;
        }
    }
}
