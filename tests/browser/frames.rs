//! Cross-site (out-of-process) iframes: a page on 127.0.0.1 embeds a frame
//! from localhost (another site, so another renderer under site isolation), which embeds one
//! from 127.0.0.1 again (out of process from its parent too): two deep. Snapshots show their
//! content with uids, input reaches them, their console calls and requests are listed, and a
//! frame that navigates or crashes is handled.

use std::time::{Duration, Instant};

use crate::support::calls::error_text;
use crate::support::calls::uid;
use crate::support::{started_with, Fixtures, Mcp, ToolResult};
use serde_json::json;

/// The two sites: `main` serves 127.0.0.1 pages, `other` is reached as localhost.
struct Sites {
    main: Fixtures,
    other: Fixtures,
}

impl Sites {
    fn start() -> Sites {
        let sites = Sites {
            main: Fixtures::start(),
            other: Fixtures::start(),
        };
        let mid = format!("http://localhost:{}/mid.html", sites.other.port());
        let inner = sites.main.url("/inner.html");
        sites.main.route_html(
            "/main.html",
            &format!(
                r#"<h1>Main page</h1>
<iframe id="f" src="{mid}" width="500" height="400" style="margin-left: 60px; border: 7px solid; padding: 3px"></iframe>"#
            ),
        );
        sites.other.route_html(
            "/mid.html",
            &format!(
                r#"<p>Mid frame</p>
<button onclick="document.getElementById('out').textContent = 'mid clicked'">Mid button</button>
<p id="out">mid idle</p>
<input aria-label="Mid name" onmousedown="document.title = 'down'; document.getElementById('out').textContent += ' down'" onfocus="document.getElementById('out').textContent += ' focus'" onblur="document.getElementById('out').textContent += ' blur'" onkeydown="document.getElementById('out').textContent += ' key'">
<a href="/mid2.html">Next mid</a>
<button onclick="const a = []; for (;;) a.push(new Array(1e6).fill(a.length));">Crash mid</button>
<script>console.log('hello from mid'); fetch('/mid-data.json').then(r => r.text());</script>
<iframe src="{inner}" width="300" height="150" style="margin-top: 20px"></iframe>"#
            ),
        );
        sites.other.route_html(
            "/mid2.html",
            "<p>Second mid page</p><button>Mid two</button>",
        );
        sites.other.route_response(
            "/mid-data.json",
            crate::support::Response::json(&json!({"from": "mid frame data"})),
        );
        sites.main.route_html("/back.html", "<p>Same site as the page</p><button onclick=\"this.textContent = 'back clicked'\">Back button</button>");
        sites.main.route_html(
            "/inner.html",
            r#"<button onclick="document.getElementById('inner-out').textContent = 'inner clicked'">Inner button</button>
<p id="inner-out">inner idle</p>
<div role="button" aria-label="Drag me" style="display: inline-block; width: 80px; height: 30px; background: #ccc"
  onmousedown="note('pressed')"></div>
<div role="button" aria-label="Drop here" style="display: inline-block; width: 80px; height: 30px; margin-left: 40px; background: #eee"
  onmouseenter="note('entered')" onmouseup="note('released here')"></div>
<script>function note(t) { document.getElementById('inner-out').textContent += ' ' + t; }</script>"#,
        );
        sites
    }
}

/// A server whose browser puts every site in its own process: Chromium does by default, the
/// headless shell does not. (Without the switch, the shell runs these frames in the page's
/// process: all but the crash test pass that way too.)
fn isolated(extra: &[&str]) -> Mcp {
    let mut args = vec!["--chromeArg=--site-per-process"];
    args.extend_from_slice(extra);
    started_with(&args)
}

/// Snapshots until `done` holds of the text (frames attach and load on their own time).
fn snapshot_until(mcp: &Mcp, done: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let text = mcp.call_ok("take_snapshot", json!({})).text;
        if done(&text) {
            return text;
        }
        assert!(Instant::now() < deadline, "never came: {text}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn open_main(mcp: &Mcp, sites: &Sites) -> String {
    mcp.call_ok(
        "navigate_page",
        json!({"url": sites.main.url("/main.html")}),
    );
    snapshot_until(mcp, |t| t.contains("Inner button"))
}

fn click(mcp: &Mcp, uid: &str) -> ToolResult {
    mcp.call("click", json!({"uid": uid}))
}

#[test]
fn snapshot_shows_nested_cross_site_frames_with_uids() {
    let sites = Sites::start();
    let mcp = isolated(&[]);
    let snap = open_main(&mcp, &sites);
    for (role, name) in [
        ("heading", "Main page"),
        ("button", "Mid button"),
        ("textbox", "Mid name"),
        ("button", "Inner button"),
    ] {
        let u = uid(&snap, role, name);
        assert!(u.contains('_'), "{u}");
    }
    // The frames hang where their <iframe> is: the mid frame's content comes after the
    // main heading, the inner frame's after the mid frame's.
    let at = |s: &str| snap.find(s).unwrap_or_else(|| panic!("{s}: {snap}"));
    assert!(at("Main page") < at("Mid button"), "{snap}");
    assert!(at("Mid button") < at("Inner button"), "{snap}");
}

#[test]
fn clicks_reach_buttons_in_both_frames_by_uid() {
    let sites = Sites::start();
    let mcp = isolated(&[]);
    let snap = open_main(&mcp, &sites);
    let r = click(&mcp, &uid(&snap, "button", "Mid button"));
    assert!(!r.is_error, "{}", r.text);
    assert!(
        r.text.starts_with("Successfully clicked on the element"),
        "{}",
        r.text
    );
    let r = click(&mcp, &uid(&snap, "button", "Inner button"));
    assert!(!r.is_error, "{}", r.text);
    let after = mcp.call_ok("take_snapshot", json!({})).text;
    assert!(after.contains("mid clicked"), "{after}");
    assert!(after.contains("inner clicked"), "{after}");
    // Uids of the unchanged elements carry over, as on the main frame.
    let mid = uid(&snap, "button", "Mid button");
    assert_eq!(uid(&after, "button", "Mid button"), mid);
    // Page code runs in the main frame: it cannot take an element of another process.
    let r = mcp.call(
        "evaluate_script",
        json!({"function": "(el) => el.textContent", "args": [mid]}),
    );
    let refused = format!("Element with uid {mid} is inside a cross-site iframe; page code runs in the main frame and cannot take it.");
    assert_eq!(r.text, error_text(&refused), "{}", r.text);
}

#[test]
fn fill_and_type_reach_an_input_in_a_frame() {
    let sites = Sites::start();
    let mcp = isolated(&[]);
    let snap = open_main(&mcp, &sites);
    let input = uid(&snap, "textbox", "Mid name");
    let r = mcp.call("fill", json!({"uid": input, "value": "Ada"}));
    assert!(!r.is_error, "{}", r.text);
    let r = mcp.call("type_text", json!({"text": " Lovelace"}));
    assert!(!r.is_error, "{}", r.text);
    let after = mcp.call_ok("take_snapshot", json!({})).text;
    assert!(after.contains("value=\"Ada Lovelace\""), "{after}");
    let r = mcp.call(
        "fill_form",
        json!({"elements": [{"uid": input, "value": "Grace"}]}),
    );
    assert!(!r.is_error, "{}", r.text);
    let after = mcp.call_ok("take_snapshot", json!({})).text;
    assert!(after.contains("value=\"Grace\""), "{after}");
}

#[test]
fn console_calls_and_requests_of_a_frame_are_listed() {
    let sites = Sites::start();
    let mcp = isolated(&[]);
    open_main(&mcp, &sites);
    let console = mcp.call_ok("list_console_messages", json!({})).text;
    assert!(console.contains("hello from mid"), "{console}");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let network = mcp.call_ok("list_network_requests", json!({})).text;
        if network.contains("/mid-data.json") && network.contains("/inner.html") {
            // The body is read where the request was made: the frame's own session.
            let id = crate::support::console_network::reqid(&network, "/mid-data.json");
            let detail = mcp
                .call_ok("get_network_request", json!({"reqid": id}))
                .text;
            assert!(detail.contains("mid frame data"), "{network}\n{detail}");
            break;
        }
        assert!(Instant::now() < deadline, "{network}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let id = crate::support::console_network::msgid(&console, "hello from mid");
    let detail = mcp
        .call_ok("get_console_message", json!({"msgid": id}))
        .text;
    assert!(detail.contains("hello from mid"), "{detail}");
}

#[test]
fn typing_after_a_click_into_a_frame_reaches_it() {
    let sites = Sites::start();
    let mcp = isolated(&[]);
    let snap = open_main(&mcp, &sites);
    let r = click(&mcp, &uid(&snap, "textbox", "Mid name"));
    assert!(!r.is_error, "{}", r.text);
    let r = mcp.call("type_text", json!({"text": "Hopper", "submitKey": "Tab"}));
    assert!(!r.is_error, "{}", r.text);
    let after = mcp.call_ok("take_snapshot", json!({})).text;
    assert!(after.contains("value=\"Hopper\""), "{after}");
}

#[test]
fn a_frame_that_navigates_shows_its_new_document_and_refuses_old_uids() {
    let sites = Sites::start();
    let mcp = isolated(&[]);
    let snap = open_main(&mcp, &sites);
    let old_button = uid(&snap, "button", "Mid button");
    // Same site: the frame keeps its process and its target, with a new document.
    let r = click(&mcp, &uid(&snap, "link", "Next mid"));
    assert!(!r.is_error, "{}", r.text);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let r = click(&mcp, &old_button);
        if r.is_error {
            let gone = format!("Element with uid {old_button} no longer exists on the page.");
            assert_eq!(r.text, error_text(&gone), "{}", r.text);
            break;
        }
        // The old document may still be there for a moment.
        assert!(Instant::now() < deadline, "{}", r.text);
        std::thread::sleep(Duration::from_millis(100));
    }
    let after = snapshot_until(&mcp, |t| t.contains("Second mid page"));
    assert!(!after.contains("Mid button"), "{after}");
    let r = click(&mcp, &old_button);
    let not_found = format!("Element uid \"{old_button}\" not found on page 1.");
    assert_eq!(r.text, error_text(&not_found), "{}", r.text);
    let r = click(&mcp, &uid(&after, "button", "Mid two"));
    assert!(!r.is_error, "{}", r.text);

    // To the page's own site: the frame moves into the page's process (its target goes).
    let back = sites.main.url("/back.html");
    let script = format!("() => {{ document.getElementById('f').src = '{back}'; }}");
    mcp.call_ok("evaluate_script", json!({"function": script}));
    let same = snapshot_until(&mcp, |t| t.contains("Back button"));
    let r = click(&mcp, &uid(&same, "button", "Back button"));
    assert!(!r.is_error, "{}", r.text);
    snapshot_until(&mcp, |t| t.contains("back clicked"));

    // And out of it again.
    let mid = format!("http://localhost:{}/mid.html", sites.other.port());
    let script = format!("() => {{ document.getElementById('f').src = '{mid}'; }}");
    mcp.call_ok("evaluate_script", json!({"function": script}));
    let again = snapshot_until(&mcp, |t| t.contains("Inner button"));
    let r = click(&mcp, &uid(&again, "button", "Mid button"));
    assert!(!r.is_error, "{}", r.text);
    snapshot_until(&mcp, |t| t.contains("mid clicked"));
}

#[test]
fn a_frame_that_crashes_leaves_the_page_working() {
    let sites = Sites::start();
    // A small script heap: the mid frame's renderer dies of running out of it (a real crash
    // of that process only; the page's renderer allocates little).
    let mcp = isolated(&["--chromeArg=--js-flags=--max-old-space-size=32"]);
    let snap = open_main(&mcp, &sites);
    let mid_button = uid(&snap, "button", "Mid button");
    // The click itself may end either way: the frame dies while handling it.
    mcp.call("click", json!({"uid": uid(&snap, "button", "Crash mid")}));
    let after = snapshot_until(&mcp, |t| !t.contains("Mid frame"));
    assert!(after.contains("Main page"), "{after}");
    let r = click(&mcp, &mid_button);
    let not_found = format!("Element uid \"{mid_button}\" not found on page 1.");
    assert_eq!(r.text, error_text(&not_found), "{}", r.text);
    // The browser layer saw the crash (rather than, say, a frame that went away).
    assert!(
        mcp.stderr_log().contains("an iframe of page 1 crashed"),
        "{}",
        mcp.stderr_log()
    );
    let r = mcp.call_ok("list_pages", json!({}));
    assert!(r.text.contains("main.html"), "{}", r.text);
    // The page itself still runs code and takes input.
    let title = mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => document.querySelector('h1').textContent"}),
    );
    assert!(title.text.contains("Main page"), "{}", title.text);
}

#[test]
fn hover_and_drag_reach_elements_two_frames_deep() {
    let sites = Sites::start();
    let mcp = isolated(&[]);
    let snap = open_main(&mcp, &sites);
    let target = uid(&snap, "button", "Drop here");
    let r = mcp.call("hover", json!({"uid": target}));
    assert!(!r.is_error, "{}", r.text);
    snapshot_until(&mcp, |t| t.contains("inner idle entered"));
    let r = mcp.call(
        "drag",
        json!({"from_uid": uid(&snap, "button", "Drag me"), "to_uid": target}),
    );
    assert!(!r.is_error, "{}", r.text);
    snapshot_until(&mcp, |t| {
        t.contains("pressed") && t.contains("released here")
    });
}

#[test]
fn input_into_a_frame_the_pointer_cannot_reach_says_so() {
    let sites = Sites::start();
    let mcp = isolated(&[]);
    let snap = open_main(&mcp, &sites);
    // The page lets the pointer through its <iframe>: events at the button's point reach the
    // page behind the frame, and the frame never sees the mouse.
    mcp.call_ok(
        "evaluate_script",
        json!({"function": "() => { document.getElementById('f').style.pointerEvents = 'none'; return 0; }"}),
    );
    let button = uid(&snap, "button", "Mid button");
    let refused = error_text(&format!(
        "Failed to interact with the element with uid {button}. The mouse is over its point, but its frame never saw"
    ));
    for tool in ["hover", "click"] {
        let r = mcp.call(tool, json!({ "uid": button }));
        assert!(
            r.is_error && r.text.starts_with(&refused),
            "{tool}: {}",
            r.text
        );
    }
    let out = snapshot_until(&mcp, |t| t.contains("mid idle"));
    assert!(!out.contains("mid clicked"), "{out}");
}
