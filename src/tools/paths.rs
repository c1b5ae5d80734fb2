//! Files that tools read and write: where they may (as the reference allows it: inside the client's
//! roots, the `--filesystemRoot` folders and the temp directory; anywhere with
//! `--allowUnrestrictedPaths`, unless the client lists roots, which then win), and how a
//! named file is resolved and written.

use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::settings::BrowserSource;
use crate::tools::Ctx;

/// The file path arguments tools take: files the server writes, and files the browser reads
/// (uploads: only checked when the browser runs on this machine, as the reference does).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PathArgs {
    file_path: Option<String>,
    request_file_path: Option<String>,
    response_file_path: Option<String>,
    #[serde(default)]
    file_paths: Vec<String>,
}

/// The first file path in a call's arguments that lies outside the allowed folders, as the
/// error to answer with.
pub fn refused(cx: &Ctx, args: &Value) -> Option<String> {
    // The arguments passed their tool's schema, which gives these names these types; if one
    // ever does not, the call is refused rather than left unchecked.
    let given = match PathArgs::deserialize(args) {
        Ok(p) => p,
        Err(e) => return Some(format!("Invalid arguments: {e}")),
    };
    let written = [
        &given.file_path,
        &given.request_file_path,
        &given.response_file_path,
    ];
    let browser_side: &[String] = if browser_is_local(&cx.settings.source) {
        &given.file_paths
    } else {
        &[]
    };
    let paths = written.into_iter().flatten().chain(browser_side);
    for path in paths {
        if let Err(e) = check(cx, path) {
            return Some(e);
        }
    }
    None
}

/// `Ok` when `path` may be read or written.
pub fn check(cx: &Ctx, path: &str) -> Result<(), String> {
    let client = cx.client_roots.as_ref();
    if client.is_none() && cx.settings.unrestricted_paths {
        return Ok(());
    }
    let mut roots: Vec<PathBuf> = client.cloned().unwrap_or_default();
    roots.extend(cx.settings.file_roots.iter().cloned());
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

/// The real path: absolute, with its longest existing ancestor's symbolic links resolved
/// (a file to write, or its folders, may not exist yet).
fn canonical(path: &Path) -> PathBuf {
    resolve_existing_prefix(&std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// `path` with its longest existing ancestor replaced by that ancestor's canonical form.
pub fn resolve_existing_prefix(path: &Path) -> PathBuf {
    let mut missing = Vec::new();
    let mut current = path.to_path_buf();
    loop {
        if let Ok(real) = fs::canonicalize(&current) {
            let mut out = real;
            for part in missing.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (current.file_name().map(|n| n.to_owned()), current.parent()) {
            (Some(name), Some(parent)) => {
                missing.push(name);
                current = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// Replaces the last extension of the file name by `ext` (a leading dot does not start
/// one: `.env` gains one).
pub fn with_extension(path: &Path, ext: &str) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = match name.rfind('.') {
        Some(i) if i > 0 => &name[..i],
        _ => name.as_str(),
    };
    path.with_file_name(format!("{stem}.{ext}"))
}

/// Writes a file only the user can read, creating its directory, refusing to follow a
/// symbolic link at the file itself (it could point anywhere).
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    file.write_all(bytes)
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
