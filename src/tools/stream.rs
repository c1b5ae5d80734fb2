//! Reading a stream the browser holds (a screen recording, a trace) piece by piece into a
//! sink, so only one piece is in memory at a time. Works against any [`Host`]: it needs
//! nothing of the tools' state.

use crate::browser::{self, Done, Flow, Host};
use crate::cdp::generated::io;
use crate::error::Error;
use crate::tools::base64::decode_base64;

/// How much one read asks for: large enough that a long stream takes few round trips, small
/// enough to keep the server's memory flat.
const PIECE: i64 = 1 << 20;

/// Where the pieces go; an error ends the reading.
pub(super) trait Sink: 'static {
    fn put(&mut self, bytes: &[u8]) -> Result<(), Error>;
}

/// Reading the stream `handle` on `session` to its end into `sink`. The stream is closed at
/// the end (also after a failure, so the browser frees it) and `done` gets the sink back.
pub(super) struct StreamRead<H, S> {
    session: String,
    handle: String,
    sink: S,
    done: Done<H, S>,
}

pub(super) enum Step {
    /// One piece (`IO.read`), and whether it is the last.
    Piece(Result<io::ReadReturns, Error>),
}

impl<H: Host, S: Sink> StreamRead<H, S> {
    pub(super) fn new(session: String, handle: String, sink: S, done: Done<H, S>) -> Self {
        StreamRead {
            session,
            handle,
            sink,
            done,
        }
    }

    /// Asks for the next piece.
    pub(super) fn start(self, cx: &mut H) {
        let params = io::ReadParams {
            handle: self.handle.clone(),
            offset: None,
            size: Some(PIECE),
        };
        let session = self.session.clone();
        browser::send_then(cx, Some(&session), params, self, Step::Piece);
    }
}

impl<H: Host, S: Sink> Flow<H> for StreamRead<H, S> {
    type Step = Step;

    fn next(mut self, cx: &mut H, step: Step) {
        let Step::Piece(piece) = step;
        match piece.and_then(|piece| self.put(piece)) {
            Ok(false) => self.start(cx),
            end => self.close(cx, end.map(drop)),
        }
    }
}

impl<H: Host, S: Sink> StreamRead<H, S> {
    /// Puts a piece into the sink (decoded when the browser sent it as base64); whether it
    /// was the last.
    fn put(&mut self, piece: io::ReadReturns) -> Result<bool, Error> {
        if piece.base64_encoded == Some(true) {
            let bytes = decode_base64(&piece.data).map_err(Error::Page)?;
            self.sink.put(&bytes)?;
        } else {
            self.sink.put(piece.data.as_bytes())?;
        }
        Ok(piece.eof)
    }

    fn close(self, cx: &mut H, end: Result<(), Error>) {
        let close = io::CloseParams {
            handle: self.handle,
        };
        browser::fire(cx, Some(&self.session), close);
        (self.done)(cx, end.map(|()| self.sink));
    }
}
