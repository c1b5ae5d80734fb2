//! Decoding the base64 the browser uses for binary data: images, recordings and streams
//! strictly, network bodies leniently.

/// How many bytes `data` (padded standard base64) decodes to.
pub(super) fn decoded_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|b| *b == b'=').count().min(2);
    (data.len() / 4 * 3).saturating_sub(padding)
}

/// Decodes standard base64 (the alphabet with `+` and `/`, `=` padding), as the browser sends
/// images.
pub(super) fn decode_base64(data: &str) -> Result<Vec<u8>, String> {
    fn value(c: u8) -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some((c - b'A') as u32),
            b'a'..=b'z' => Some((c - b'a') as u32 + 26),
            b'0'..=b'9' => Some((c - b'0') as u32 + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    }
    let bad = || "The browser sent an image that is not valid base64.".to_owned();
    let bytes = data.trim_end_matches('=').as_bytes();
    if data.len() - bytes.len() > 2 || bytes.len() % 4 == 1 {
        return Err(bad());
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3 + 2);
    for chunk in bytes.chunks(4) {
        let mut acc = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            acc |= value(*c).ok_or_else(bad)? << (18 - 6 * i);
        }
        let produced = chunk.len() - 1; // 4 chars → 3 bytes, 3 → 2, 2 → 1
        for i in 0..produced {
            out.push((acc >> (16 - 8 * i)) as u8);
        }
    }
    Ok(out)
}

/// Base64 as CDP sends binary network bodies, read leniently: padding optional, whitespace
/// ignored, the URL-safe alphabet's `-` and `_` taken too; `None` for any other character.
pub(super) fn decode_lenient(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_known_vectors() {
        let cases: &[(&str, &[u8])] = &[
            ("", b""),
            ("Zg==", b"f"),
            ("Zm8=", b"fo"),
            ("Zm9v", b"foo"),
            ("Zm9vYg==", b"foob"),
            ("Zm9vYmE=", b"fooba"),
            ("Zm9vYmFy", b"foobar"),
            ("AP8=", &[0, 255]),
            ("+/+/", &[0xfb, 0xff, 0xbf]),
            (
                "iVBORw0KGgo=",
                &[0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a],
            ),
        ];
        for (text, bytes) in cases {
            assert_eq!(decode_base64(text).as_deref(), Ok(*bytes), "{text}");
            assert_eq!(decoded_len(text), bytes.len(), "{text}");
        }
        // Unpadded input decodes too.
        assert_eq!(decode_base64("Zg").as_deref(), Ok(&b"f"[..]));
    }

    #[test]
    fn base64_rejects_garbage() {
        assert!(decode_base64("Zm9v!").is_err());
        assert!(decode_base64("Z").is_err());
        assert!(decode_base64("Zg===").is_err());
        assert!(decode_base64("Zm 9v").is_err());
    }

    #[test]
    fn base64_decodes_what_cdp_sends() {
        assert_eq!(decode_lenient("aGVsbG8=").as_deref(), Some(&b"hello"[..]));
        assert_eq!(
            decode_lenient("AAEC/w==").as_deref(),
            Some(&[0u8, 1, 2, 255][..])
        );
        assert_eq!(decode_lenient("aGk").as_deref(), Some(&b"hi"[..]));
        assert!(decode_lenient("a*b").is_none());
    }
}
