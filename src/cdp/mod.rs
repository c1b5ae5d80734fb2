//! The Chrome DevTools Protocol: typed messages (generated), message framing, and the
//! connections (the launched browser's pipe, a running browser's websocket).

pub mod generated;
pub mod message;
pub(crate) mod pipe;
pub(crate) mod websocket;

use std::io;

use mio::{Interest, Registry, Token};

/// A CDP command: its parameters serialize to the `params` of a request, its result
/// deserializes from the `result` of the answer.
pub trait Command: serde::Serialize {
    const METHOD: &'static str;
    type Returns: serde::de::DeserializeOwned;
}

/// A generated command whose answer is kept as JSON instead of its generated type (where
/// the answer is read as a tree, as the snapshot model reads accessibility trees and
/// documents).
#[derive(serde::Serialize)]
#[serde(transparent)]
pub(crate) struct AsJson<C>(pub C);

impl<C: Command> Command for AsJson<C> {
    const METHOD: &'static str = C::METHOD;
    type Returns = serde_json::Value;
}

/// A CDP event whose `params` deserialize into `Self`; `NAME` is how a raw event is
/// recognised as this one (`browser::RawEvent::decode`).
pub trait Event: serde::de::DeserializeOwned {
    const NAME: &'static str;
}

/// The byte stream to the browser, whichever way it is reached: the launched browser's pipe
/// ([`pipe::Pipe`]) or a running browser's websocket ([`websocket::WsConn`]). Tests play the
/// browser through a connection of their own.
pub trait Connection {
    /// Queues one message; [`Connection::flush`] pushes it out.
    fn queue(&mut self, message: &[u8]);
    /// Writes as much as the connection takes. `Ok(true)` when everything queued is written.
    fn flush(&mut self) -> io::Result<bool>;
    /// Reads every complete message available now. `Ok(false)`: the browser hung up.
    fn read(&mut self, on_message: &mut dyn FnMut(&[u8])) -> io::Result<bool>;
    /// Has the event loop watch the connection: readable (and, for a socket, writable)
    /// under `read`, a separate writable end under `write`.
    fn register(&mut self, registry: &Registry, read: Token, write: Token) -> io::Result<()>;
    fn deregister(&mut self, registry: &Registry);
}

impl Connection for pipe::Pipe {
    fn queue(&mut self, message: &[u8]) {
        pipe::Pipe::queue(self, message)
    }

    fn flush(&mut self) -> io::Result<bool> {
        pipe::Pipe::flush(self)
    }

    fn read(&mut self, on_message: &mut dyn FnMut(&[u8])) -> io::Result<bool> {
        pipe::Pipe::read(self, on_message)
    }

    fn register(&mut self, registry: &Registry, read: Token, write: Token) -> io::Result<()> {
        registry.register(&mut self.from_browser, read, Interest::READABLE)?;
        registry.register(&mut self.to_browser, write, Interest::WRITABLE)
    }

    fn deregister(&mut self, registry: &Registry) {
        let _ = registry.deregister(&mut self.from_browser);
        let _ = registry.deregister(&mut self.to_browser);
    }
}

impl Connection for websocket::WsConn {
    fn queue(&mut self, message: &[u8]) {
        websocket::WsConn::queue(self, message)
    }

    fn flush(&mut self) -> io::Result<bool> {
        websocket::WsConn::flush(self)
    }

    fn read(&mut self, on_message: &mut dyn FnMut(&[u8])) -> io::Result<bool> {
        websocket::WsConn::read(self, on_message)
    }

    fn register(&mut self, registry: &Registry, read: Token, _write: Token) -> io::Result<()> {
        let both = Interest::READABLE | Interest::WRITABLE;
        registry.register(self.socket(), read, both)
    }

    fn deregister(&mut self, registry: &Registry) {
        let _ = registry.deregister(self.socket());
    }
}
