//! Untrusted path arguments, against the real binary and real headless Chromium: a path that
//! climbs out of the roots through a folder that does not exist, a dangling symbolic link
//! inside a root, a FIFO, a device. Each is refused with a message naming the path, nothing
//! is created outside the roots, and the server keeps answering.
//!
//! The server's temp directory (its only root here, with `/dev` given as a workspace so the
//! device case reaches the file checks) is `<scratch>/root`; `<scratch>/elsewhere` is outside.

use std::fs;
use std::path::{Path, PathBuf};

use crate::support::calls::error_text;
use crate::support::console_network::{reqid, until};
use crate::support::thirdparty::{open as open_tools_page, EXECUTE};
use crate::support::{started_in, Fixtures, Mcp, ToolResult, PROMPT};
use serde_json::{json, Value};

struct Scratch {
    base: PathBuf,
    root: PathBuf,
    elsewhere: PathBuf,
}

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let base = std::env::temp_dir().join(format!("dtmcp-safety-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        fs::create_dir_all(base.join("root")).expect("scratch root");
        fs::create_dir_all(base.join("elsewhere")).expect("scratch elsewhere");
        let base = fs::canonicalize(&base).expect("scratch");
        Scratch {
            root: base.join("root"),
            elsewhere: base.join("elsewhere"),
            base,
        }
    }

    fn server(&self) -> Mcp {
        let mcp = started_in(&self.root, &["--workspace", "/dev"]);
        mcp.initialize();
        mcp
    }

    /// `<root>/nx/../../elsewhere/p/<name>`: outside, by way of a folder that does not exist.
    fn climbing(&self, name: &str) -> String {
        format!("{}/nx/../../elsewhere/p/{name}", self.root.display())
    }

    /// Asserts the call was refused as outside the roots, and nothing was created for it.
    fn assert_refused_outside(&self, r: &ToolResult, given: &str, canonical: &Path) {
        let denied = format!(
            "Access denied: path {given} (canonical: {}) is not within any of the configured workspace roots.",
            canonical.display()
        );
        assert!(r.is_error, "{given} allowed: {}", r.text);
        assert_eq!(r.text, error_text(&denied));
        assert!(!self.elsewhere.join("p").exists(), "created outside");
        assert!(
            !self.root.join("nx").exists(),
            "created a folder for {given}"
        );
    }

    /// A dangling link inside the root, pointing at a file outside that does not exist yet.
    fn dangling(&self, name: &str) -> PathBuf {
        let link = self.root.join(name);
        std::os::unix::fs::symlink(self.elsewhere.join(format!("{name}.target")), &link)
            .expect("a link");
        link
    }

    fn fifo(&self, name: &str) -> PathBuf {
        let path = self.root.join(name);
        let c = std::ffi::CString::new(path.to_str().expect("utf-8 path")).expect("no NUL");
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.base);
    }
}

/// Calls and asserts the answer is an error that came promptly and names `path` and `what`.
fn refused_promptly(mcp: &Mcp, tool: &str, args: Value, path: &Path, what: &str) {
    let r = mcp.call_timeout(tool, args, PROMPT);
    assert!(r.is_error, "{tool} accepted {}: {}", path.display(), r.text);
    assert!(
        r.text.contains(&path.display().to_string()) && r.text.contains(what),
        "{tool}: {}",
        r.text
    );
    assert_eq!(mcp.request_ok("ping", json!({})), json!({}));
}

#[test]
fn climbing_out_through_a_missing_folder_is_refused() {
    let s = Scratch::new("climb");
    let fx = Fixtures::start();
    let mcp = s.server();
    mcp.call_ok(
        "new_page",
        json!({"url": fx.url("/console_network/network.html")}),
    );

    let given = s.climbing("shot.png");
    let r = mcp.call("take_screenshot", json!({"filePath": given}));
    s.assert_refused_outside(&r, &given, &s.elsewhere.join("p/shot.png"));

    let list = until(&mcp, "list_network_requests", json!({}), |t| {
        t.contains("network.html")
    });
    let id = reqid(&list.text, "network.html");
    let given = s.climbing("body.txt");
    for key in ["responseFilePath", "requestFilePath"] {
        let r = mcp.call("get_network_request", json!({"reqid": id, key: given}));
        s.assert_refused_outside(&r, &given, &s.elsewhere.join("p/body.txt"));
    }
}

#[test]
fn a_dangling_link_as_the_output_file_is_refused() {
    let s = Scratch::new("link");
    let fx = Fixtures::start();
    let mcp = s.server();
    open_tools_page(&mcp, &fx, "values.html");
    let calls = [
        ("evaluate_script", json!({"function": "() => 42"})),
        ("take_snapshot", json!({})),
        (EXECUTE, json!({"toolName": "number_result"})),
    ];
    for (i, (tool, mut args)) in calls.into_iter().enumerate() {
        let link = s.dangling(&format!("out{i}"));
        args["filePath"] = json!(link);
        refused_promptly(&mcp, tool, args, &link, "is a symbolic link");
        let target = s.elsewhere.join(format!("out{i}.target"));
        assert!(!target.exists(), "{tool} wrote through the link");
    }
    assert_eq!(fs::read_dir(&s.elsewhere).expect("elsewhere").count(), 0);
}

#[test]
fn fifos_devices_and_sources_outside_are_refused_promptly() {
    let s = Scratch::new("fifo");
    let fx = Fixtures::start();
    let mcp = s.server();
    open_tools_page(&mcp, &fx, "values.html");
    let fifo = s.fifo("pipe");
    let not_regular = "is not a regular file";
    let calls = [
        ("evaluate_script", json!({"function": "() => 42"})),
        ("take_snapshot", json!({})),
        (EXECUTE, json!({"toolName": "number_result"})),
        ("take_screenshot", json!({})),
    ];
    for (tool, mut args) in calls {
        // The screenshot keeps a `.png` name as it is, so this FIFO is the file it would write.
        let path = match tool {
            "take_screenshot" => s.fifo("shot.png"),
            _ => fifo.clone(),
        };
        args["filePath"] = json!(path);
        refused_promptly(&mcp, tool, args, &path, not_regular);
    }

    let source = |path: &Path| json!({"sourcePath": path});
    refused_promptly(&mcp, "evaluate_script", source(&fifo), &fifo, not_regular);
    let zero = Path::new("/dev/zero");
    refused_promptly(&mcp, "evaluate_script", source(zero), zero, not_regular);

    let outside = s.elsewhere.join("script.js");
    fs::write(&outside, "() => 'ran'").expect("a script outside");
    let r = mcp.call_timeout("evaluate_script", source(&outside), PROMPT);
    let denied = format!(
        "Access denied: path {0} (canonical: {0}) is not within any of the configured workspace roots.",
        outside.display()
    );
    assert_eq!(r.text, error_text(&denied));
    // The same script inside the root runs.
    let inside = s.root.join("script.js");
    fs::copy(&outside, &inside).expect("a script inside");
    let r = mcp.call_ok("evaluate_script", source(&inside));
    assert!(r.text.contains("\"ran\""), "{}", r.text);
}

#[test]
fn a_source_path_is_read_up_to_4_mib_and_only_inside_the_roots() {
    let s = Scratch::new("source");
    let fx = Fixtures::start();
    let mcp = s.server();
    mcp.call_ok(
        "new_page",
        json!({"url": fx.url("/console_network/network.html")}),
    );
    let source = |path: &str| json!({ "sourcePath": path });
    fs::create_dir_all(s.elsewhere.join("p")).expect("a folder outside");
    fs::write(s.elsewhere.join("p/script.js"), "() => 'outside'").expect("a script outside");

    // Out through a folder that does not exist, to a script that does: refused, naming where
    // it leads.
    let given = s.climbing("script.js");
    let r = mcp.call_timeout("evaluate_script", source(&given), PROMPT);
    let denied = format!(
        "Access denied: path {given} (canonical: {}) is not within any of the configured workspace roots.",
        s.elsewhere.join("p/script.js").display()
    );
    assert_eq!(r.text, error_text(&denied));
    assert!(!s.root.join("nx").exists(), "created a folder for {given}");

    // Through a missing folder and back in: `..` is resolved by name, so this is inside.
    fs::write(s.root.join("inside.js"), "() => 'inside'").expect("a script inside");
    let back_in = format!("{}/nx/../inside.js", s.root.display());
    let r = mcp.call_ok("evaluate_script", source(&back_in));
    assert!(r.text.contains("\"inside\""), "{}", r.text);

    // 4 MiB is read; one byte more is refused, naming the limit.
    const LIMIT: usize = 4 * 1024 * 1024;
    let script = |len: usize| {
        let code = "() => 'read whole' /*";
        format!("{code}{}*/", " ".repeat(len - code.len() - 2))
    };
    let at_limit = s.root.join("at-limit.js");
    fs::write(&at_limit, script(LIMIT)).expect("a 4 MiB script");
    let r = mcp.call_ok("evaluate_script", source(at_limit.to_str().unwrap()));
    assert!(r.text.contains("\"read whole\""), "{}", &r.text[..200]);
    let over = s.root.join("over.js");
    fs::write(&over, script(LIMIT + 1)).expect("a script of 4 MiB and a byte");
    let given = over.display().to_string();
    let r = mcp.call_timeout("evaluate_script", source(&given), PROMPT);
    let too_large = format!("The file {given} is too large: at most 4194304 bytes are read.");
    assert_eq!(r.text, error_text(&too_large));
}
