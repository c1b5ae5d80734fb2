//! Where tools may read and write files, as the reference allows it: inside the client's
//! roots, the `--filesystemRoot` folders and the temp directory; anywhere with
//! `--allowUnrestrictedPaths`, unless the client lists roots (they then win).

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::app::App;
use crate::settings::BrowserSource;

/// The file path arguments tools take: files the server writes, and files the browser reads
/// (uploads: only checked when the browser runs on this machine, as the reference does).
const PATH_ARGUMENTS: &[&str] = &["filePath", "requestFilePath", "responseFilePath"];
const BROWSER_PATH_ARGUMENTS: &[&str] = &["filePaths"];

/// The first file path in a call's arguments that lies outside the allowed folders, as the
/// error to answer with.
pub fn refused(app: &App, args: &Value) -> Option<String> {
    let browser_side: &[&str] = if browser_is_local(&app.settings.source) {
        BROWSER_PATH_ARGUMENTS
    } else {
        &[]
    };
    let keys = PATH_ARGUMENTS.iter().chain(browser_side);
    let paths = keys.flat_map(|key| match &args[*key] {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    });
    for path in paths {
        if let Err(e) = check(app, path) {
            return Some(e);
        }
    }
    None
}

/// `Ok` when `path` may be read or written.
pub fn check(app: &App, path: &str) -> Result<(), String> {
    let client = app.session.client_roots.as_ref();
    if client.is_none() && app.settings.unrestricted_paths {
        return Ok(());
    }
    let mut roots: Vec<PathBuf> = client.cloned().unwrap_or_default();
    roots.extend(app.settings.file_roots.iter().cloned());
    roots.push(std::env::temp_dir());
    let canonical = canonical(Path::new(path));
    if roots
        .iter()
        .any(|root| canonical.starts_with(canonical_root(root)))
    {
        return Ok(());
    }
    Err(format!(
        "Access denied: path {path} (canonical: {}) is not within any of the configured workspace roots.",
        canonical.display()
    ))
}

/// Whether the browser's files are this machine's: one we launch, or one reached on the
/// loopback interface.
fn browser_is_local(source: &BrowserSource) -> bool {
    let url = match source {
        BrowserSource::Launch => return true,
        BrowserSource::BrowserUrl(u) | BrowserSource::WsEndpoint(u) => u,
    };
    let rest = url.split_once("://").map_or(url.as_str(), |(_, r)| r);
    let host_port = rest.split('/').next().unwrap_or("");
    let host = match host_port.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host_port.split(':').next().unwrap_or(""),
    };
    matches!(host, "localhost" | "::1") || host.starts_with("127.")
}

/// The real path: symlinks resolved. A file that does not exist yet (one to write) is its
/// folder's real path joined with its name.
fn canonical(path: &Path) -> PathBuf {
    if let Ok(c) = fs::canonicalize(path) {
        return c;
    }
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    match (absolute.parent(), absolute.file_name()) {
        (Some(dir), Some(name)) => match fs::canonicalize(dir) {
            Ok(d) => d.join(name),
            Err(_) => absolute.clone(),
        },
        _ => absolute.clone(),
    }
}

fn canonical_root(root: &Path) -> PathBuf {
    fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_browser_on_this_machine() {
        let local = |u: &str| browser_is_local(&BrowserSource::BrowserUrl(u.into()));
        assert!(browser_is_local(&BrowserSource::Launch));
        assert!(local("http://127.0.0.1:9222"));
        assert!(local("http://localhost:9222/"));
        assert!(browser_is_local(&BrowserSource::WsEndpoint(
            "ws://[::1]:9222/devtools/browser/x".into()
        )));
        assert!(!local("http://10.0.0.5:9222"));
        assert!(!local("http://example.com:9222"));
    }
}
