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
use crate::tools::call::{self, CallId};
use crate::tools::Ctx;

/// Opens the file a result is written to (`filePath`), inside the roots: the path as the
/// agent gave it (for the answer) and the file, `None` without a path, or the error text.
pub(crate) fn output(
    cx: &Ctx,
    call: CallId,
    file_path: Option<String>,
) -> Result<Option<(String, File)>, String> {
    let Some(path) = file_path else {
        return Ok(None);
    };
    match create_at(&Roots::of(cx, call), &path) {
        Ok((_, file)) => Ok(Some((path, file))),
        Err(f) => Err(f.text(|e| format!("Could not write {path}: {e}"))),
    }
}

/// The most `evaluate_script` reads from a `sourcePath`: far more than any script an agent
/// means to run, small enough that reading it cannot hold the event loop noticeably.
pub(crate) const SOURCE_LIMIT: u64 = 4 * 1024 * 1024;

/// Why a file could not be used: refused (the message names the path and what was wrong),
/// or the operating system's error, which each tool words as the reference does.
#[derive(Debug)]
pub(crate) enum Failure {
    Refused(String),
    Io(io::Error),
}

impl Failure {
    /// The text an agent reads: a refusal as it is, an I/O error worded by `could_not`.
    pub(crate) fn text(self, could_not: impl FnOnce(&io::Error) -> String) -> String {
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
pub(crate) struct Roots(Option<Vec<PathBuf>>);

impl Roots {
    /// The call's roots: its agent's client's, or `--allowUnrestrictedPaths`' anywhere; then
    /// the `--filesystemRoot` folders and the temp directory.
    pub(crate) fn of(cx: &Ctx, call: CallId) -> Roots {
        let agent = cx.agents.get(&call::agent(cx, call));
        let client = agent.and_then(|a| a.roots.as_ref());
        if client.is_none() && cx.settings.unrestricted_paths {
            return Roots::anywhere();
        }
        let mut roots: Vec<PathBuf> = client.cloned().unwrap_or_default();
        roots.extend(cx.settings.file_roots.iter().cloned());
        roots.push(std::env::temp_dir());
        Roots::within(roots)
    }

    pub(crate) fn anywhere() -> Roots {
        Roots(None)
    }

    pub(crate) fn within(roots: Vec<PathBuf>) -> Roots {
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
    pub(crate) fn check(&self, given: &str) -> Result<Target, Failure> {
        let target = Target::resolve(given)?;
        self.allow(given, &target.path())?;
        Ok(target)
    }
}

/// A file named by a path argument: its real folder (which may end in folders still to be
/// created) and its own name, which is never resolved (a symbolic link there is refused
/// when the file is opened).
pub(crate) struct Target {
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
    pub(crate) fn path(&self) -> PathBuf {
        if self.name.is_empty() {
            return self.folder.clone();
        }
        self.folder.join(&self.name)
    }

    /// The same file with its last extension replaced by `ext` (a leading dot does not start
    /// one: `.env` gains one), as the reference names screenshots and body files.
    pub(crate) fn with_extension(mut self, ext: &str) -> Target {
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

/// A path the browser opens itself (an extension's folder, an app's bundle): it follows
/// every link on the way, so the whole path is resolved (links at its end too), as far as it
/// exists, and that real path must lie inside the roots. Returns it, for the browser to open.
pub(crate) fn for_browser(roots: &Roots, given: &str) -> Result<PathBuf, Failure> {
    let (real, missing) = real_prefix(&lexical(Path::new(given)));
    // A link that leads nowhere yet would lead wherever its target appears later.
    let first_missing = real.ancestors().nth(missing.saturating_sub(1));
    let dangling = first_missing
        .filter(|_| missing > 0)
        .is_some_and(|p| p.is_symlink());
    if dangling {
        return Err(Failure::Refused(format!(
            "The path {given} leads through a symbolic link to nothing."
        )));
    }
    roots.allow(given, &real)?;
    Ok(real)
}

/// Opens the file for writing, new or emptied, after creating its missing folders inside
/// the roots. Refuses a symbolic link and anything that is not a regular file.
pub(crate) fn create(roots: &Roots, mut target: Target) -> Result<(PathBuf, File), Failure> {
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
pub(crate) fn create_at(roots: &Roots, given: &str) -> Result<(PathBuf, File), Failure> {
    create(roots, roots.check(given)?)
}

/// Checks `given` against the roots, gives it the extension `ext` (as the reference names
/// its output files) and opens it for writing (see [`create`]); errors worded for the agent.
pub(crate) fn create_as(roots: &Roots, given: &str, ext: &str) -> Result<(PathBuf, File), String> {
    let resolve = |e: &io::Error| format!("Could not resolve the path {given:?}: {e}");
    let target = roots.check(given).map_err(|f| f.text(resolve))?;
    let target = target.with_extension(ext);
    let shown = target.path();
    create(roots, target).map_err(|f| f.text(|e| format!("Could not write {shown:?}: {e}")))
}

/// Checks `given` against the roots and writes `bytes` there (see [`write`]).
pub(crate) fn write_at(roots: &Roots, given: &str, bytes: &[u8]) -> Result<PathBuf, Failure> {
    write(roots, roots.check(given)?, bytes)
}

/// Writes `bytes` as the whole content of the target's file (see [`create`]); returns the
/// path written.
pub(crate) fn write(roots: &Roots, target: Target, bytes: &[u8]) -> Result<PathBuf, Failure> {
    use std::io::Write;
    let (path, mut file) = create(roots, target)?;
    file.write_all(bytes)?;
    Ok(path)
}

/// Reads the text file `given` names, inside the roots, of at most `limit` bytes.
pub(crate) fn read_text(roots: &Roots, given: &str, limit: u64) -> Result<String, Failure> {
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

/// Opens the file `given` names, inside the roots, for reading as a stream (a file too large
/// to hold, such as a heap snapshot), with its real path.
pub(crate) fn open_read(roots: &Roots, given: &str) -> Result<(PathBuf, File), Failure> {
    let target = roots.check(given)?;
    if target.missing > 0 {
        return Err(Failure::Io(io::ErrorKind::NotFound.into()));
    }
    let file = open(&target, fs::OpenOptions::new().read(true))?;
    Ok((target.path(), file))
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
pub(crate) fn lexical(path: &Path) -> PathBuf {
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
pub(crate) fn with_extension(path: &Path, ext: &str) -> PathBuf {
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
pub(crate) fn temp_dir() -> Result<PathBuf, String> {
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
    base_file_path: Option<String>,
    current_file_path: Option<String>,
    #[serde(default)]
    file_paths: Vec<String>,
}

/// The first file path in a call's arguments that lies outside the allowed folders, as the
/// error to answer with.
pub(crate) fn refused(cx: &Ctx, call: CallId, args: &Value) -> Option<String> {
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
        &given.base_file_path,
        &given.current_file_path,
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
    let roots = Roots::of(cx, call);
    for path in paths {
        if let Err(Failure::Refused(e)) = roots.check(path) {
            return Some(e);
        }
    }
    None
}

/// Whether the browser's files are this machine's: one we launch, or one reached on the
/// loopback interface.
pub(crate) fn browser_is_local(source: &BrowserSource) -> bool {
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

/// The path check against a real temporary tree: fixed cases, then random mixes of `..`,
/// symbolic links (inside, escaping, dangling), missing folders and odd names.
#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::collections::BTreeSet;
    use std::os::unix::fs::{symlink, PermissionsExt};

    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};

    /// A scratch tree: `<base>/root` (the only root: folders `a/b`, a file, a link inside, links
    /// leading out, a dangling link) and `<base>/outside`.
    struct Tree {
        base: PathBuf,
        root: PathBuf,
    }

    impl Tree {
        fn new(tag: &str) -> Tree {
            let base = fs::canonicalize(std::env::temp_dir())
                .unwrap()
                .join(format!("dtmcp-files-{tag}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&base);
            let (root, outside) = (base.join("root"), base.join("outside"));
            fs::create_dir_all(root.join("a/b")).unwrap();
            fs::create_dir_all(outside.join("o")).unwrap();
            fs::write(root.join("file.txt"), "x").unwrap();
            symlink(root.join("a"), root.join("link_in")).unwrap();
            symlink(&outside, root.join("link_out")).unwrap();
            symlink(&base, root.join("link_up")).unwrap();
            symlink(outside.join("missing"), root.join("dangling")).unwrap();
            Tree { base, root }
        }

        fn roots(&self) -> Roots {
            Roots::within(vec![self.root.clone()])
        }

        /// Everything outside the root, by path (links not followed).
        fn outside_entries(&self) -> BTreeSet<PathBuf> {
            let mut seen = BTreeSet::new();
            let mut todo = vec![self.base.clone()];
            while let Some(dir) = todo.pop() {
                for entry in fs::read_dir(&dir).unwrap().flatten() {
                    let path = entry.path();
                    if path == self.root {
                        continue;
                    }
                    if entry.file_type().unwrap().is_dir() {
                        todo.push(path.clone());
                    }
                    seen.insert(path);
                }
            }
            seen
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.base);
        }
    }

    /// Where a path really leads, written independently of the module: `.`/`..` by name, then
    /// every link that exists followed, the last one too (dangling or not).
    fn oracle(given: &str) -> PathBuf {
        let mut names: Vec<String> = Vec::new();
        for part in given.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    names.pop();
                }
                name => names.push(name.to_owned()),
            }
        }
        let mut at = PathBuf::from("/");
        for name in names {
            let next = at.join(&name);
            at = match fs::read_link(&next) {
                // The tree's links hold absolute, link-free targets.
                Ok(target) => target,
                Err(_) => next,
            };
        }
        at
    }

    fn refused_text(r: Result<PathBuf, Failure>) -> String {
        match r {
            Err(f) => f.text(|e| format!("io: {e}")),
            Ok(p) => panic!("allowed: {}", p.display()),
        }
    }

    #[test]
    fn a_folder_for_the_browser_is_resolved_whole() {
        let t = Tree::new("browser");
        let roots = t.roots();
        let at = |rel: &str| format!("{}/{rel}", t.root.display());
        // Links are followed to the end, as the browser will follow them.
        let inside = for_browser(&roots, &at("link_in")).map_err(|f| f.text(|e| e.to_string()));
        assert_eq!(inside.unwrap(), t.root.join("a"));
        assert_eq!(
            for_browser(&roots, &at("a/b/../missing")).ok(),
            Some(t.root.join("a/missing"))
        );
        for escaping in [
            "link_out",
            "link_out/o",
            "link_up/outside",
            "a/../../outside",
        ] {
            let text = refused_text(for_browser(&roots, &at(escaping)));
            assert!(
                text.starts_with("Access denied: path "),
                "{escaping}: {text}"
            );
        }
        let text = refused_text(for_browser(&roots, &at("dangling")));
        assert!(text.contains("symbolic link to nothing"), "{text}");
    }

    #[test]
    fn dot_dot_through_a_missing_folder_does_not_escape() {
        let t = Tree::new("dotdot");
        let given = format!("{}/nx/../../outside/p/q.txt", t.root.display());
        let text = refused_text(write_at(&t.roots(), &given, b"x"));
        let canonical = t.base.join("outside/p/q.txt");
        assert_eq!(
            text,
            format!(
                "Access denied: path {given} (canonical: {}) is not within any of the configured workspace roots.",
                canonical.display()
            )
        );
        assert!(!t.base.join("outside/p").exists() && !t.root.join("nx").exists());
    }

    #[test]
    fn links_at_the_file_and_odd_files_are_refused() {
        let t = Tree::new("odd");
        let roots = t.roots();
        let dangling = t.root.join("dangling");
        let text = refused_text(write_at(&roots, &dangling.to_string_lossy(), b"x"));
        assert!(text.contains("is a symbolic link"), "{text}");
        assert!(!t.base.join("outside/missing").exists());
        let fifo = t.root.join("fifo");
        let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let text = refused_text(write_at(&roots, &fifo.to_string_lossy(), b"x"));
        assert!(text.contains("not a regular file"), "{text}");
        let read = read_text(&roots, &fifo.to_string_lossy(), 10);
        assert!(matches!(read, Err(Failure::Refused(m)) if m.contains("not a regular file")));
        let zero = read_text(&Roots::anywhere(), "/dev/zero", SOURCE_LIMIT);
        assert!(
            matches!(zero, Err(Failure::Refused(m)) if m.contains("/dev/zero is not a regular file"))
        );
        let folder = refused_text(write_at(&roots, &t.root.join("a").to_string_lossy(), b"x"));
        assert!(folder.contains("not a regular file"), "{folder}");
        let secret = t.base.join("outside/secret");
        fs::write(&secret, "keep").unwrap();
        fs::hard_link(&secret, t.root.join("hard")).unwrap();
        let hard = t.root.join("hard").to_string_lossy().into_owned();
        assert!(refused_text(write_at(&roots, &hard, b"x")).contains("other hard links"));
        assert!(
            matches!(read_text(&roots, &hard, 10), Err(Failure::Refused(m)) if m.contains("hard links"))
        );
        assert_eq!(fs::read_to_string(&secret).unwrap(), "keep");
        let nameless = refused_text(write_at(&Roots::anywhere(), "/", b"x"));
        assert_eq!(nameless, "The path / does not name a file.");
    }

    #[test]
    fn reads_are_capped_and_writes_are_private() {
        let t = Tree::new("cap");
        let roots = t.roots();
        let path = t.root.join("a/new/deeper/f.txt");
        let written = write_at(&roots, &path.to_string_lossy(), b"0123456789x");
        assert_eq!(written.ok(), Some(path.clone()));
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let given = path.to_string_lossy();
        assert_eq!(read_text(&roots, &given, 11).unwrap(), "0123456789x");
        let big = read_text(&roots, &given, 10);
        assert!(matches!(big, Err(Failure::Refused(m)) if m.contains("too large")));
    }

    /// Path parts for the random mixes: climbing, links of every kind, folders that exist or
    /// not, a file used as a folder, and names that are odd but legal.
    const PARTS: &[&str] = &[
        "..",
        "..",
        ".",
        "",
        "a",
        "b",
        "nx",
        "ny",
        "link_in",
        "link_out",
        "link_up",
        "dangling",
        "file.txt",
        "outside",
        "o",
        "root",
        "sp ace",
        "ünï",
        "-x",
        "...",
        "a\\b",
        "new\nline",
    ];

    fn mixes() -> impl Strategy<Value = Vec<&'static str>> {
        prop::collection::vec(prop::sample::select(PARTS), 1..8)
    }

    #[test]
    fn no_random_mix_escapes_the_root() {
        let t = Tree::new("mix");
        let roots = t.roots();
        let before = t.outside_entries();
        let (tried, refused) = (Cell::new(0u32), Cell::new(0u32));
        let mut runner = TestRunner::new(Config::with_cases(1000));
        let outcome = runner.run(&(mixes(), "[a-z]{1,3}"), |(parts, last)| {
            let given = format!("{}/{}/{last}.txt", t.root.display(), parts.join("/"));
            let escapes = !oracle(&given).starts_with(&t.root);
            let result = write_at(&roots, &given, b"x");
            if escapes {
                tried.set(tried.get() + 1);
                prop_assert!(result.is_err(), "{given} allowed");
                refused.set(refused.get() + 1);
            }
            prop_assert_eq!(&t.outside_entries(), &before, "{} wrote outside", given);
            Ok(())
        });
        if let Err(e) = outcome {
            panic!("{e}");
        }
        eprintln!(
            "path escape attempts refused: {} of {}",
            refused.get(),
            tried.get()
        );
        assert!(
            tried.get() > 150,
            "too few escape attempts: {}",
            tried.get()
        );
    }

    /// Paths that stay inside: names that are folders or new folders, links that stay in, `..`
    /// only where it climbs back to a folder still inside.
    fn inside() -> impl Strategy<Value = Vec<&'static str>> {
        let parts = &[
            "a", "b", "nx", "link_in", ".", "..", "sp ace", "ünï", "-x", "...",
        ];
        prop::collection::vec(prop::sample::select(&parts[..]), 0..8).prop_map(|v| {
            let mut depth = 0usize;
            v.into_iter()
                .filter(|p| match *p {
                    ".." if depth == 0 => false,
                    ".." => {
                        depth -= 1;
                        true
                    }
                    "." => true,
                    _ => {
                        depth += 1;
                        true
                    }
                })
                .collect()
        })
    }

    #[test]
    fn every_path_inside_is_allowed() {
        let t = Tree::new("inside");
        let roots = t.roots();
        let mut runner = TestRunner::new(Config::with_cases(1000));
        let outcome = runner.run(&(inside(), "[a-z]{1,3}"), |(parts, last)| {
            let given = format!("{}/{}/{last}.out", t.root.display(), parts.join("/"));
            let written = write_at(&roots, &given, b"x");
            prop_assert!(written.is_ok(), "{} refused: {:?}", given, written.err());
            prop_assert!(oracle(&given).starts_with(&t.root));
            prop_assert_eq!(fs::read(oracle(&given)).ok(), Some(b"x".to_vec()));
            Ok(())
        });
        if let Err(e) = outcome {
            panic!("{e}");
        }
    }

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
