//! The server in-process, stepped by hand instead of by the event loop: what tests drive
//! against a browser connection of their own (a scripted one), and what `devtools-mcp check`
//! drives against the browser the server starts itself. Each step does what the loop does
//! after the matching event — a client's line, the browser's messages, time passing — and
//! then what it does after every event: the deferred work, and the answers queued.

use std::io;
use std::time::{Duration, Instant};

use mio::unix::pipe::Receiver;
use mio::{Events, Interest, Poll, Token};

use super::flags::{self, Flags};
use crate::browser::{self, AgentId, Browser, Host, Tokens};
use crate::cdp::Connection;
use crate::mcp::Server;
use crate::tools::{Ctx, Outcome};

const BROWSER: Tokens = Tokens {
    read: Token(3),
    write: Token(4),
};
const SIGNAL: Token = Token(2);

pub struct InProcess {
    server: Server,
    /// The registry the browser layer holds: a browser the server starts registers its
    /// connection here (a connection a test drives by hand registers nothing).
    poll: Poll,
    events: Events,
    /// SIGTERM, SIGINT and SIGHUP, when this process took them over ([`InProcess::launching`]).
    _signals: Option<Receiver>,
}

impl InProcess {
    /// A server as `devtools-mcp <args>` would make it, whose every browser connection (the
    /// first and each after a loss) `connect` makes.
    pub fn new(
        args: &[&str],
        connect: impl FnMut() -> Result<Box<dyn Connection>, String> + 'static,
    ) -> Result<InProcess, String> {
        let mut server = InProcess::made(args)?;
        server.server.cx.browser.connect_with(connect);
        Ok(server)
    }

    /// A server as `devtools-mcp <args>` would make it, with the browser its flags name,
    /// started by the first call that needs one and heard through [`InProcess::wait`]. This
    /// process's SIGTERM, SIGINT and SIGHUP end the wait, as they end the server's loop.
    pub(crate) fn launching(args: &[&str]) -> Result<InProcess, String> {
        let mut server = InProcess::made(args)?;
        let mut signals = super::event_loop::signal_pipe().map_err(|e| e.to_string())?;
        let registry = server.poll.registry();
        (registry.register(&mut signals, SIGNAL, Interest::READABLE)).map_err(|e| e.to_string())?;
        server._signals = Some(signals);
        Ok(server)
    }

    fn made(args: &[&str]) -> Result<InProcess, String> {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let (parsed, _) = Flags::parse("devtools-mcp", &args).map_err(|e| e.output)?;
        let settings = flags::settings(&parsed)?;
        let poll = Poll::new().map_err(|e| e.to_string())?;
        let registry = poll.registry().try_clone().map_err(|e| e.to_string())?;
        let browser = Browser::new(registry, BROWSER);
        Ok(InProcess {
            server: Server::stdio(Ctx::new(settings, browser)),
            poll,
            events: Events::with_capacity(64),
            _signals: None,
        })
    }

    /// The client sent `line`.
    pub fn client(&mut self, line: &[u8]) {
        self.server.handle_line(line);
        self.settle();
    }

    /// The browser connection is readable.
    pub fn browser_readable(&mut self) {
        browser::on_readable(&mut self.server.cx);
        self.settle();
    }

    /// The clock reads `now`: every deadline up to it passes.
    pub fn time_is(&mut self, now: Instant) {
        self.server.cx.run_due_timers(now);
        self.server.on_time(now);
        self.settle();
    }

    /// The next deadline, of the tools or of the MCP layer.
    pub fn next_deadline(&mut self) -> Option<Instant> {
        super::event_loop::next_deadline(&mut self.server)
    }

    /// What the server wrote for the client since the last look.
    pub fn output(&mut self) -> Vec<u8> {
        self.server.take_queued()
    }

    /// As if a page's tools changed (what a page does through its binding), for tests of
    /// how the changes are announced.
    pub fn tools_changed(&mut self) {
        self.server
            .cx
            .outbox
            .push(Outcome::ToolsChanged(AgentId::DEFAULT));
        self.settle();
    }

    /// Waits at most `limit` for the browser a [`launching`](InProcess::launching) server
    /// started, or for a deadline, and does what the loop does then. An error when a signal
    /// came (the browser is shut down first) or the poll failed.
    pub(crate) fn wait(&mut self, limit: Duration) -> Result<(), String> {
        let now = Instant::now();
        let timeout = match self.next_deadline() {
            Some(deadline) => deadline.saturating_duration_since(now).min(limit),
            None => limit,
        };
        match self.poll.poll(&mut self.events, Some(timeout)) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("waiting for the browser: {e}")),
            Ok(()) => {}
        }
        let mut signalled = false;
        let server = &mut self.server;
        for event in self.events.iter() {
            match event.token() {
                t if t == BROWSER.read => browser::on_readable(&mut server.cx),
                t if t == BROWSER.write => browser::flush(&mut server.cx),
                SIGNAL => signalled = true,
                _ => {}
            }
            server.cx.run_deferred();
            server.drain();
        }
        if signalled {
            self.shutdown();
            return Err("stopped by a signal".into());
        }
        self.time_is(Instant::now());
        browser::flush(&mut self.server.cx);
        Ok(())
    }

    /// The tools' state, for what reads the server's tables and settings directly.
    pub(crate) fn ctx(&mut self) -> &mut Ctx {
        &mut self.server.cx
    }

    /// Ends the browser the server started (and deletes its temporary profile).
    pub(crate) fn shutdown(&mut self) {
        browser::shutdown(&mut self.server.cx);
    }

    /// What the loop does after any event: the deferred work, then the answers out.
    fn settle(&mut self) {
        self.server.cx.run_deferred();
        self.server.drain();
    }
}
