//! `--remote-debugging-pipe`: Chromium reads commands on its fd 3 and writes answers and events
//! on its fd 4, each message a JSON text followed by a NUL byte. No port is opened.

use std::io::{self, Read, Write};

use mio::unix::pipe::{Receiver, Sender};

/// The read buffer capacity kept between messages.
const KEEP: usize = 64 * 1024;

/// Our two ends of the browser's pipes, with their buffers.
pub(crate) struct Pipe {
    pub to_browser: Sender,
    pub from_browser: Receiver,
    read_buf: Vec<u8>,
    /// Bytes of `read_buf` already scanned for a NUL (so a large message is scanned once).
    scanned: usize,
    write_buf: Vec<u8>,
    written: usize,
    /// One read's worth, allocated once (a fresh zeroed 64 KiB per readable event showed
    /// up in profiles).
    chunk: Vec<u8>,
}

impl Pipe {
    pub(crate) fn new(to_browser: Sender, from_browser: Receiver) -> Pipe {
        Pipe {
            to_browser,
            from_browser,
            read_buf: Vec::with_capacity(KEEP),
            scanned: 0,
            write_buf: Vec::new(),
            written: 0,
            chunk: vec![0; 64 * 1024],
        }
    }

    /// Queues one message; call [`Pipe::flush`] to push it out.
    pub(crate) fn queue(&mut self, message: &[u8]) {
        self.write_buf.extend_from_slice(message);
        self.write_buf.push(0);
    }

    /// Writes as much as the pipe takes. `Ok(true)` when everything queued is written.
    pub(crate) fn flush(&mut self) -> io::Result<bool> {
        while self.written < self.write_buf.len() {
            match self.to_browser.write(&self.write_buf[self.written..]) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => self.written += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        self.write_buf.clear();
        self.written = 0;
        if self.write_buf.capacity() > KEEP {
            self.write_buf.shrink_to(KEEP);
        }
        Ok(true)
    }

    /// Reads until the pipe would block, handing each complete message to `on_message`.
    /// `Ok(false)` means the browser closed its end.
    pub(crate) fn read(&mut self, mut on_message: impl FnMut(&[u8])) -> io::Result<bool> {
        loop {
            match self.from_browser.read(&mut self.chunk) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    self.read_buf.extend_from_slice(&self.chunk[..n]);
                    self.split(&mut on_message);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(true),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    fn split(&mut self, on_message: &mut impl FnMut(&[u8])) {
        let mut start = 0;
        let mut pos = self.scanned;
        while let Some(offset) = self.read_buf[pos..].iter().position(|&b| b == 0) {
            let end = pos + offset;
            on_message(&self.read_buf[start..end]);
            start = end + 1;
            pos = start;
        }
        self.read_buf.drain(..start);
        self.scanned = self.read_buf.len();
        // A large message's buffer is given back rather than kept for the next one.
        if self.read_buf.is_empty() && self.read_buf.capacity() > KEEP {
            self.read_buf.shrink_to(KEEP);
        }
    }
}
