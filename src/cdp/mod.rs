//! The Chrome DevTools Protocol: typed messages (generated), message framing, and the
//! transports (the launched browser's pipe, a running browser's websocket, and a scripted
//! browser for tests).

pub mod fake;
pub mod generated;
pub mod message;
pub mod pipe;
pub mod websocket;

use std::io;

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
pub struct AsJson<C>(pub C);

impl<C: Command> Command for AsJson<C> {
    const METHOD: &'static str = C::METHOD;
    type Returns = serde_json::Value;
}

/// A CDP event whose `params` deserialize into `Self`; `NAME` is how a raw event is
/// recognised as this one (`browser::RawEvent::decode`).
pub trait Event: serde::de::DeserializeOwned {
    const NAME: &'static str;
}

/// The byte stream to the browser, whichever way it is reached.
pub enum Transport {
    Pipe(pipe::Pipe),
    Ws(websocket::WsConn),
    /// A test's scripted browser (see [`fake`]).
    Fake(fake::FakeConn),
}

impl Transport {
    pub fn queue(&mut self, message: &[u8]) {
        match self {
            Transport::Pipe(p) => p.queue(message),
            Transport::Ws(w) => w.queue(message),
            Transport::Fake(f) => f.queue(message),
        }
    }

    pub fn flush(&mut self) -> io::Result<bool> {
        match self {
            Transport::Pipe(p) => p.flush(),
            Transport::Ws(w) => w.flush(),
            Transport::Fake(f) => f.flush(),
        }
    }

    /// Reads every complete message available now. `Ok(false)`: the browser hung up.
    pub fn read(&mut self, on_message: impl FnMut(&[u8])) -> io::Result<bool> {
        match self {
            Transport::Pipe(p) => p.read(on_message),
            Transport::Ws(w) => w.read(on_message),
            Transport::Fake(f) => f.read(on_message),
        }
    }
}
