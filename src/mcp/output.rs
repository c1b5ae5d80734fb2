//! Where a session's messages go: over stdio, one stream of lines, queued and written as
//! stdout accepts them, so a client that reads slowly never blocks the loop; over HTTP, each
//! message on its own, with the exchange (the HTTP request) it belongs to.

use std::fs::File;
use std::io::{self, Write};
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;

use serde::Serialize;

/// The buffer capacity kept between answers.
const KEEP: usize = 64 * 1024;

/// Unsent output above which the loop stops reading requests until the client takes some
/// (a client that stops reading would otherwise make us buffer answers without end). One
/// answer larger than this is still queued whole.
const FULL: usize = 4 << 20;

pub(crate) struct Output {
    /// fd 1, never closed by us (hence ManuallyDrop): written directly so that no buffering
    /// layer holds a line back.
    stdout: ManuallyDrop<File>,
    buf: Vec<u8>,
    written: usize,
    /// Set when stdout is closed: further lines are dropped.
    closed: bool,
}

impl Default for Output {
    fn default() -> Self {
        Output::new()
    }
}

impl Output {
    pub(super) fn new() -> Output {
        Output {
            // SAFETY: fd 1 is open for the life of the process and never closed here.
            stdout: ManuallyDrop::new(unsafe { File::from_raw_fd(1) }),
            buf: Vec::with_capacity(KEEP),
            written: 0,
            closed: false,
        }
    }

    /// Queues one message as a line, serialized straight into the buffer (no string of
    /// its own in between: a result can be a megabyte).
    pub(super) fn push<T: Serialize + ?Sized>(&mut self, message: &T) {
        if self.closed {
            return;
        }
        // Writing JSON into a Vec cannot fail: a map key is always a string here.
        let start = self.buf.len();
        match serde_json::to_writer(&mut self.buf, message) {
            Ok(()) => self.buf.push(b'\n'),
            // No half message goes out.
            Err(_) => self.buf.truncate(start),
        }
    }

    /// Takes the lines queued and not written yet: how a test reads the answers (without
    /// ever flushing them to fd 1).
    pub(crate) fn take_queued(&mut self) -> Vec<u8> {
        let rest = self.buf.split_off(self.written);
        self.buf.clear();
        self.written = 0;
        rest
    }

    /// More than [`FULL`] bytes are waiting for the client (never while stdout is closed:
    /// nothing is queued then).
    pub(crate) fn full(&self) -> bool {
        self.buf.len() - self.written > FULL
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.written >= self.buf.len()
    }

    /// Writes what stdout accepts now. `Ok(true)` when nothing is left.
    pub(crate) fn flush(&mut self) -> io::Result<bool> {
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
        // A large answer's buffer is given back rather than kept for the next one.
        if self.buf.capacity() > KEEP {
            self.buf.shrink_to(KEEP);
        }
        Ok(true)
    }

    fn compact(&mut self) {
        if self.written > 1 << 20 {
            self.buf.drain(..self.written);
            self.written = 0;
        }
    }
}

/// Which exchange of the transport a message belongs to: over HTTP, one request (its response
/// or stream); stdio has one exchange for everything.
pub(crate) type Tag = u64;

/// A message for one exchange, or for the session's own stream (`tag: None`: a notification
/// or a request of the server's that answers no request of the client's).
pub(crate) struct Routed {
    pub tag: Option<Tag>,
    /// One JSON-RPC message; empty when the exchange ends with nothing more to say (its
    /// request was cancelled).
    pub bytes: Vec<u8>,
    /// `Some` when the message ends its exchange: an answer, with its JSON-RPC error code if
    /// it is an error; `None` for a message on a stream that goes on.
    pub end: Option<Option<i64>>,
}

/// A session's way out.
pub(crate) enum Sink {
    /// Every message onto one stream, in order (stdio).
    Stream(Output),
    /// Each message on its own, routed (HTTP); the transport takes them after every event.
    Routed(Vec<Routed>),
}

impl Sink {
    /// Queues `message` for exchange `tag`; `end` as in [`Routed::end`].
    pub(super) fn push<T: Serialize + ?Sized>(
        &mut self,
        tag: Option<Tag>,
        message: &T,
        end: Option<Option<i64>>,
    ) {
        match self {
            Sink::Stream(out) => out.push(message),
            Sink::Routed(queue) => {
                // Writing JSON into a Vec cannot fail: a map key is always a string here.
                if let Ok(bytes) = serde_json::to_vec(message) {
                    queue.push(Routed { tag, bytes, end });
                }
            }
        }
    }

    /// Exchange `tag` ends with nothing more (its request was cancelled): the transport
    /// closes its response. A stream has no such thing to say.
    pub(super) fn end_silently(&mut self, tag: Option<Tag>) {
        if let Sink::Routed(queue) = self {
            let end = Some(None);
            queue.push(Routed {
                tag,
                bytes: Vec::new(),
                end,
            });
        }
    }
}
