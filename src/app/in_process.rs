//! The server in-process, stepped by hand instead of by the event loop: what tests drive
//! against a browser connection of their own (a scripted one). Each step does what the loop
//! does after the matching event — a client's line, the browser's messages, time passing —
//! and then what it does after every event: the deferred work, and the answers queued.

use std::time::Instant;

use mio::{Poll, Token};

use super::flags::{self, Flags};
use crate::browser::{self, AgentId, Browser, Host, Tokens};
use crate::cdp::Connection;
use crate::mcp::Server;
use crate::tools::{Ctx, Outcome};

pub struct InProcess {
    server: Server,
    /// Owns the registry the browser layer holds (a connection a test drives by hand
    /// registers nothing).
    _poll: Poll,
}

impl InProcess {
    /// A server as `devtools-mcp <args>` would make it, whose every browser connection (the
    /// first and each after a loss) `connect` makes.
    pub fn new(
        args: &[&str],
        connect: impl FnMut() -> Result<Box<dyn Connection>, String> + 'static,
    ) -> Result<InProcess, String> {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let (parsed, _) = Flags::parse("devtools-mcp", &args).map_err(|e| e.output)?;
        let settings = flags::settings(&parsed)?;
        let poll = Poll::new().map_err(|e| e.to_string())?;
        let registry = poll.registry().try_clone().map_err(|e| e.to_string())?;
        let tokens = Tokens {
            read: Token(3),
            write: Token(4),
        };
        let mut browser = Browser::new(registry, tokens);
        browser.connect_with(connect);
        Ok(InProcess {
            server: Server::stdio(Ctx::new(settings, browser)),
            _poll: poll,
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

    /// What the loop does after any event: the deferred work, then the answers out.
    fn settle(&mut self) {
        self.server.cx.run_deferred();
        self.server.drain();
    }
}
