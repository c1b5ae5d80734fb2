//! Reading a stream the browser holds (a screen recording, a trace) piece by piece into a
//! sink, so only one piece is in memory at a time.

use crate::browser;
use crate::cdp::generated::io;
use crate::error::Error;
use crate::tools::base64::decode_base64;
use crate::tools::{Ctx, Done};

/// How much one read asks for: large enough that a long recording takes few round trips,
/// small enough to keep the server's memory flat.
const PIECE: i64 = 1 << 20;

/// Where the pieces go; an error ends the reading.
pub type Sink = Box<dyn FnMut(&[u8]) -> Result<(), String>>;

/// Reads the stream `handle` on `session` to its end into `sink`, then closes it (also after
/// a failure, so the browser frees it).
pub fn read_to_end(cx: &mut Ctx, session: String, handle: String, sink: Sink, done: Done<()>) {
    let params = io::ReadParams {
        handle: handle.clone(),
        offset: None,
        size: Some(PIECE),
    };
    let s = session.clone();
    browser::send(cx, Some(&session), params, move |cx, r| {
        let mut sink = sink;
        let piece = r.and_then(|piece| {
            let written = if piece.base64_encoded == Some(true) {
                decode_base64(&piece.data).and_then(|bytes| sink(&bytes))
            } else {
                sink(piece.data.as_bytes())
            };
            written.map(|()| piece.eof).map_err(Error::Page)
        });
        match piece {
            Ok(false) => read_to_end(cx, s, handle, sink, done),
            end => {
                browser::fire(cx, Some(&s), io::CloseParams { handle });
                done(cx, end.map(|_| ()));
            }
        }
    });
}
