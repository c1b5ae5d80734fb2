//! Splitting the client's byte stream into lines, whatever sizes the reads come in.
//!
//! A line longer than the limit is rejected once and dropped whole: everything up to its
//! newline is skipped, so its tail is never taken for a line of its own.

/// What the stream yields.
#[derive(Debug, PartialEq)]
pub(crate) enum Piece<'a> {
    /// A complete line, without its newline.
    Line(&'a [u8]),
    /// A line longer than the limit: it is dropped whole.
    TooLong,
}

pub(crate) struct Lines {
    /// The start of a line whose newline has not come yet.
    partial: Vec<u8>,
    /// Inside a rejected line: bytes are skipped until its newline.
    skipping: bool,
    max: usize,
}

impl Lines {
    pub(crate) fn new(max: usize) -> Lines {
        Lines {
            partial: Vec::with_capacity(64 * 1024),
            skipping: false,
            max,
        }
    }

    /// Hands each piece in `bytes` to `each` until it returns false (the caller wants to stop
    /// reading for now). Returns how many bytes were used: the rest is the caller's to feed
    /// again later.
    pub(crate) fn feed(&mut self, bytes: &[u8], mut each: impl FnMut(Piece<'_>) -> bool) -> usize {
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
    pub(crate) fn finish(&mut self, mut each: impl FnMut(Piece<'_>) -> bool) {
        if !self.partial.is_empty() && !self.skipping {
            let line = std::mem::take(&mut self.partial);
            each(Piece::Line(&line));
        }
    }
}

/// Property tests of the framing: however the client's stream is cut into reads, every
/// complete line within the limit is handled once, in order, and a line over the limit is
/// rejected once and dropped whole (its tail is never taken for a line).
#[cfg(test)]
mod tests {
    use super::{Lines, Piece};
    use proptest::prelude::*;

    const MAX: usize = 32;

    #[derive(Debug, PartialEq)]
    enum Seen {
        Line(Vec<u8>),
        TooLong,
    }

    /// A line's content: any bytes but the newline (NULs included), short or over the limit.
    fn line() -> impl Strategy<Value = Vec<u8>> {
        let byte = prop_oneof![Just(0u8), Just(b'{'), Just(b' '), any::<u8>()].prop_map(|b| {
            if b == b'\n' {
                b'x'
            } else {
                b
            }
        });
        prop_oneof![
            3 => prop::collection::vec(byte.clone(), 0..=MAX),
            1 => prop::collection::vec(byte, MAX + 1..MAX * 5),
        ]
    }

    /// What a correct reader yields for these lines.
    fn expected(lines: &[Vec<u8>]) -> Vec<Seen> {
        let seen = |l: &Vec<u8>| match l.len() > MAX {
            true => Seen::TooLong,
            false => Seen::Line(l.clone()),
        };
        lines.iter().map(seen).collect()
    }

    /// Feeds `stream` in reads ending at `cuts`; `stop_every` makes the consumer ask to stop
    /// after that many pieces, the way the server pauses while its output is full.
    fn run(stream: &[u8], cuts: &[usize], stop_every: usize) -> Vec<Seen> {
        let mut lines = Lines::new(MAX);
        let mut seen = Vec::new();
        let mut begin = 0;
        for &cut in cuts.iter().chain(std::iter::once(&stream.len())) {
            let end = cut.clamp(begin, stream.len());
            let mut at = begin;
            while at < end {
                let mut n = 0;
                at += lines.feed(&stream[at..end], |p| {
                    seen.push(match p {
                        Piece::Line(l) => Seen::Line(l.to_vec()),
                        Piece::TooLong => Seen::TooLong,
                    });
                    n += 1;
                    n % stop_every != 0
                });
            }
            begin = end;
        }
        lines.finish(|_| panic!("every line of the stream ended with a newline"));
        seen
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        #[test]
        fn every_line_once_and_long_lines_dropped_whole(
            lines in prop::collection::vec(line(), 0..12),
            mut cuts in prop::collection::vec(0usize..400, 0..20),
            stop_every in 1usize..5,
        ) {
            let mut stream = Vec::new();
            for l in &lines {
                stream.extend_from_slice(l);
                stream.push(b'\n');
            }
            cuts.sort_unstable();
            prop_assert_eq!(run(&stream, &cuts, stop_every), expected(&lines));
        }
    }

    /// A case the property once found: a single NUL-filled line one byte over the limit, read
    /// whole, the consumer stopping after every piece.
    #[test]
    fn a_line_just_over_the_limit_read_at_once_is_dropped_once() {
        let line = vec![0u8; MAX + 1];
        let mut stream = line.clone();
        stream.push(b'\n');
        assert_eq!(run(&stream, &[], 1), expected(&[line]));
    }

    #[test]
    fn a_last_line_without_a_newline_still_counts() {
        let mut lines = Lines::new(MAX);
        let mut seen = Vec::new();
        lines.feed(b"ab\ncd", |p| {
            seen.push(format!("{p:?}"));
            true
        });
        lines.finish(|p| {
            seen.push(format!("{p:?}"));
            true
        });
        assert_eq!(
            seen,
            [
                format!("{:?}", Piece::Line(b"ab")),
                format!("{:?}", Piece::Line(b"cd"))
            ]
        );
    }
}
