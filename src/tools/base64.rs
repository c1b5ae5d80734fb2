//! Decoding the base64 the browser uses for binary data (images, recordings, streams).

/// How many bytes `data` (padded standard base64) decodes to.
pub fn decoded_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|b| *b == b'=').count().min(2);
    (data.len() / 4 * 3).saturating_sub(padding)
}

/// Decodes standard base64 (the alphabet with `+` and `/`, `=` padding), as the browser sends
/// images.
pub fn decode_base64(data: &str) -> Result<Vec<u8>, String> {
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
}
