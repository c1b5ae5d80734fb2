//! The Chrome DevTools Protocol: typed messages (generated), message framing, and the two
//! transports (the launched browser's pipe, a running browser's websocket).

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

/// A CDP event whose `params` deserialize into `Self`. Events are routed by name in
/// `browser::events`, which reads the few fields it needs directly, so `NAME` serves typed
/// decoding elsewhere (and the tests).
#[allow(dead_code)]
pub trait Event: serde::de::DeserializeOwned {
    const NAME: &'static str;
}

/// The byte stream to the browser, whichever way it is reached.
pub enum Transport {
    Pipe(pipe::Pipe),
    Ws(websocket::WsConn),
}

impl Transport {
    pub fn queue(&mut self, message: &[u8]) {
        match self {
            Transport::Pipe(p) => p.queue(message),
            Transport::Ws(w) => w.queue(message),
        }
    }

    pub fn flush(&mut self) -> io::Result<bool> {
        match self {
            Transport::Pipe(p) => p.flush(),
            Transport::Ws(w) => w.flush(),
        }
    }

    /// Reads every complete message available now. `Ok(false)`: the browser hung up.
    pub fn read(&mut self, on_message: impl FnMut(&[u8])) -> io::Result<bool> {
        match self {
            Transport::Pipe(p) => p.read(on_message),
            Transport::Ws(w) => w.read(on_message),
        }
    }
}
