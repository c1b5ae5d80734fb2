//! Every file the server reads or writes for a tool goes through here: where it may (as the
//! reference allows it: inside the client's roots, the `--filesystemRoot` folders and the
//! temp directory; anywhere with `--allowUnrestrictedPaths`, unless the client lists roots,
//! which then win), and how it is opened.
//!
//! A path argument is untrusted (page text can talk an agent into any path), so:
//! - it is normalised lexically first (`<root>/nx/../../x` is `<root>/../x` whether or not
//!   `nx` exists), then its folder is resolved to the real one (symbolic links followed) and
//!   that is what must lie inside a root;
//! - missing folders are created only after that check, one at a time, and the real folder
//!   is checked again once they exist;
//! - the file itself is opened without following a symbolic link (`O_NOFOLLOW`) and without
//!   blocking (`O_NONBLOCK`: a FIFO cannot stall the event loop), and must be a regular file;
//! - files written are new files only the user can read (mode 0600); reads are capped.

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::settings::BrowserSource;
use crate::tools::Ctx;

/// Opens the file a result is written to (`filePath`), inside the roots: the path as the
/// agent gave it (for the answer) and the file, `None` without a path, or the error text.
pub fn output(cx: &Ctx, file_path: Option<String>) -> Result<Option<(String, File)>, String> {
    let Some(path) = file_path else {
        return Ok(None);
    };
    match create_at(&Roots::of(cx), &path) {
        Ok((_, file)) => Ok(Some((path, file))),
        Err(f) => Err(f.text(|e| format!("Could not write {path}: {e}"))),
    }
}

/// The most `evaluate_script` reads from a `sourcePath`: far more than any script an agent
/// means to run, small enough that reading it cannot hold the event loop noticeably.
pub const SOURCE_LIMIT: u64 = 4 * 1024 * 1024;

/// Why a file could not be used: refused (the message names the path and what was wrong),
/// or the operating system's error, which each tool words as the reference does.
#[derive(Debug)]
pub enum Failure {
    Refused(String),
    Io(io::Error),
}

impl Failure {
    /// The text an agent reads: a refusal as it is, an I/O error worded by `could_not`.
    pub fn text(self, could_not: impl FnOnce(&io::Error) -> String) -> String {
        match self {
            Failure::Refused(m) => m,
            Failure::Io(e) => could_not(&e),
        }
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        Failure::Io(e)
    }
}

/// The folders files may be in (their real paths), or anywhere.
pub struct Roots(Option<Vec<PathBuf>>);

impl Roots {
    /// The call's roots: the client's, or `--allowUnrestrictedPaths`' anywhere; then the
    /// `--filesystemRoot` folders and the temp directory.
    pub fn of(cx: &Ctx) -> Roots {
        let client = cx.client_roots.as_ref();
        if client.is_none() && cx.settings.unrestricted_paths {
            return Roots::anywhere();
        }
        let mut roots: Vec<PathBuf> = client.cloned().unwrap_or_default();
        roots.extend(cx.settings.file_roots.iter().cloned());
        roots.push(std::env::temp_dir());
        Roots::within(roots)
    }

    pub fn anywhere() -> Roots {
        Roots(None)
    }

    pub fn within(roots: Vec<PathBuf>) -> Roots {
        let real = |r: PathBuf| fs::canonicalize(&r).unwrap_or_else(|_| lexical(&r));
        Roots(Some(roots.into_iter().map(real).collect()))
    }

    fn allow(&self, given: &str, real: &Path) -> Result<(), Failure> {
        match &self.0 {
            Some(roots) if !roots.iter().any(|r| real.starts_with(r)) => {
                Err(Failure::Refused(format!(
                    "Access denied: path {given} (canonical: {}) is not within any of the configured workspace roots.",
                    real.display()
                )))
            }
            _ => Ok(()),
        }
    }

    /// Where `given` leads, when that is inside the roots.
    pub fn check(&self, given: &str) -> Result<Target, Failure> {
        let target = Target::resolve(given)?;
        self.allow(given, &target.path())?;
        Ok(target)
    }
}

/// A file named by a path argument: its real folder (which may end in folders still to be
/// created) and its own name, which is never resolved (a symbolic link there is refused
/// when the file is opened).
pub struct Target {
    given: String,
    folder: PathBuf,
    /// How many of `folder`'s last components do not exist yet.
    missing: usize,
    name: OsString,
}

impl Target {
    fn resolve(given: &str) -> Result<Target, Failure> {
        let normal = lexical(Path::new(given));
        let (folder, name) = match (normal.file_name(), normal.parent()) {
            (Some(name), Some(folder)) => (folder, name.to_owned()),
            // `/` or an empty path: no file name; checked (and shown) as the folder itself.
            _ => (normal.as_path(), OsString::new()),
        };
        let (folder, missing) = real_prefix(folder);
        Ok(Target {
            given: given.to_owned(),
            folder,
            missing,
            name,
        })
    }

    /// The path the file is opened at.
    pub fn path(&self) -> PathBuf {
        if self.name.is_empty() {
            return self.folder.clone();
        }
        self.folder.join(&self.name)
    }

    /// The same file with its last extension replaced by `ext` (a leading dot does not start
    /// one: `.env` gains one), as the reference names screenshots and body files.
    pub fn with_extension(mut self, ext: &str) -> Target {
        self.name = with_extension(Path::new(&self.name), ext).into_os_string();
        self
    }

    /// Creates the folders still missing, each inside the roots, then checks the real folder
    /// again (a link may have appeared meanwhile).
    fn make_folders(&mut self, roots: &Roots) -> Result<(), Failure> {
        if self.missing == 0 {
            return Ok(());
        }
        let parts: Vec<_> = self.folder.components().collect();
        let first = parts.len() - self.missing;
        let mut at: PathBuf = parts[..first].iter().collect();
        for part in &parts[first..] {
            at.push(part);
            match fs::create_dir(&at) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && at.is_dir() => {}
                Err(e) => return Err(Failure::Io(e)),
            }
        }
        self.folder = fs::canonicalize(&self.folder)?;
        self.missing = 0;
        roots.allow(&self.given, &self.path())
    }
}

/// Opens the file for writing, new or emptied, after creating its missing folders inside
/// the roots. Refuses a symbolic link and anything that is not a regular file.
pub fn create(roots: &Roots, mut target: Target) -> Result<(PathBuf, File), Failure> {
    if target.name.is_empty() {
        let given = &target.given;
        return Err(Failure::Refused(format!(
            "The path {given} does not name a file."
        )));
    }
    target.make_folders(roots)?;
    let path = target.path();
    let file = open(
        &target,
        fs::OpenOptions::new().write(true).create(true).mode(0o600),
    )?;
    // Emptied only once it is known to be a regular file of ours to write.
    file.set_len(0)?;
    Ok((path, file))
}

/// Checks `given` against the roots and opens it for writing (see [`create`]).
pub fn create_at(roots: &Roots, given: &str) -> Result<(PathBuf, File), Failure> {
    create(roots, roots.check(given)?)
}

/// Checks `given` against the roots, gives it the extension `ext` (as the reference names
/// its output files) and opens it for writing (see [`create`]); errors worded for the agent.
pub fn create_as(roots: &Roots, given: &str, ext: &str) -> Result<(PathBuf, File), String> {
    let resolve = |e: &io::Error| format!("Could not resolve the path {given:?}: {e}");
    let target = roots.check(given).map_err(|f| f.text(resolve))?;
    let target = target.with_extension(ext);
    let shown = target.path();
    create(roots, target).map_err(|f| f.text(|e| format!("Could not write {shown:?}: {e}")))
}

/// Checks `given` against the roots and writes `bytes` there (see [`write`]).
pub fn write_at(roots: &Roots, given: &str, bytes: &[u8]) -> Result<PathBuf, Failure> {
    write(roots, roots.check(given)?, bytes)
}

/// Writes `bytes` as the whole content of the target's file (see [`create`]); returns the
/// path written.
pub fn write(roots: &Roots, target: Target, bytes: &[u8]) -> Result<PathBuf, Failure> {
    use std::io::Write;
    let (path, mut file) = create(roots, target)?;
    file.write_all(bytes)?;
    Ok(path)
}

/// Reads the text file `given` names, inside the roots, of at most `limit` bytes.
pub fn read_text(roots: &Roots, given: &str, limit: u64) -> Result<String, Failure> {
    let target = roots.check(given)?;
    if target.missing > 0 {
        return Err(Failure::Io(io::ErrorKind::NotFound.into()));
    }
    let file = open(&target, fs::OpenOptions::new().read(true))?;
    let size = file.metadata()?.len();
    let mut text = String::new();
    // Read one byte past the limit: a file that grows while being read is caught too.
    file.take(limit + 1).read_to_string(&mut text)?;
    if size > limit || text.len() as u64 > limit {
        return Err(Failure::Refused(format!(
            "The file {given} is too large: at most {limit} bytes are read."
        )));
    }
    Ok(text)
}

/// Opens the target's file without following a link at its name and without blocking, and
/// refuses what is not a regular file.
fn open(target: &Target, options: &mut fs::OpenOptions) -> Result<File, Failure> {
    let path = target.path();
    let given = &target.given;
    let not_regular = || {
        Failure::Refused(format!(
            "The path {given} is not a regular file (a FIFO, device, socket or folder); only regular files are read or written."
        ))
    };
    // Looked at first for a clear message; the descriptor's own type decides below.
    match fs::symlink_metadata(&path) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(Failure::Refused(format!(
                "The path {given} is a symbolic link; links are not followed for files."
            )))
        }
        Ok(m) if !m.is_file() => return Err(not_regular()),
        _ => {}
    }
    let file = options
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) | Some(libc::ENXIO) => not_regular(),
            _ => Failure::Io(e),
        })?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    // Another name for the same file may lie outside the roots: writing or reading it here
    // would reach that file.
    if std::os::unix::fs::MetadataExt::nlink(&meta) > 1 {
        return Err(Failure::Refused(format!(
            "The path {given} is a file with other hard links; only files with a single name are read or written."
        )));
    }
    Ok(file)
}

/// `path` made absolute against the working directory, with `.` and `..` resolved by name
/// alone (`..` at the top stays at the top).
pub fn lexical(path: &Path) -> PathBuf {
    let joined = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `folder` (normalised) with its longest existing ancestor replaced by that ancestor's real
/// path, and how many components after it do not exist.
fn real_prefix(folder: &Path) -> (PathBuf, usize) {
    let mut missing = Vec::new();
    let mut current = folder.to_path_buf();
    loop {
        if let Ok(mut real) = fs::canonicalize(&current) {
            let count = missing.len();
            for part in missing.iter().rev() {
                real.push(part);
            }
            return (real, count);
        }
        match (current.file_name().map(|n| n.to_owned()), current.parent()) {
            (Some(name), Some(parent)) => {
                missing.push(name);
                current = parent.to_path_buf();
            }
            _ => return (folder.to_path_buf(), 0),
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

/// A new private directory under the system's temporary directory.
pub fn temp_dir() -> Result<PathBuf, String> {
    use std::os::unix::fs::DirBuilderExt;
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let base = std::env::temp_dir();
    let mut last = None;
    for _ in 0..16 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = base.join(format!(
            "devtools-mcp-{}-{nanos:08x}{n}",
            std::process::id()
        ));
        // Creating (not reusing) the directory is what makes it ours alone.
        match fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) => last = Some(e),
        }
    }
    Err(format!(
        "Could not create a temporary directory in {}: {}",
        base.display(),
        last.map(|e| e.to_string()).unwrap_or_default()
    ))
}

// ---------------------------------------------------------------- before a call runs

/// The file path arguments tools take: files the server writes or reads, and files the
/// browser reads (uploads: only checked when the browser runs on this machine, as the
/// reference does).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PathArgs {
    file_path: Option<String>,
    request_file_path: Option<String>,
    response_file_path: Option<String>,
    source_path: Option<String>,
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
    let server_side = [
        &given.file_path,
        &given.request_file_path,
        &given.response_file_path,
        &given.source_path,
    ];
    let browser_side: &[String] = if browser_is_local(&cx.settings.source) {
        &given.file_paths
    } else {
        &[]
    };
    let mut paths = server_side
        .into_iter()
        .flatten()
        .chain(browser_side)
        .peekable();
    // Most calls name no file: no roots to resolve (each is a realpath) on their way.
    paths.peek()?;
    let roots = Roots::of(cx);
    for path in paths {
        if let Err(Failure::Refused(e)) = roots.check(path) {
            return Some(e);
        }
    }
    None
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

#[cfg(test)]
#[path = "files_tests.rs"]
mod tests;
