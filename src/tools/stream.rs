//! Reading a stream the browser holds (a screen recording, a trace) piece by piece into a
//! sink, so only one piece is in memory at a time.

use crate::browser;
use crate::cdp::generated::io;
use crate::error::Error;
use crate::tools::base64::decode_base64;
use crate::tools::{Ctx, Done};

/// How much one read asks for: large enough that a long stream takes few round trips, small
/// enough to keep the server's memory flat.
const PIECE: i64 = 1 << 20;

/// Where the pieces go; an error ends the reading.
pub trait Sink: 'static {
    fn put(&mut self, bytes: &[u8]) -> Result<(), Error>;
}

/// Reads the stream `handle` on `session` to its end into `sink`, then closes it (also after
/// a failure, so the browser frees it) and hands the sink back.
pub fn read_to_end<S: Sink>(cx: &mut Ctx, session: String, handle: String, sink: S, done: Done<S>) {
    let params = io::ReadParams {
        handle: handle.clone(),
        offset: None,
        size: Some(PIECE),
    };
    let s = session.clone();
    browser::send(cx, Some(&session), params, move |cx, r| {
        let mut sink = sink;
        let piece = r.and_then(|piece| {
            if piece.base64_encoded == Some(true) {
                let bytes = decode_base64(&piece.data).map_err(Error::Page)?;
                sink.put(&bytes)?;
            } else {
                sink.put(piece.data.as_bytes())?;
            }
            Ok(piece.eof)
        });
        match piece {
            Ok(false) => read_to_end(cx, s, handle, sink, done),
            end => {
                browser::fire(cx, Some(&s), io::CloseParams { handle });
                done(cx, end.map(|_| sink));
            }
        }
    });
}
