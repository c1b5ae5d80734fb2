//! Base64 VLQ, the number encoding of a source map's `mappings`.

/// The numbers of one segment, in order; an item is `None` when the text is malformed.
pub(super) struct Fields<'a> {
    bytes: std::slice::Iter<'a, u8>,
}

impl<'a> Fields<'a> {
    pub(super) fn new(segment: &'a str) -> Self {
        Fields {
            bytes: segment.as_bytes().iter(),
        }
    }
}

impl Iterator for Fields<'_> {
    type Item = Option<i64>;

    fn next(&mut self) -> Option<Option<i64>> {
        let mut value: i64 = 0;
        let mut shift = 0;
        let mut first = true;
        loop {
            let Some(&byte) = self.bytes.next() else {
                return if first { None } else { Some(None) };
            };
            first = false;
            let Some(digit) = digit(byte) else {
                return Some(None);
            };
            // 32-bit values at most, as the spec allows: more digits are malformed.
            if shift > 30 {
                return Some(None);
            }
            value |= i64::from(digit & 31) << shift;
            shift += 5;
            if digit & 32 == 0 {
                break;
            }
        }
        let magnitude = value >> 1;
        Some(Some(if value & 1 == 1 {
            -magnitude
        } else {
            magnitude
        }))
    }
}

fn digit(byte: u8) -> Option<u8> {
    match byte {
        b'A'..=b'Z' => Some(byte - b'A'),
        b'a'..=b'z' => Some(byte - b'a' + 26),
        b'0'..=b'9' => Some(byte - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}
