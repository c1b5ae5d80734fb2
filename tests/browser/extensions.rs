//! The extension tools (`--categoryExtensions`) on full Chromium, which the server starts for
//! them: the fixture extension of `tests/fixtures/extensions/` installed, listed, its action
//! triggered on a page served on 127.0.0.1, reloaded and uninstalled, with the answers and the
//! browser's errors as the reference words them.

use std::fs;
use std::path::{Path, PathBuf};

use crate::support::calls::{assert_error, eval};
use crate::support::mcp::BROWSER_FLAGS;
use crate::support::{Fixtures, Mcp};
use serde_json::json;

/// A scratch folder that the server takes as its temp directory, so inside its roots.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dtmcp-ext-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// The fixture extension `name`, copied into `dir`.
fn fixture_extension(name: &str, dir: &Path) -> String {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/extensions");
    let to = dir.join(name);
    fs::create_dir_all(&to).expect("extension folder");
    for entry in fs::read_dir(from.join(name)).expect("fixture extension") {
        let entry = entry.expect("fixture file");
        fs::copy(entry.path(), to.join(entry.file_name())).expect("copied");
    }
    to.to_str().expect("utf-8 path").to_owned()
}

/// A server with the extension tools, whose temp directory is `tmp`, on the browser it picks
/// itself (whatever the test run asks for: the shell cannot load extensions).
fn server(tmp: &Path) -> Mcp {
    let mut args = vec!["--headless", "--isolated", "--categoryExtensions"];
    args.extend_from_slice(BROWSER_FLAGS);
    let mcp = Mcp::spawn(&args, &[("TMPDIR", tmp.to_str().expect("utf-8 path"))]);
    mcp.initialize();
    mcp
}

/// Waits in the page until its title is `title` (the call's own time limit bounds it).
fn until_title(mcp: &Mcp, title: &str) {
    let wait = format!(
        "() => new Promise(done => {{ const check = () => document.title === {title:?} \
         ? done(document.title) : setTimeout(check, 20); check(); }})"
    );
    assert_eq!(eval(mcp, &wait), json!(title));
}

#[test]
fn an_extension_is_installed_listed_triggered_reloaded_and_uninstalled() {
    let tmp = scratch("flow");
    let folder = fixture_extension("action", &tmp);
    let mcp = server(&tmp);
    let none = "## Extensions\nNo extensions installed.";
    assert_eq!(mcp.call_ok("list_extensions", json!({})).text, none);

    let installed = mcp.call_ok("install_extension", json!({ "path": folder }));
    let id = installed
        .text
        .strip_prefix("Extension installed. Id: ")
        .unwrap_or_else(|| panic!("{}", installed.text))
        .to_owned();
    assert!(
        id.len() == 32 && id.chars().all(|c| ('a'..='p').contains(&c)),
        "{id}"
    );
    if std::env::var_os("CHROME_PATH").is_none() {
        let log = mcp.stderr_log();
        assert!(
            log.contains("full Chromium: --categoryExtensions needs it"),
            "{log}"
        );
    }
    let listed = format!("## Extensions\nid={id} \"Fixture Action\" v1.2.3 Enabled");
    assert_eq!(mcp.call_ok("list_extensions", json!({})).text, listed);

    // The action runs on the selected page: its service worker retitles the page.
    let fx = Fixtures::start();
    let page = fx.route_html("/plain.html", "<title>before</title><p>plain");
    // Answers that list the pages list the extension's worker after them, as the reference's.
    let opened = mcp.call_ok("new_page", json!({ "url": page }));
    let worker =
        format!("## Extension Service Workers\nsw-1: chrome-extension://{id}/background.js");
    assert!(opened.text.ends_with(&worker), "{}", opened.text);
    let triggered = mcp.call_ok("trigger_extension_action", json!({ "id": id }));
    assert_eq!(
        triggered.text,
        format!("Extension action triggered for ID {id}")
    );
    until_title(&mcp, "marked by the extension");

    // Reloaded, it is still there, and its restarted worker answers the next click.
    let reloaded = mcp.call_ok("reload_extension", json!({ "id": id }));
    assert_eq!(reloaded.text, "Extension reloaded.");
    assert_eq!(mcp.call_ok("list_extensions", json!({})).text, listed);
    eval(&mcp, "() => { document.title = 'before'; return 0; }");
    mcp.call_ok("trigger_extension_action", json!({ "id": id }));
    until_title(&mcp, "marked by the extension");

    let uninstalled = mcp.call_ok("uninstall_extension", json!({ "id": id }));
    assert_eq!(uninstalled.text, format!("Extension uninstalled. Id: {id}"));
    assert_eq!(mcp.call_ok("list_extensions", json!({})).text, none);
    let _ = fs::remove_dir_all(tmp);
}

#[test]
fn extension_errors_are_the_browsers_as_the_reference_words_them() {
    let tmp = scratch("errors");
    let broken = fixture_extension("broken", &tmp);
    let mcp = server(&tmp);
    let r = mcp.call("install_extension", json!({ "path": broken }));
    assert!(
        r.is_error
            && r.text.starts_with(
                "Error: Protocol error (Extensions.loadUnpacked): Manifest is not valid JSON."
            ),
        "{}",
        r.text
    );
    let missing = tmp.join("missing");
    let r = mcp.call("install_extension", json!({ "path": missing }));
    assert_error(
        &r,
        "Protocol error (Extensions.loadUnpacked): File path cannot be resolved.",
    );
    // A folder outside the roots (the temp directory here) is refused before the browser
    // sees it, as any path argument is.
    let outside = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/extensions/action");
    let r = mcp.call("install_extension", json!({ "path": outside }));
    assert!(
        r.is_error && r.text.starts_with("Error: Access denied: path "),
        "{}",
        r.text
    );

    let unknown = "abcdefghijklmnopabcdefghijklmnop";
    let not_found = format!("Extension with ID {unknown} not found.");
    assert_error(
        &mcp.call("reload_extension", json!({ "id": unknown })),
        &not_found,
    );
    assert_error(
        &mcp.call("trigger_extension_action", json!({ "id": unknown })),
        &not_found,
    );
    assert_error(
        &mcp.call("uninstall_extension", json!({ "id": unknown })),
        "Protocol error (Extensions.uninstall): Uninstall failed. Reason: could not find extension.",
    );
    let none = "## Extensions\nNo extensions installed.";
    assert_eq!(mcp.call_ok("list_extensions", json!({})).text, none);
    let _ = fs::remove_dir_all(tmp);
}
