//! The path check against a real temporary tree: fixed cases, then random mixes of `..`,
//! symbolic links (inside, escaping, dangling), missing folders and odd names.

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
