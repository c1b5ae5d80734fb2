//! The browser connection against the real binary and real headless Chromium: connecting
//! to a browser that is already running (`--wsEndpoint`, `--browserUrl`), and a browser that
//! dies while starting (a missing one is in `binary/connection.rs`).
//!
//! Pages come from `tests/fixtures/pages_script/`; the helpers are in `support/pages.rs`.

use std::fs;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use crate::support::pages::{assert_returned, evaluate, page_url};
use crate::support::procs;
use crate::support::{chrome_path, Fixtures, Mcp};
use serde_json::json;

// ---------------------------------------------------------------- a browser already running

/// A Chromium started by the test with a debugging port, as a user would start one for
/// `--browserUrl` / `--wsEndpoint`. Killed (with its helpers) and its profile removed on drop.
struct RunningBrowser {
    child: Child,
    profile: PathBuf,
    port: u16,
    ws_path: String,
    /// Counts against the machine-wide cap on browsers, like a server does.
    _slot: Arc<crate::support::slots::Slot>,
}

impl RunningBrowser {
    fn start() -> RunningBrowser {
        let slot = crate::support::slots::acquire();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let profile = std::env::temp_dir().join(format!(
            "devtools-mcp-tests-browser-{}-{nanos}",
            std::process::id()
        ));
        fs::create_dir_all(&profile).expect("create the browser profile");
        use std::os::unix::process::CommandExt;
        let child = Command::new(chrome_path())
            .args([
                "--headless",
                "--remote-debugging-port=0",
                &format!("--user-data-dir={}", profile.display()),
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "about:blank",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", chrome_path()));
        let mut browser = RunningBrowser {
            child,
            profile,
            port: 0,
            ws_path: String::new(),
            _slot: slot,
        };
        // Chromium writes the port it chose and the browser target's path to this file.
        let file = browser.profile.join("DevToolsActivePort");
        let found = procs::wait_until(Duration::from_secs(30), || {
            let text = fs::read_to_string(&file).unwrap_or_default();
            let mut lines = text.lines();
            match (lines.next().and_then(|p| p.parse().ok()), lines.next()) {
                (Some(port), Some(path)) if path.starts_with("/devtools/browser/") => {
                    browser.port = port;
                    browser.ws_path = path.to_owned();
                    true
                }
                _ => false,
            }
        });
        assert!(found, "Chromium wrote no usable {}", file.display());
        browser
    }

    fn browser_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn ws_endpoint(&self) -> String {
        format!("ws://127.0.0.1:{}{}", self.port, self.ws_path)
    }
}

impl Drop for RunningBrowser {
    fn drop(&mut self) {
        // The whole process group: the browser and its zygotes, renderers and utilities.
        procs::signal_group(self.child.id(), libc::SIGKILL);
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = fs::remove_dir_all(&self.profile);
    }
}

/// Lists pages and evaluates through a server connected with `flag value`.
fn use_running_browser(flag: &str, value: &str, fx: &Fixtures, browser: &RunningBrowser) {
    let mcp = Mcp::spawn(&[flag, value], &[]);
    mcp.initialize();
    let listed = mcp.call_ok("list_pages", json!({}));
    assert_eq!(listed.text, "## Pages\n1: about:blank [selected]");
    assert_returned(&evaluate(&mcp, "() => 6 * 7"), "42");
    let start = page_url(fx, "start.html");
    let opened = mcp.call_ok("new_page", json!({ "url": start }));
    assert_eq!(
        opened.text,
        format!("## Pages\n1: about:blank\n2: Start page ({start}) [selected]")
    );
    assert_returned(&evaluate(&mcp, "() => document.title"), "\"Start page\"");
    // The server did not start a browser of its own.
    assert!(
        mcp.descendants().is_empty(),
        "the server started processes: {:?}",
        mcp.descendants()
    );
    // Leave the browser as we found it for the next connection.
    mcp.call_ok("close_page", json!({"pageId": 2}));
    drop(mcp);
    assert!(
        procs::alive(browser.child.id()),
        "the browser did not survive the server that only connected to it"
    );
}

#[test]
fn ws_endpoint_connects_to_a_running_browser() {
    let fx = Fixtures::start();
    let browser = RunningBrowser::start();
    use_running_browser("--wsEndpoint", &browser.ws_endpoint(), &fx, &browser);
    // The `--flag=value` spelling works too.
    let mcp = Mcp::spawn(&[&format!("--wsEndpoint={}", browser.ws_endpoint())], &[]);
    mcp.initialize();
    assert_returned(&evaluate(&mcp, "() => 'connected'"), "\"connected\"");
}

#[test]
fn browser_url_connects_to_a_running_browser() {
    let fx = Fixtures::start();
    let browser = RunningBrowser::start();
    use_running_browser("--browserUrl", &browser.browser_url(), &fx, &browser);
    let mcp = Mcp::spawn(&[&format!("--browserUrl={}", browser.browser_url())], &[]);
    mcp.initialize();
    assert_returned(&evaluate(&mcp, "() => 'connected'"), "\"connected\"");
}

// ---------------------------------------------------------------- --wsHeaders

/// A gateway in front of the browser's debugging port, as a browser farm runs one: it records
/// each handshake's head and refuses (401) one without the token, else relays both ways.
struct Gateway {
    port: u16,
    heads: Arc<std::sync::Mutex<Vec<String>>>,
}

impl Gateway {
    fn start(browser_port: u16) -> Gateway {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind the gateway");
        let port = listener.local_addr().expect("gateway address").port();
        let heads = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = heads.clone();
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let mut client = client;
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && client.read_exact(&mut byte).is_ok() {
                    head.push(byte[0]);
                }
                let text = String::from_utf8_lossy(&head).into_owned();
                seen.lock().unwrap().push(text.clone());
                if !text
                    .to_ascii_lowercase()
                    .contains("\r\nauthorization: bearer t0k3n\r\n")
                {
                    let _ =
                        client.write_all(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n");
                    continue;
                }
                let Ok(mut upstream) = std::net::TcpStream::connect(("127.0.0.1", browser_port))
                else {
                    continue;
                };
                let _ = upstream.write_all(&head);
                let (mut c2, mut u2) = (client.try_clone().unwrap(), upstream.try_clone().unwrap());
                std::thread::spawn(move || std::io::copy(&mut c2, &mut u2));
                std::thread::spawn(move || std::io::copy(&mut upstream, &mut client));
            }
        });
        Gateway { port, heads }
    }
}

#[test]
fn ws_headers_go_with_the_handshake() {
    let browser = RunningBrowser::start();
    let gateway = Gateway::start(browser.port);
    let endpoint = format!("ws://127.0.0.1:{}{}", gateway.port, browser.ws_path);

    // Without the token the gateway refuses, and the call says so.
    let mcp = Mcp::spawn(&["--wsEndpoint", &endpoint], &[]);
    mcp.initialize();
    let r = mcp.call_err("list_pages", json!({}));
    assert!(r.text.contains("401"), "{}", r.text);
    drop(mcp);

    let headers = r#"{"Authorization": "Bearer t0k3n", "X-Farm": "1"}"#;
    let mcp = Mcp::spawn(&["--wsEndpoint", &endpoint, "--wsHeaders", headers], &[]);
    mcp.initialize();
    let listed = mcp.call_ok("list_pages", json!({}));
    assert_eq!(listed.text, "## Pages\n1: about:blank [selected]");
    assert_returned(&evaluate(&mcp, "() => 6 * 7"), "42");
    let heads = gateway.heads.lock().unwrap().clone();
    let last = heads.last().expect("a handshake").to_ascii_lowercase();
    assert!(last.starts_with("get /devtools/browser/"), "{last}");
    assert!(last.contains("\r\nx-farm: 1\r\n"), "{last}");
}

#[test]
fn pages_on_blocked_urls_are_left_alone_when_connecting() {
    let fx = Fixtures::start();
    let browser = RunningBrowser::start();
    let endpoint = browser.ws_endpoint();
    let blocked = fx.page_url_with_html("<title>Blocked</title>");
    let mcp = Mcp::spawn(&["--wsEndpoint", &endpoint], &[]);
    mcp.initialize();
    mcp.call_ok("new_page", json!({ "url": blocked }));
    drop(mcp);
    // A server with rules that forbid it does not see it (as the reference's Puppeteer).
    let rule = format!("--blockedUrlPattern={}/inline/*", fx.origin());
    let mcp = Mcp::spawn(&["--wsEndpoint", &endpoint, &rule], &[]);
    mcp.initialize();
    let listed = mcp.call_ok("list_pages", json!({}));
    assert_eq!(listed.text, "## Pages\n1: about:blank [selected]");
}

/// A page's tools stay usable by the next server: its document predates that server (an
/// earlier server's shim answers in it, not one that greeted this server).
#[test]
fn a_later_server_sees_the_tools_of_a_page_that_was_already_open() {
    let fx = Fixtures::start();
    let browser = RunningBrowser::start();
    let url = format!("--browserUrl={}", browser.browser_url());
    let first = Mcp::spawn(&[&url], &[]);
    first.initialize();
    let tools = crate::support::thirdparty::page_url(&fx, "sync.html");
    let opened = first.call_ok("new_page", json!({ "url": tools }));
    assert!(opened.text.contains("name=\"add\""), "{}", opened.text);
    drop(first);

    let later = Mcp::spawn(&[&url], &[]);
    later.initialize();
    let pages = later.call_ok("list_pages", json!({}));
    let id = pages
        .text
        .lines()
        .find(|l| l.contains("sync.html"))
        .and_then(|l| l.split(':').next())
        .and_then(|n| n.trim().parse::<u64>().ok());
    let Some(id) = id else {
        panic!("the page is not listed: {}", pages.text)
    };
    later.call_ok("select_page", json!({ "pageId": id }));
    let listed = later.call_ok("list_3p_developer_tools", json!({}));
    assert!(listed.text.contains("name=\"add\""), "{}", listed.text);
    let sum = later.call_ok(
        "execute_3p_developer_tool",
        json!({"toolName": "add", "params": "{\"a\": 2, \"b\": 3}"}),
    );
    assert!(sum.text.contains('5'), "{}", sum.text);
}

// ---------------------------------------------------------------- a browser that dies at start

/// A browser that dies while starting is started once more; only a second death fails the
/// call. The "browser" here is a script that exits at once the first time it is run (as a
/// crash at start would) and runs the real browser after that.
#[test]
fn a_browser_that_dies_while_starting_is_started_once_more() {
    let dir = std::env::temp_dir().join(format!("devtools-mcp-flaky-start-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("temp dir");
    let marker = dir.join("started-once");
    let script = dir.join("browser.sh");
    let body = format!(
        "#!/bin/sh\nif [ ! -e '{m}' ]; then touch '{m}'; exit 1; fi\nexec '{exe}' \"$@\"\n",
        m = marker.display(),
        exe = chrome_path()
    );
    fs::write(&script, body).expect("write script");
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let exe = script.to_str().expect("utf-8 path");
    let mcp = Mcp::spawn(&["--headless", "--isolated", "--executablePath", exe], &[]);
    mcp.initialize();
    let result = mcp.call("list_pages", json!({}));
    assert!(!result.is_error, "{}\n{}", result.text, mcp.stderr_log());
    assert!(marker.exists());
    let log = mcp.stderr_log();
    assert!(
        log.contains("the browser died while starting; starting it once more"),
        "{log}"
    );
    drop(mcp);
    let _ = fs::remove_dir_all(&dir);
}
