//! What the screenshot and emulation tests share: the image of an answer, decoded, and the size
//! of a PNG.

use super::ToolResult;

/// Standard base64 (padding optional) to bytes.
pub fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a') as u32 + 26,
            b'0'..=b'9' => (c - b'0') as u32 + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let bytes = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::new();
    for chunk in bytes.chunks(4) {
        let mut acc = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            acc |= value(*c) << (18 - 6 * i);
        }
        for i in 0..chunk.len() - 1 {
            out.push((acc >> (16 - 8 * i)) as u8);
        }
    }
    out
}

/// Width and height from a PNG's IHDR chunk, after checking the signature.
pub fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert!(bytes.len() > 24, "PNG too short: {} bytes", bytes.len());
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    (be(&bytes[16..20]), be(&bytes[20..24]))
}

/// The one image of a screenshot answer: (mimeType, decoded bytes).
pub fn image(r: &ToolResult) -> (String, Vec<u8>) {
    let images = r.images();
    assert_eq!(images.len(), 1, "expected one image: {}", r.raw);
    let mime = images[0]["mimeType"].as_str().unwrap_or("").to_string();
    let data = images[0]["data"].as_str().unwrap_or("");
    (mime, decode_base64(data))
}
