//! An incremental splitter for the trace file format: it finds the events array (a bare
//! top-level array, or the `traceEvents` member of DevTools' saved object) and hands over
//! each element's bytes, and the `metadata` member's, as they complete. It holds at most one
//! element at a time, so a trace of any size passes through in bounded memory. It checks
//! the structure only as far as it must to find elements; each element is then parsed as
//! JSON on its own by whoever takes it.

/// Elements larger than this are counted but not kept (screenshots and CPU profile chunks
/// are a few hundred kilobytes; nothing the metrics read comes near this).
const MAX_PIECE: usize = 16 << 20;

/// What the splitter found.
pub(super) enum Piece<'a> {
    /// One element of the events array, in file order.
    Event(&'a [u8]),
    /// An element of the events array too large to keep: it still takes its place in the
    /// order (event keys are positions in the array).
    Oversize,
    /// The `metadata` object of DevTools' saved format.
    Metadata(&'a [u8]),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Top {
    /// Nothing but whitespace yet.
    Start,
    /// A bare array of events: its elements sit at depth 1.
    Array,
    /// DevTools' saved object.
    Object,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Capture {
    None,
    Event,
    Metadata,
}

/// The splitter's state between chunks.
pub(super) struct Scanner {
    top: Top,
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// The depth of the events array's elements, once it is found.
    events_depth: Option<u32>,
    /// Inside the events array now.
    in_events: bool,
    /// The last string seen directly inside the top-level object (its keys).
    key: Vec<u8>,
    key_open: bool,
    capture: Capture,
    oversize: bool,
    piece: Vec<u8>,
    /// Events the array held, kept or not.
    pub(super) events: u64,
}

impl Default for Scanner {
    fn default() -> Self {
        Scanner {
            top: Top::Start,
            depth: 0,
            in_string: false,
            escaped: false,
            events_depth: None,
            in_events: false,
            key: Vec::new(),
            key_open: false,
            capture: Capture::None,
            oversize: false,
            piece: Vec::new(),
            events: 0,
        }
    }
}

impl Scanner {
    /// Takes the next bytes of the file; `sink` gets every piece that completes in them.
    pub(super) fn feed(&mut self, bytes: &[u8], sink: &mut dyn FnMut(Piece)) -> Result<(), String> {
        // Where the piece being captured starts in `bytes` (0 when it began in an earlier chunk).
        let mut start = 0;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if self.in_string {
                i = self.string_byte(bytes, i);
                continue;
            }
            match b {
                b'"' => {
                    self.in_string = true;
                    if self.top == Top::Object && self.depth == 1 {
                        self.key.clear();
                        self.key_open = true;
                    }
                }
                b'{' | b'[' => {
                    if self.top == Top::Start {
                        self.top = if b == b'[' { Top::Array } else { Top::Object };
                        if b == b'[' {
                            self.events_depth = Some(1);
                            self.in_events = true;
                        }
                    } else if self.capture == Capture::None {
                        self.maybe_start(b);
                        if self.capture != Capture::None {
                            start = i;
                            self.piece.clear();
                            self.oversize = false;
                        }
                    }
                    self.depth += 1;
                }
                b'}' | b']' => {
                    if self.depth == 0 {
                        return Err("unbalanced brackets in the trace".into());
                    }
                    self.depth -= 1;
                    if self.in_events && Some(self.depth + 1) == self.events_depth {
                        self.in_events = false;
                    }
                    if self.capture != Capture::None && Some(self.depth) == self.capture_depth() {
                        self.take(&bytes[start..=i]);
                        self.emit(sink);
                    }
                }
                b' ' | b'\n' | b'\r' | b'\t' | b',' | b':' => {}
                _ if self.top == Top::Start => {
                    return Err(
                        "a trace is a JSON array of events or an object with traceEvents".into(),
                    );
                }
                _ => {}
            }
            i += 1;
        }
        if self.capture != Capture::None {
            self.take(&bytes[start..]);
        }
        Ok(())
    }

    /// Checks that the file ended where a complete trace ends.
    pub(super) fn finish(&self) -> Result<(), String> {
        match (self.top, self.depth, self.in_string) {
            (Top::Start, ..) => Err("the trace is empty".into()),
            (_, 0, false) => Ok(()),
            _ => Err("the trace ends before its JSON does (truncated file?)".into()),
        }
    }

    /// Inside a string: skips to its end (or the chunk's), noting escapes and the top-level
    /// object's keys. Returns where to continue.
    fn string_byte(&mut self, bytes: &[u8], mut i: usize) -> usize {
        while i < bytes.len() {
            let b = bytes[i];
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                self.key_open = false;
                return i + 1;
            }
            if self.key_open && self.key.len() < 64 {
                self.key.push(b);
            }
            i += 1;
        }
        i
    }

    /// At an opening bracket outside any piece: does a piece start here?
    fn maybe_start(&mut self, b: u8) {
        if self.in_events {
            // Any object or array element takes a place in the order.
            if Some(self.depth) == self.events_depth {
                self.capture = Capture::Event;
            }
            return;
        }
        if self.top == Top::Object && self.depth == 1 {
            if b == b'[' && self.key == b"traceEvents" && self.events_depth.is_none() {
                self.events_depth = Some(2);
                self.in_events = true;
            } else if b == b'{' && self.key == b"metadata" {
                self.capture = Capture::Metadata;
            }
        }
    }

    /// The depth at which the piece being captured closes.
    fn capture_depth(&self) -> Option<u32> {
        match self.capture {
            Capture::None => None,
            Capture::Event => self.events_depth,
            Capture::Metadata => Some(1),
        }
    }

    fn take(&mut self, bytes: &[u8]) {
        if self.oversize {
            return;
        }
        if self.piece.len() + bytes.len() > MAX_PIECE {
            self.oversize = true;
            self.piece = Vec::new();
            return;
        }
        self.piece.extend_from_slice(bytes);
    }

    fn emit(&mut self, sink: &mut dyn FnMut(Piece)) {
        let capture = std::mem::replace(&mut self.capture, Capture::None);
        match capture {
            Capture::Event if self.oversize => sink(Piece::Oversize),
            Capture::Event => sink(Piece::Event(&self.piece)),
            Capture::Metadata if !self.oversize => sink(Piece::Metadata(&self.piece)),
            _ => {}
        }
        if capture == Capture::Event {
            self.events += 1;
        }
        self.oversize = false;
        self.piece.clear();
        if self.piece.capacity() > 1 << 20 {
            self.piece = Vec::new();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]]) -> Result<(Vec<String>, Vec<String>), String> {
        let mut scanner = Scanner::default();
        let mut events = Vec::new();
        let mut meta = Vec::new();
        for chunk in chunks {
            scanner.feed(chunk, &mut |p| match p {
                Piece::Event(b) => events.push(String::from_utf8_lossy(b).into_owned()),
                Piece::Oversize => events.push("<oversize>".into()),
                Piece::Metadata(b) => meta.push(String::from_utf8_lossy(b).into_owned()),
            })?;
        }
        scanner.finish()?;
        Ok((events, meta))
    }

    #[test]
    fn bare_array_split_at_every_byte() {
        let text = br#"[{"name":"a","args":{"s":"}]\"{["}},{"name":"b"} ]"#;
        for cut in 0..text.len() {
            let (events, _) = split(&[&text[..cut], &text[cut..]]).unwrap();
            assert_eq!(
                events,
                [r#"{"name":"a","args":{"s":"}]\"{["}}"#, r#"{"name":"b"}"#]
            );
        }
    }

    #[test]
    fn saved_object_with_metadata_either_side() {
        let text = br#"{"metadata":{"cpuThrottling":4,"x":[1]},"traceEvents":[{"n":1},{"n":2}],"z":{"traceEvents":[{"n":3}]}}"#;
        let (events, meta) = split(&[text]).unwrap();
        assert_eq!(events, [r#"{"n":1}"#, r#"{"n":2}"#]);
        assert_eq!(meta, [r#"{"cpuThrottling":4,"x":[1]}"#]);
        let text = br#"{"traceEvents":[{"n":1}],"metadata":{"a":"traceEvents"}}"#;
        let (events, meta) = split(&[text]).unwrap();
        assert_eq!(events, [r#"{"n":1}"#]);
        assert_eq!(meta, [r#"{"a":"traceEvents"}"#]);
    }

    #[test]
    fn truncated_and_empty_files_are_errors() {
        assert!(split(&[br#"[{"name":"a"},{"na"#]).is_err());
        assert!(split(&[b"  "]).is_err());
        assert!(split(&[b"42"]).is_err());
        assert!(split(&[b"]"]).is_err());
    }

    #[test]
    fn an_oversize_event_keeps_its_place() {
        let big = format!(r#"[{{"s":"{}"}},{{"n":2}}]"#, "x".repeat(MAX_PIECE));
        let (events, _) = split(&[big.as_bytes()]).unwrap();
        assert_eq!(events, ["<oversize>", r#"{"n":2}"#]);
    }
}
