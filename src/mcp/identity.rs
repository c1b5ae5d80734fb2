//! What the server says about itself: its name and version (in `initialize`, and in every
//! modern result and closed stream), and the handshake versions of MCP it speaks. The server
//! and the modern protocol both use these, so they live below both.

pub(super) const SERVER_NAME: &str = "devtools-mcp";
pub(super) const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Protocol versions we speak, oldest first. An unknown version is answered with the last.
pub(crate) const PROTOCOL_VERSIONS: &[&str] =
    &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// The version to answer a client that asked for `requested`.
pub(super) fn negotiate(requested: Option<&str>) -> &'static str {
    let latest = PROTOCOL_VERSIONS[PROTOCOL_VERSIONS.len() - 1];
    match requested {
        Some(v) => PROTOCOL_VERSIONS
            .iter()
            .copied()
            .find(|known| *known == v)
            .unwrap_or(latest),
        None => latest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_versions_are_echoed() {
        for v in PROTOCOL_VERSIONS {
            assert_eq!(negotiate(Some(v)), *v);
        }
    }

    #[test]
    fn unknown_versions_get_the_latest() {
        assert_eq!(negotiate(Some("1999-01-01")), "2025-11-25");
        assert_eq!(negotiate(Some("2026-06-30")), "2025-11-25");
        assert_eq!(negotiate(None), "2025-11-25");
    }
}
