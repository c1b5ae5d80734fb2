//! Property tests of the line framing: however the client's stream is cut into reads, every
//! complete line within the limit is handled once, in order, and a line over the limit is
//! rejected once and dropped whole (its tail is never taken for a line).

use devtools_mcp::mcp::framing::{Lines, Piece};
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
