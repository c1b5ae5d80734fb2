//! Where a screenshot is written when it is not sent inline.

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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

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
