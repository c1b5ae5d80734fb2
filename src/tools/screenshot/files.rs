//! Where a screenshot is written when it is not sent inline, and decoding the image the
//! browser sends.

use std::path::PathBuf;

use crate::tools::files::{self, Roots};

/// Writes the image to the file the agent named (inside the roots), with the extension set
/// to the image format's; returns the real path written.
pub(super) fn save(
    roots: &Roots,
    requested: &str,
    ext: &str,
    bytes: &[u8],
) -> Result<PathBuf, String> {
    let resolve = |e: &std::io::Error| format!("Could not resolve the path {requested:?}: {e}");
    let target = roots.check(requested).map_err(|f| f.text(resolve))?;
    let target = target.with_extension(ext);
    let quoted = serde_json::to_string(&target.path().to_string_lossy()).unwrap_or_default();
    files::write(roots, target, bytes)
        .map_err(|f| f.text(|e| format!("Could not write {quoted}: {e}")))
}

/// Writes the image to a new private folder under the temp directory.
pub(super) fn save_temp(roots: &Roots, ext: &str, bytes: &[u8]) -> Result<PathBuf, String> {
    let target = files::temp_dir()?.join(format!("screenshot.{ext}"));
    save(roots, &target.to_string_lossy(), ext, bytes)
}

// ---------------------------------------------------------------- base64

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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

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
    fn extensions_follow_the_format() {
        let p = |s: &str, e: &str| files::with_extension(Path::new(s), e).display().to_string();
        assert_eq!(p("/tmp/a.png", "jpeg"), "/tmp/a.jpeg");
        assert_eq!(p("/tmp/noext", "png"), "/tmp/noext.png");
        assert_eq!(p("/tmp/a.tar.gz", "webp"), "/tmp/a.tar.webp");
        assert_eq!(p("/tmp/.hidden", "png"), "/tmp/.hidden.png");
        assert_eq!(p("/tmp/dir.x/shot", "png"), "/tmp/dir.x/shot.png");
    }

    #[test]
    fn paths_resolve_missing_parts() {
        let base = std::env::temp_dir().canonicalize().unwrap();
        let given = format!("{}/no-such-dir-h7/x/shot.png", base.display());
        let p = Roots::anywhere()
            .check(&given)
            .unwrap()
            .with_extension("png")
            .path();
        assert_eq!(p, base.join("no-such-dir-h7/x/shot.png"));
    }
}
