//! Splitting the client's byte stream into lines, whatever sizes the reads come in.
//!
//! A line longer than the limit is rejected once and dropped whole: everything up to its
//! newline is skipped, so its tail is never taken for a line of its own.

/// What the stream yields.
#[derive(Debug, PartialEq)]
pub enum Piece<'a> {
    /// A complete line, without its newline.
    Line(&'a [u8]),
    /// A line longer than the limit: it is dropped whole.
    TooLong,
}

pub struct Lines {
    /// The start of a line whose newline has not come yet.
    partial: Vec<u8>,
    /// Inside a rejected line: bytes are skipped until its newline.
    skipping: bool,
    max: usize,
}

impl Lines {
    pub fn new(max: usize) -> Lines {
        Lines {
            partial: Vec::with_capacity(64 * 1024),
            skipping: false,
            max,
        }
    }

    /// Hands each piece in `bytes` to `each` until it returns false (the caller wants to stop
    /// reading for now). Returns how many bytes were used: the rest is the caller's to feed
    /// again later.
    pub fn feed(&mut self, bytes: &[u8], mut each: impl FnMut(Piece<'_>) -> bool) -> usize {
        let mut start = 0;
        while let Some(at) = bytes[start..].iter().position(|b| *b == b'\n') {
            let segment = &bytes[start..start + at];
            start += at + 1;
            if !self.line_end(segment, &mut each) {
                return start;
            }
        }
        let rest = &bytes[start..];
        if self.skipping {
            return bytes.len();
        }
        if self.partial.len() + rest.len() > self.max {
            // Said at once, not at the newline, which may never come; the rest is skipped.
            self.partial.clear();
            self.skipping = true;
            each(Piece::TooLong);
        } else {
            self.partial.extend_from_slice(rest);
        }
        bytes.len()
    }

    /// `segment` ends a line. Returns what `each` said (true when there was nothing to say).
    fn line_end(&mut self, segment: &[u8], each: &mut impl FnMut(Piece<'_>) -> bool) -> bool {
        if std::mem::take(&mut self.skipping) {
            return true;
        }
        if self.partial.len() + segment.len() > self.max {
            self.partial.clear();
            return each(Piece::TooLong);
        }
        if self.partial.is_empty() {
            return each(Piece::Line(segment));
        }
        self.partial.extend_from_slice(segment);
        let line = std::mem::take(&mut self.partial);
        let go_on = each(Piece::Line(&line));
        // The buffer is kept for the next line.
        self.partial = line;
        self.partial.clear();
        go_on
    }

    /// The input ended: a last line without a newline still counts.
    pub fn finish(&mut self, mut each: impl FnMut(Piece<'_>) -> bool) {
        if !self.partial.is_empty() && !self.skipping {
            let line = std::mem::take(&mut self.partial);
            each(Piece::Line(&line));
        }
    }
}
