//! The one event loop: stdin (MCP requests), stdout (answers, when the client reads slowly),
//! the browser connection, SIGTERM/SIGINT, and timers, all on one `mio::Poll`.

use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

use mio::unix::pipe::Receiver;
use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token, Waker};

use crate::browser::{self, Browser, Host};
use crate::log::log;
use crate::mcp::framing::{Lines, Piece};
use crate::mcp::{jsonrpc, Server};
use crate::settings::Settings;
use crate::tools::{heap, Ctx};

const STDIN: Token = Token(0);
const STDOUT: Token = Token(1);
pub(super) const SIGNAL: Token = Token(2);
/// A heap snapshot file was read beside the loop (`tools::heap`'s reader thread wakes it).
pub(super) const HEAP: Token = Token(6);
pub(super) const BROWSER: browser::Tokens = browser::Tokens {
    read: Token(3),
    write: Token(4),
};

/// The longest line we accept from the client (a request with a large script is fine; an
/// endless line is not).
const MAX_LINE: usize = 64 << 20;

fn set_nonblocking(fd: i32) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor we hold; no memory is passed.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The write end of the signal pipe, for the handler (a plain int: it is all a handler may
/// touch).
static SIGNAL_FD: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

extern "C" fn on_signal(_: libc::c_int) {
    let fd = SIGNAL_FD.load(std::sync::atomic::Ordering::Relaxed);
    if fd >= 0 {
        // SAFETY: write(2) is async-signal-safe; the buffer is a static byte.
        unsafe { libc::write(fd, b"s".as_ptr().cast(), 1) };
    }
}

/// SIGTERM, SIGINT and SIGHUP become a readable byte on a pipe the loop watches.
pub(super) fn signal_pipe() -> io::Result<Receiver> {
    let mut fds = [0; 2];
    // SAFETY: fds is a valid array of two ints.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } != 0 {
        return Err(io::Error::last_os_error());
    }
    SIGNAL_FD.store(fds[1], std::sync::atomic::Ordering::Relaxed);
    for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        // SAFETY: installing a handler that only calls write(2).
        unsafe { libc::signal(sig, on_signal as *const () as libc::sighandler_t) };
    }
    // A client that goes away must not kill us with SIGPIPE before we clean up.
    // SAFETY: ignoring a signal has no preconditions.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    // SAFETY: pipe2 succeeded; the read end is ours.
    Ok(Receiver::from(unsafe { OwnedFd::from_raw_fd(fds[0]) }))
}

/// Where requests come from: stdin directly when it can be polled (a pipe, a socket, a
/// terminal), else a thread that copies it into a pipe (a regular file cannot be polled).
fn stdin_source() -> io::Result<(Box<dyn Read>, i32)> {
    let fd = io::stdin().as_raw_fd();
    let poll = Poll::new()?;
    let can_poll = poll
        .registry()
        .register(&mut SourceFd(&fd), STDIN, Interest::READABLE)
        .is_ok();
    if can_poll {
        set_nonblocking(fd)?;
        // SAFETY: fd 0 stays open for the life of the process; ManuallyDrop never closes it.
        let file = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(fd) });
        return Ok((Box::new(StdinFile(file)), fd));
    }
    let (sender, receiver) = mio::unix::pipe::new()?;
    sender.set_nonblocking(false)?;
    std::thread::spawn(move || {
        let mut sender = sender;
        let _ = io::copy(&mut io::stdin().lock(), &mut sender);
    });
    let fd = receiver.as_raw_fd();
    Ok((Box::new(receiver), fd))
}

struct StdinFile(std::mem::ManuallyDrop<std::fs::File>);

impl Read for StdinFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

/// Large buffers (a megabyte-sized tool result passes through a few) are mmapped and go back
/// to the system when freed, and growing one remaps rather than copies. glibc's default
/// would raise its threshold after the first such buffer and keep the next ones in the heap,
/// where freed memory stays resident.
pub(super) fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes allocator parameters; called before anything else runs.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 * 1024);
    }
}

pub(super) fn run(settings: Settings) -> io::Result<()> {
    tune_allocator();
    let mut poll = Poll::new()?;
    let browser = Browser::new(poll.registry().try_clone()?, BROWSER);
    let mut server = Server::stdio(Ctx::new(settings, browser));
    heap::use_waker(&mut server.cx, Waker::new(poll.registry(), HEAP)?);

    let (mut stdin, stdin_fd) = stdin_source()?;
    poll.registry()
        .register(&mut SourceFd(&stdin_fd), STDIN, Interest::READABLE)?;
    let stdout_fd = io::stdout().as_raw_fd();
    let stdout_pollable = set_nonblocking(stdout_fd).is_ok()
        && poll
            .registry()
            .register(&mut SourceFd(&stdout_fd), STDOUT, Interest::WRITABLE)
            .is_ok();
    if !stdout_pollable {
        // A regular file: writes never block, so blocking mode is fine.
        log!("stdout cannot be polled; writing to it directly");
    }
    let mut signals = signal_pipe()?;
    poll.registry()
        .register(&mut signals, SIGNAL, Interest::READABLE)?;

    let mut events = Events::with_capacity(256);
    let mut input = Input::new();
    let mut quit = false;
    while !quit {
        let timeout = next_timeout(&mut server);
        if let Err(e) = poll.poll(&mut events, timeout) {
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        for event in events.iter() {
            match event.token() {
                STDIN if server.out_full() => input.backlog = true,
                STDIN if !quit && !input.read(&mut server, &mut *stdin) => {
                    let _ = poll.registry().deregister(&mut SourceFd(&stdin_fd));
                    quit = true;
                }
                SIGNAL => {
                    log!("signal received: shutting down");
                    quit = true;
                }
                t if t == BROWSER.read => browser::on_readable(&mut server.cx),
                t if t == BROWSER.write => browser::flush(&mut server.cx),
                HEAP => heap::on_wake(&mut server.cx),
                _ => {}
            }
            server.cx.run_deferred();
            server.drain();
        }
        let now = Instant::now();
        server.cx.run_due_timers(now);
        server.on_time(now);
        server.drain();
        browser::flush(&mut server.cx);
        if let Err(e) = server.flush_out() {
            log!("stdout closed ({e}): shutting down");
            quit = true;
        }
        // The client took enough of the answers: read what it sent meanwhile.
        if input.backlog && !quit && !server.out_full() && !input.read(&mut server, &mut *stdin) {
            let _ = poll.registry().deregister(&mut SourceFd(&stdin_fd));
            quit = true;
        }
    }
    last_words(&mut server);
    browser::shutdown(&mut server.cx);
    Ok(())
}

/// What still goes to the client once the loop ends.
fn last_words(server: &mut Server) {
    // Open subscriptions end with their answer, the graceful close of MCP 2026-07-28.
    server.close_subscriptions();
    // Answers already computed still go out (bounded: a client that stopped reading
    // does not hold us).
    let deadline = Instant::now() + Duration::from_millis(200);
    while !server.out_is_empty() && Instant::now() < deadline {
        if server.flush_out().is_err() {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// How long the loop may sleep: until the tools' or the MCP layer's next deadline.
fn next_timeout(server: &mut Server) -> Option<Duration> {
    let deadline = next_deadline(server)?;
    Some(deadline.saturating_duration_since(Instant::now()))
}

/// The tools' or the MCP layer's next deadline, whichever is first.
pub(super) fn next_deadline(server: &mut Server) -> Option<Instant> {
    let tools = server.cx.rt.timers.next_deadline();
    match (tools, server.next_deadline()) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Reading stdin into lines. While the answers not yet taken by the client are over
/// [`Output::full`]'s bound, no more is read: the client's writes then block on the pipe, and
/// nothing is dropped.
struct Input {
    lines: Lines,
    /// One read's worth, zeroed once rather than on every readable event.
    chunk: Vec<u8>,
    /// The part of the chunk not handled yet (reading stopped in the middle of it).
    pos: usize,
    end: usize,
    /// Reading stopped while stdin may still have data: read again once the output drains
    /// (stdin is edge-triggered, so no new event may come for what is already there).
    backlog: bool,
}

impl Input {
    fn new() -> Input {
        Input {
            lines: Lines::new(MAX_LINE),
            chunk: vec![0u8; 64 * 1024],
            pos: 0,
            end: 0,
            backlog: false,
        }
    }

    /// Reads what stdin has and handles each complete line, until stdin has no more or the
    /// output is full. `false` at end of input.
    fn read(&mut self, server: &mut Server, stdin: &mut dyn Read) -> bool {
        loop {
            if self.pos < self.end {
                let bytes = &self.chunk[self.pos..self.end];
                self.pos += self.lines.feed(bytes, |piece| {
                    on_piece(server, piece);
                    !server.out_full()
                });
            }
            if self.pos < self.end || server.out_full() {
                self.backlog = true;
                return true;
            }
            match stdin.read(&mut self.chunk) {
                Ok(0) => {
                    self.lines.finish(|piece| {
                        on_piece(server, piece);
                        true
                    });
                    return false;
                }
                Ok(n) => (self.pos, self.end) = (0, n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.backlog = false;
                    return true;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return false,
            }
        }
    }
}

fn on_piece(server: &mut Server, piece: Piece<'_>) {
    match piece {
        Piece::Line(line) => handle(server, line),
        Piece::TooLong => {
            log!("a line longer than {MAX_LINE} bytes was dropped");
            let err = jsonrpc::error(
                &jsonrpc::null_id(),
                jsonrpc::INVALID_REQUEST,
                "Invalid Request: the line is too long",
            );
            server.send(err);
        }
    }
}

fn handle(server: &mut Server, line: &[u8]) {
    let trimmed = line.trim_ascii();
    if trimmed.is_empty() {
        return;
    }
    server.handle_line(trimmed);
    server.cx.run_deferred();
    server.drain();
}
