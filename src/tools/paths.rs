//! Where tools may read and write files, as the reference allows it: inside the client's
//! roots, the `--filesystemRoot` folders and the temp directory; anywhere with
//! `--allowUnrestrictedPaths`, unless the client lists roots (they then win).

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::app::App;

/// The file path arguments tools take.
const PATH_ARGUMENTS: &[&str] = &[
    "filePath",
    "requestFilePath",
    "responseFilePath",
    "filePaths",
];

/// The first file path in a call's arguments that lies outside the allowed folders, as the
/// error to answer with.
pub fn refused(app: &App, args: &Value) -> Option<String> {
    let paths = PATH_ARGUMENTS.iter().flat_map(|key| match &args[*key] {
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
