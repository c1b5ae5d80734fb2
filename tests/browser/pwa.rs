//! The installed-app tools (`--categoryPwa`) on full Chromium, which the server starts for
//! them: the installable app of `tests/fixtures/pwa/` served on 127.0.0.1 installed, its OS
//! state read, launched into new pages and uninstalled, with the answers and the browser's
//! errors as the reference words them.

use crate::support::calls::assert_error;
use crate::support::mcp::BROWSER_FLAGS;
use crate::support::{Fixtures, Mcp};
use serde_json::json;

/// A server with the PWA tools, on the browser it picks itself.
fn server() -> Mcp {
    let mut args = vec!["--headless", "--isolated", "--categoryPwa"];
    args.extend_from_slice(BROWSER_FLAGS);
    let mcp = Mcp::spawn(&args, &[]);
    mcp.initialize();
    mcp
}

#[test]
fn an_app_is_installed_inspected_launched_and_uninstalled() {
    let fx = Fixtures::start();
    let origin = fx.origin();
    let id = format!("{origin}/pwa/");
    let start = format!("{origin}/pwa/index.html");
    let mcp = server();

    let args = json!({"manifestId": id, "installUrlOrBundleUrl": start});
    let installed = mcp.call_ok("install_pwa", args);
    assert_eq!(
        installed.text,
        format!("Installed PWA with manifest ID: {id}")
    );
    if std::env::var_os("CHROME_PATH").is_none() {
        let log = mcp.stderr_log();
        assert!(
            log.contains("full Chromium: --categoryPwa needs it"),
            "{log}"
        );
    }

    // The manifest's file handler, resolved against the page, as the browser registered it.
    let state = mcp.call_ok("get_os_app_state", json!({ "manifestId": id }));
    let handlers = format!(
        "[{{\"action\":\"{origin}/pwa/open.html\",\"accepts\":[{{\"mediaType\":\"text/plain\",\
         \"fileExtensions\":[\".text\",\".txt\"]}}],\"displayName\":\"\"}}]"
    );
    assert_eq!(
        state.text,
        format!("OS app state for manifest ID: {id}\nBadge count: 0\nFile handlers: {handlers}")
    );

    // Each launch opens a new page, listed with the URL it loaded.
    let launched = mcp.call_ok("launch_pwa", json!({ "manifestId": id }));
    let app_page = format!("2: Fixture App ({start})");
    assert_eq!(
        launched.text,
        format!(
            "Launched PWA with manifest ID: {id} ({start})\n## Pages\n1: about:blank [selected]\n{app_page}"
        )
    );
    let file = format!("{origin}/pwa/open.html");
    let launched = mcp.call_ok("launch_pwa", json!({ "manifestId": id, "url": file }));
    assert!(
        launched
            .text
            .starts_with(&format!("Launched PWA with manifest ID: {id} ({file})\n")),
        "{}",
        launched.text
    );
    assert!(
        launched
            .text
            .ends_with(&format!("{app_page}\n3: Fixture App: a file ({file})")),
        "{}",
        launched.text
    );

    // Installed again, in its own window.
    let args =
        json!({"manifestId": id, "installUrlOrBundleUrl": start, "displayMode": "standalone"});
    let installed = mcp.call_ok("install_pwa", args);
    assert_eq!(
        installed.text,
        format!("Installed PWA with manifest ID: {id}\nDisplay mode set to: standalone")
    );

    let uninstalled = mcp.call_ok("uninstall_pwa", json!({ "manifestId": id }));
    assert!(
        uninstalled.text.starts_with(&format!(
            "Uninstalled PWA with manifest ID: {id}\n## Pages\n1: about:blank [selected]"
        )),
        "{}",
        uninstalled.text
    );
    assert_error(
        &mcp.call("get_os_app_state", json!({ "manifestId": id })),
        &format!("Protocol error (PWA.getOsAppState): Unknown web-app manifest id {id}"),
    );
}

#[test]
fn unknown_apps_get_the_browsers_errors_as_the_reference_words_them() {
    let fx = Fixtures::start();
    let origin = fx.origin();
    let id = format!("{origin}/pwa/");
    let mcp = server();
    assert_error(
        &mcp.call("get_os_app_state", json!({ "manifestId": id })),
        &format!("Protocol error (PWA.getOsAppState): Unknown web-app manifest id {id}"),
    );
    assert_error(
        &mcp.call("launch_pwa", json!({ "manifestId": id })),
        &format!("Protocol error (PWA.launch): Failed to launch {id}"),
    );
    // A page with no manifest installs nothing (the reference tries twice; so do we).
    let nothing = format!("{origin}/nothing/");
    let page = format!("{origin}/pages/hello.html");
    let args = json!({"manifestId": nothing, "installUrlOrBundleUrl": page});
    assert_error(
        &mcp.call("install_pwa", args),
        &format!(
            "Protocol error (PWA.install): Couldn't fetch install info for {nothing} from {page}"
        ),
    );
    // Uninstalling what is not installed is no error to the browser.
    let r = mcp.call_ok("uninstall_pwa", json!({ "manifestId": id }));
    assert!(
        r.text
            .starts_with(&format!("Uninstalled PWA with manifest ID: {id}\n")),
        "{}",
        r.text
    );
}
