//! A JSON reader for the snapshot's fixed framing: one object of named sections, most of
//! them flat arrays of numbers or of strings. It reads from a large buffer and hands each
//! number or string to the caller as it goes, so the text is never held and the hot loop is
//! a few comparisons per byte (serde_json over `io::Read` pays a call per byte). Small
//! sections (the header) are captured whole and handed to serde. Anything that is not JSON,
//! or not what the section holds, is an error that says what and at which byte.

use std::fmt::Display;
use std::io::{ErrorKind, Read};

use serde::de::{DeserializeOwned, DeserializeSeed, IgnoredAny};

const BUFFER: usize = 1 << 20;
/// How deep a skipped or captured value may nest (serde_json's own limit).
const DEPTH: usize = 128;

pub(super) struct Scanner<R> {
    input: R,
    buf: Box<[u8]>,
    pos: usize,
    end: usize,
    /// Bytes of the text before `buf[0]`.
    offset: u64,
    /// Whether the object's next member is its first.
    first: bool,
    /// A string's bytes as they are decoded.
    scratch: Vec<u8>,
}

impl<R: Read> Scanner<R> {
    pub(super) fn new(input: R) -> Scanner<R> {
        Scanner {
            input,
            buf: vec![0; BUFFER].into_boxed_slice(),
            pos: 0,
            end: 0,
            offset: 0,
            first: true,
            scratch: Vec::new(),
        }
    }

    /// `what` with where in the text it happened.
    pub(super) fn error(&self, what: impl Display) -> String {
        format!("{what} at byte {}", self.offset + self.pos as u64)
    }

    fn eof(&self, what: &str) -> String {
        self.error(format_args!("EOF while reading {what}"))
    }

    /// Reads more of the input; false at its end.
    #[cold]
    fn refill(&mut self) -> Result<bool, String> {
        self.offset += self.end as u64;
        self.pos = 0;
        self.end = 0;
        loop {
            match self.input.read(&mut self.buf) {
                Ok(n) => {
                    self.end = n;
                    return Ok(n > 0);
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("reading the file: {e}")),
            }
        }
    }

    #[inline]
    fn peek(&mut self) -> Result<Option<u8>, String> {
        if self.pos == self.end && !self.refill()? {
            return Ok(None);
        }
        Ok(Some(self.buf[self.pos]))
    }

    /// The next byte that is not whitespace, not consumed.
    #[inline]
    fn peek_token(&mut self) -> Result<Option<u8>, String> {
        loop {
            match self.peek()? {
                Some(b' ' | b'\n' | b'\r' | b'\t') => self.pos += 1,
                other => return Ok(other),
            }
        }
    }

    /// Consumes `byte` (after whitespace), or says what came instead.
    fn expect(&mut self, byte: u8, what: &str) -> Result<(), String> {
        match self.peek_token()? {
            Some(b) if b == byte => {
                self.pos += 1;
                Ok(())
            }
            Some(b) => Err(self.error(format_args!(
                "expected `{}` in {what}, found `{}`",
                byte as char,
                b.escape_ascii()
            ))),
            None => Err(self.eof(what)),
        }
    }

    /// The opening of the top-level object.
    pub(super) fn begin_object(&mut self) -> Result<(), String> {
        match self.peek_token()? {
            Some(b'{') => {
                self.pos += 1;
                self.first = true;
                Ok(())
            }
            Some(b) => Err(self.error(format_args!(
                "invalid type: the file is not a JSON object (it starts with `{}`)",
                b.escape_ascii()
            ))),
            None => Err(self.eof("the file: it is empty")),
        }
    }

    /// The top-level object's next key, its `:` consumed; `None` after its closing brace.
    pub(super) fn next_key(&mut self) -> Result<Option<String>, String> {
        let what = "the snapshot object";
        match self.peek_token()? {
            Some(b'}') => {
                self.pos += 1;
                return Ok(None);
            }
            Some(b',') if !self.first => self.pos += 1,
            Some(_) if self.first => {}
            Some(b) => {
                return Err(self.error(format_args!(
                    "expected `,` or `}}` in {what}, found `{}`",
                    b.escape_ascii()
                )))
            }
            None => return Err(self.eof(what)),
        }
        self.first = false;
        self.expect(b'"', what)?;
        let key = self.string_body()?.to_owned();
        self.expect(b':', what)?;
        Ok(Some(key))
    }

    /// Only whitespace may follow the top-level object.
    pub(super) fn end(&mut self) -> Result<(), String> {
        match self.peek_token()? {
            None => Ok(()),
            Some(_) => Err(self.error("trailing characters after the snapshot object")),
        }
    }

    /// An array of unsigned 32-bit integers, each handed to `each` (whose error stops it).
    pub(super) fn numbers(
        &mut self,
        what: &str,
        mut each: impl FnMut(u32) -> Result<(), String>,
    ) -> Result<(), String> {
        let mut more = self.open_array(what)?;
        while more {
            if let Some(closed) = self.plain_elements(&mut each)? {
                more = !closed;
                continue;
            }
            let v = self.unsigned(what)?;
            each(v).map_err(|e| self.error(e))?;
            more = self.after_element(what)?;
        }
        Ok(())
    }

    /// The common case read straight from the buffer, for as long as it lasts: elements of
    /// digits that fit 32 bits (no leading zero) each with the `,` or `]` right after it, in
    /// what is buffered, handed to `each` as they come. `Some(true)` once the `]` is read;
    /// `Some(false)` after some elements, `None` before any: either way the next element is
    /// not plain (or not wholly buffered) and is left, unread, to `unsigned` and
    /// `after_element`, which read it byte by byte and name any error. The position stays in
    /// a register meanwhile: a snapshot is tens of millions of such numbers.
    #[inline]
    fn plain_elements(
        &mut self,
        each: &mut impl FnMut(u32) -> Result<(), String>,
    ) -> Result<Option<bool>, String> {
        let start = self.pos;
        let mut pos = start;
        let buffered = &self.buf[..self.end];
        while let Some((v, digits, separator)) = plain_number(buffered, pos) {
            if let Err(e) = each(v) {
                // Where the byte-at-a-time path stands when it hands the number over.
                self.pos = pos + digits;
                return Err(self.error(e));
            }
            pos += digits + 1;
            if separator == b']' {
                self.pos = pos;
                return Ok(Some(true));
            }
        }
        self.pos = pos;
        Ok((pos > start).then_some(false))
    }

    /// An array's `[`; false when `]` closes it at once.
    fn open_array(&mut self, what: &str) -> Result<bool, String> {
        self.expect(b'[', what)?;
        if self.peek_token()? == Some(b']') {
            self.pos += 1;
            return Ok(false);
        }
        Ok(true)
    }

    /// What follows an array's element: `,` (true: another comes) or `]` (false).
    #[inline]
    fn after_element(&mut self, what: &str) -> Result<bool, String> {
        match self.peek_token()? {
            Some(b',') => {
                self.pos += 1;
                Ok(true)
            }
            Some(b']') => {
                self.pos += 1;
                Ok(false)
            }
            Some(b) => Err(self.error(format_args!(
                "expected `,` or `]` in {what}, found `{}`",
                b.escape_ascii()
            ))),
            None => Err(self.eof(what)),
        }
    }

    /// One unsigned integer (after whitespace) that fits 32 bits.
    #[inline]
    fn unsigned(&mut self, what: &str) -> Result<u32, String> {
        let mut v: u64 = match self.peek_token()? {
            Some(b @ b'0'..=b'9') => {
                self.pos += 1;
                (b - b'0') as u64
            }
            Some(b'-') => {
                return Err(self.error(format_args!("invalid value: a negative number in {what}")))
            }
            Some(b) => {
                return Err(self.error(format_args!(
                    "invalid type: expected an unsigned integer in {what}, found `{}`",
                    b.escape_ascii()
                )))
            }
            None => return Err(self.eof(what)),
        };
        let leading_zero = v == 0;
        let mut digits = 1;
        while let Some(b @ b'0'..=b'9') = self.peek()? {
            self.pos += 1;
            digits += 1;
            v = v * 10 + (b - b'0') as u64;
            if v > u32::MAX as u64 {
                return Err(self.error(format_args!(
                    "invalid value: a number in {what} does not fit 32 bits"
                )));
            }
        }
        match self.peek()? {
            _ if leading_zero && digits > 1 => {
                Err(self.error(format_args!("invalid number in {what}: a leading zero")))
            }
            Some(b'.' | b'e' | b'E') => Err(self.error(format_args!(
                "invalid type: a fraction or an exponent in {what}, expected an unsigned integer"
            ))),
            _ => Ok(v as u32),
        }
    }

    /// An array of strings, each handed to `each` (whose error stops it).
    pub(super) fn strings(
        &mut self,
        what: &str,
        mut each: impl FnMut(&str) -> Result<(), String>,
    ) -> Result<(), String> {
        let mut more = self.open_array(what)?;
        while more {
            self.expect(b'"', what)?;
            let at = self.offset + self.pos as u64;
            let s = self.string_body()?;
            each(s).map_err(|e| format!("{e} at byte {at}"))?;
            more = self.after_element(what)?;
        }
        Ok(())
    }

    /// A string's text after its opening quote, through its closing one, decoded.
    fn string_body(&mut self) -> Result<&str, String> {
        self.scratch.clear();
        loop {
            if self.pos == self.end && !self.refill()? {
                return Err(self.eof("a string"));
            }
            let chunk = &self.buf[self.pos..self.end];
            let stop = chunk
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .unwrap_or(chunk.len());
            self.scratch.extend_from_slice(&chunk[..stop]);
            self.pos += stop;
            if self.pos == self.end {
                continue;
            }
            let b = self.buf[self.pos];
            self.pos += 1;
            match b {
                b'"' => break,
                b'\\' => self.escape()?,
                _ => {
                    return Err(self.error("control character (\\u0000-\\u001F) found in a string"))
                }
            }
        }
        std::str::from_utf8(&self.scratch).map_err(|_| {
            format!(
                "invalid unicode in a string ending at byte {}",
                self.offset + self.pos as u64
            )
        })
    }

    fn escaped_byte(&mut self) -> Result<u8, String> {
        let b = self.peek()?.ok_or_else(|| self.eof("a string's escape"))?;
        self.pos += 1;
        Ok(b)
    }

    /// One escape after its backslash, onto `scratch`.
    fn escape(&mut self) -> Result<(), String> {
        let c = match self.escaped_byte()? {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 8,
            b'f' => 12,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => return self.unicode_escape(),
            _ => return Err(self.error("invalid escape in a string")),
        };
        self.scratch.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let mut v = 0;
        for _ in 0..4 {
            let b = self.escaped_byte()?;
            let d = (b as char)
                .to_digit(16)
                .ok_or_else(|| self.error("invalid \\u escape in a string"))?;
            v = v * 16 + d;
        }
        Ok(v)
    }

    fn unicode_escape(&mut self) -> Result<(), String> {
        let first = self.hex4()?;
        let code = match first {
            0xD800..=0xDBFF => {
                if self.escaped_byte()? != b'\\' || self.escaped_byte()? != b'u' {
                    return Err(self.error("lone leading surrogate in hex escape"));
                }
                let low = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(self.error("lone leading surrogate in hex escape"));
                }
                0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00)
            }
            0xDC00..=0xDFFF => return Err(self.error("lone trailing surrogate in hex escape")),
            c => c,
        };
        let c = char::from_u32(code).ok_or_else(|| self.error("invalid \\u escape"))?;
        let mut utf8 = [0; 4];
        self.scratch
            .extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
        Ok(())
    }

    /// A value of any kind, read through serde from its captured text (for small sections).
    pub(super) fn value<T: DeserializeOwned>(&mut self, what: &str) -> Result<T, String> {
        let mut text = Vec::new();
        self.pass_value(what, Some(&mut text))?;
        serde_json::from_slice(&text).map_err(|e| format!("{what}: {e}"))
    }

    /// A value of any kind, read through serde by `seed` from its captured text (for small
    /// sections that keep what they read in their own way).
    pub(super) fn value_into<S>(&mut self, what: &str, seed: S) -> Result<(), String>
    where
        S: for<'de> DeserializeSeed<'de, Value = ()>,
    {
        let mut text = Vec::new();
        self.pass_value(what, Some(&mut text))?;
        let mut json = serde_json::Deserializer::from_slice(&text);
        seed.deserialize(&mut json)
            .map_err(|e| format!("{what}: {e}"))
    }

    /// A value of any kind, checked and passed over.
    pub(super) fn skip(&mut self, what: &str) -> Result<(), String> {
        self.pass_value(what, None)
    }

    /// Checks one value's syntax, keeping its text in `keep` when given.
    fn pass_value(&mut self, what: &str, mut keep: Option<&mut Vec<u8>>) -> Result<(), String> {
        // What each open array (`]`) or object (`}`) expects next.
        let mut open: Vec<u8> = Vec::new();
        loop {
            self.pass_scalar_or_open(what, &mut open, keep.as_deref_mut())?;
            // After a value: close what is complete, or go on to the next member.
            loop {
                let Some(&close) = open.last() else {
                    return Ok(());
                };
                let b = self.peek_token()?.ok_or_else(|| self.eof(what))?;
                self.pos += 1;
                if let Some(k) = keep.as_deref_mut() {
                    k.push(b);
                }
                if b == close {
                    open.pop();
                } else if b == b',' {
                    if close == b'}' {
                        self.pass_key(what, keep.as_deref_mut())?;
                    }
                    break;
                } else {
                    return Err(self.error(format_args!(
                        "expected `,` or `{}` in {what}",
                        close as char
                    )));
                }
            }
        }
    }

    /// A member's key and colon, inside a value being passed over.
    fn pass_key(&mut self, what: &str, mut keep: Option<&mut Vec<u8>>) -> Result<(), String> {
        self.expect(b'"', what)?;
        self.pass_string(keep.as_deref_mut())?;
        self.expect(b':', what)?;
        if let Some(k) = keep {
            k.push(b':');
        }
        Ok(())
    }

    fn pass_string(&mut self, keep: Option<&mut Vec<u8>>) -> Result<(), String> {
        self.string_body()?;
        if let Some(k) = keep {
            // Re-encoded: the decoded text as a JSON string serde reads back the same.
            let s = std::str::from_utf8(&self.scratch).unwrap_or_default();
            serde_json::to_writer(&mut *k, s).map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// A scalar, or the opening of an array or object (pushed on `open`, and its first
    /// value's key read; an empty one is closed at once, as a scalar).
    fn pass_scalar_or_open(
        &mut self,
        what: &str,
        open: &mut Vec<u8>,
        mut keep: Option<&mut Vec<u8>>,
    ) -> Result<(), String> {
        loop {
            let b = self.peek_token()?.ok_or_else(|| self.eof(what))?;
            match b {
                b'[' | b'{' => {
                    if open.len() >= DEPTH {
                        return Err(self.error(format_args!("recursion limit exceeded in {what}")));
                    }
                    self.pos += 1;
                    if let Some(k) = keep.as_deref_mut() {
                        k.push(b);
                    }
                    let close = if b == b'[' { b']' } else { b'}' };
                    if self.peek_token()? == Some(close) {
                        self.pos += 1;
                        if let Some(k) = keep.as_deref_mut() {
                            k.push(close);
                        }
                        return Ok(());
                    }
                    open.push(close);
                    if b == b'{' {
                        self.pass_key(what, keep.as_deref_mut())?;
                    }
                }
                b'"' => {
                    self.pos += 1;
                    return self.pass_string(keep);
                }
                _ => return self.pass_literal(what, keep),
            }
        }
    }

    /// A number, `true`, `false` or `null`, checked by serde.
    fn pass_literal(&mut self, what: &str, keep: Option<&mut Vec<u8>>) -> Result<(), String> {
        let mut token = Vec::new();
        while let Some(b) = self.peek()? {
            if !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.')) {
                break;
            }
            if token.len() > 512 {
                return Err(self.error(format_args!("a number or literal too long in {what}")));
            }
            token.push(b);
            self.pos += 1;
        }
        if token.is_empty() {
            return Err(self.error(format_args!("expected a value in {what}")));
        }
        serde_json::from_slice::<IgnoredAny>(&token)
            .map_err(|_| self.error(format_args!("invalid value in {what}")))?;
        if let Some(k) = keep {
            k.extend_from_slice(&token);
        }
        Ok(())
    }
}

/// The number at `pos` in `buffered` when it is plain (see `Scanner::plain_elements`): its
/// value, its count of digits and the separator after it. Eight bytes are looked at at once.
#[inline]
fn plain_number(buffered: &[u8], pos: usize) -> Option<(u32, usize, u8)> {
    let rest = buffered.get(pos..)?.get(..16)?;
    let (head, tail) = rest.split_at(8);
    let word = u64::from_le_bytes(head.try_into().ok()?);
    let mut digits = leading_digits(word);
    let mut v = digits_value(word, digits);
    if digits == 8 {
        // Nine or ten digits: the rest one at a time (no u32 has more).
        for &b in tail.iter().take(3) {
            if !b.is_ascii_digit() {
                break;
            }
            v = v * 10 + (b - b'0') as u64;
            digits += 1;
        }
    }
    if digits == 0 || digits > 10 || (rest[0] == b'0' && digits > 1) {
        return None;
    }
    let separator = rest[digits];
    if separator != b',' && separator != b']' {
        return None;
    }
    Some((u32::try_from(v).ok()?, digits, separator))
}

const ONES: u64 = 0x0101_0101_0101_0101;

/// How many of the eight bytes of `word` (the first in its lowest byte) are ASCII digits
/// before the first that is not.
#[inline]
fn leading_digits(word: u64) -> usize {
    // A byte is a digit when its high nibble is 3 both as it is and once 6 is added (which
    // carries 0x3A-0x3F out of it); a carry into the next byte only ever follows a byte that
    // is not a digit, so it never hides the first one.
    let high = 0xF0 * ONES;
    let not_digit =
        ((word & high) ^ (0x30 * ONES)) | ((word.wrapping_add(6 * ONES) & high) ^ (0x30 * ONES));
    (not_digit.trailing_zeros() / 8) as usize
}

/// The value of the first `digits` (at most eight) ASCII digits of `word`, combined pairwise:
/// two digits, then four, then eight at a time.
#[inline]
fn digits_value(word: u64, digits: usize) -> u64 {
    if digits == 0 {
        return 0;
    }
    // The digits moved to the top bytes, so the bytes below are leading zeros.
    let mut v = word.wrapping_sub(0x30 * ONES) << (8 * (8 - digits));
    v = (v.wrapping_mul(10) + (v >> 8)) & 0x00FF_00FF_00FF_00FF;
    v = (v.wrapping_mul(100) + (v >> 16)) & 0x0000_FFFF_0000_FFFF;
    (v.wrapping_mul(10_000) + (v >> 32)) & 0xFFFF_FFFF
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hands out its text one byte a read: the scanner then never has 16 bytes buffered, so
    /// every number takes the byte-at-a-time path, the oracle for the fast one.
    struct OneByte<'a>(&'a [u8]);

    impl Read for OneByte<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let Some((&b, rest)) = self.0.split_first() else {
                return Ok(0);
            };
            out[0] = b;
            self.0 = rest;
            Ok(1)
        }
    }

    /// The numbers read; the caller refuses 77, so its error's place is checked too.
    fn numbers(input: impl Read) -> Result<Vec<u32>, String> {
        let mut scan = Scanner::new(input);
        let mut out = Vec::new();
        scan.numbers("the array", |v| {
            if v == 77 {
                return Err("77 refused".into());
            }
            out.push(v);
            Ok(())
        })?;
        Ok(out)
    }

    /// Both paths agree on `text`: the same numbers, or the same error at the same byte.
    fn agree(text: &[u8]) -> Result<Vec<u32>, String> {
        let fast = numbers(text);
        assert_eq!(fast, numbers(OneByte(text)), "{}", text.escape_ascii());
        fast
    }

    #[test]
    fn numbers_of_every_length_read_as_written() {
        let mut values: Vec<u32> = vec![0, 9, 10, 99_999_999, 100_000_000, u32::MAX - 1, u32::MAX];
        for digits in 1..=10u32 {
            let low = 10u64.pow(digits - 1);
            values.extend([low, low + 7, (low * 10 - 1).min(u32::MAX as u64)].map(|v| v as u32));
        }
        let mut text = b"[".to_vec();
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                text.push(b',');
            }
            text.extend(v.to_string().bytes());
        }
        text.extend(b"]          ");
        assert_eq!(agree(&text), Ok(values));
    }

    #[test]
    fn what_the_fast_path_leaves_is_read_or_refused_as_before() {
        let cases: &[&[u8]] = &[
            b"[1,2 ,3,4444444444444444,5]",
            b"[12345678901,1,2,3,4,5,6,7,8,9]",
            b"[4294967296,1,2,3,4,5,6,7,8,9]",
            b"[4294967295,1,2,3,4,5,6,7,8,9]",
            b"[0123,1,2,3,4,5,6,7,8,9,10,11]",
            b"[00,1,2,3,4,5,6,7,8,9,10,11,12]",
            b"[1.5,1,2,3,4,5,6,7,8,9,10,11,12]",
            b"[15e3,1,2,3,4,5,6,7,8,9,10,11,12]",
            b"[-1,1,2,3,4,5,6,7,8,9,10,11,12]",
            b"[1\n,2\n,3\n,4,5,6,7,8,9,10,11,12]",
            b"[1,2,3,4,5,6,7,8,9,10,11,12\n]",
            b"[12345678\xfa,1,2,3,4,5,6,7,8,9]",
            b"[1\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff]",
            b"[123:,1,2,3,4,5,6,7,8,9,10,11,12]",
            b"[123/,1,2,3,4,5,6,7,8,9,10,11,12]",
            b"[1,2,3,4,5,6,7,8,9,10,11,12,",
            b"[1,2,3,4,5,6,7,8,9,10,11,12]]",
            b"[1,2,3,4,77,6,7,8,9,10,11,12,13,14,15,16]",
            b"[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,77]",
            b"[77]",
        ];
        assert_eq!(
            agree(b"[1,2,3,4,77,6,7,8,9,10,11,12,13,14,15,16]"),
            Err("77 refused at byte 11".into())
        );
        for text in cases {
            agree(text).ok();
        }
    }

    #[test]
    fn random_arrays_read_alike_both_ways() {
        // A small generator: the test needs variety, not quality.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |bound: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % bound
        };
        let alphabet = b"0123456789,]  \n.e-x\xfa/:";
        for _ in 0..2_000 {
            let mut text = b"[".to_vec();
            for i in 0..next(40) {
                if i > 0 {
                    text.push(b',');
                }
                let v = if next(50) == 0 {
                    77
                } else {
                    next(u32::MAX as u64 + 1) >> next(32)
                };
                text.extend(v.to_string().bytes());
                if next(8) == 0 {
                    text.push(alphabet[next(alphabet.len() as u64) as usize]);
                }
            }
            text.push(b']');
            agree(&text).ok();
        }
    }
}
