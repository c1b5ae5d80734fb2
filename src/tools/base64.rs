//! Decoding the base64 the browser uses for binary data: images, recordings and streams
//! strictly, network bodies leniently (the `base64` crate's decoder, told how strict to be).

use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;

/// How many bytes `data` (padded standard base64) decodes to.
pub(super) fn decoded_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|b| *b == b'=').count().min(2);
    (data.len() / 4 * 3).saturating_sub(padding)
}

/// Padding optional and spare low bits ignored, as the browser's own decoder reads it.
const TOLERANT: GeneralPurposeConfig = GeneralPurposeConfig::new()
    .with_decode_padding_mode(DecodePaddingMode::Indifferent)
    .with_decode_allow_trailing_bits(true);
const STANDARD: GeneralPurpose = GeneralPurpose::new(&alphabet::STANDARD, TOLERANT);

/// Decodes standard base64 (the alphabet with `+` and `/`, `=` padding), as the browser sends
/// images.
pub(super) fn decode_base64(data: &str) -> Result<Vec<u8>, String> {
    STANDARD
        .decode(data)
        .map_err(|_| "The browser sent an image that is not valid base64.".to_owned())
}

/// Base64 as CDP sends binary network bodies, read leniently: padding optional, whitespace
/// ignored, the URL-safe alphabet's `-` and `_` taken too; `None` for any other character.
pub(super) fn decode_lenient(text: &str) -> Option<Vec<u8>> {
    let text = text.split('=').next().unwrap_or_default();
    let unusual = |b: u8| matches!(b, b' ' | b'\n' | b'\r' | b'\t' | b'-' | b'_');
    if !text.bytes().any(unusual) {
        return STANDARD.decode(text).ok();
    }
    let standard: Vec<u8> = text
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .map(|b| match b {
            b'-' => b'+',
            b'_' => b'/',
            b => b,
        })
        .collect();
    STANDARD.decode(standard).ok()
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
        assert_eq!(
            decode_lenient("aGVs\r\nbG8").as_deref(),
            Some(&b"hello"[..])
        );
        assert_eq!(
            decode_lenient("-_-_").as_deref(),
            Some(&[0xfb, 0xff, 0xbf][..])
        );
    }
}
