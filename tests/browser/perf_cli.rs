//! `devtools-mcp perf`: metrics of a page built to have known ones, budgets and exit codes, the
//! JSON shape. The page has one layout shift sized to score exactly 0.01 at any viewport, an LCP
//! image the fixture server answers only after [`IMAGE_DELAY`], and one long task after FCP.
//! Only lower bounds are asserted on times: the machine is loaded, so runs can only be slower.

use std::process::{Command, Output};
use std::time::Duration;

use crate::support::{chrome_path, slots, Fixtures, Response};
use serde_json::Value;

const IMAGE_DELAY: Duration = Duration::from_millis(1500);
/// How long the page's long task busy-waits.
const LONG_TASK_MS: f64 = 300.0;

/// A large SVG, so that it (not the text) is the largest contentful paint. Chromium leaves
/// low-entropy images (few encoded bits per pixel, like one flat rectangle) out of LCP, so it is
/// a grid of differently coloured cells.
fn hero_svg() -> String {
    let mut svg =
        String::from(r#"<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400">"#);
    for i in 0..600u32 {
        let (x, y) = ((i % 30) * 20, (i / 30) * 20);
        let colour = i.wrapping_mul(2_654_435_761) & 0xff_ffff;
        svg += &format!(r##"<rect x="{x}" y="{y}" width="20" height="20" fill="#{colour:06x}"/>"##);
    }
    svg + "</svg>"
}

/// The box spans the viewport's width and moves down by 5 % of the larger viewport side, over a
/// region 20 % of the viewport's height: impact 0.2 × distance 0.05 = 0.01. It moves after the
/// image arrives, two frames after first paint at the earliest, so the shift is observed.
/// The long task starts once FCP is seen, so all of it counts towards TBT.
const PAGE: &str = r#"<!doctype html><html><head><style>
html, body { margin: 0; overflow: hidden; height: 100%; }
#box { position: absolute; left: 0; background: orange; }
#hero { position: absolute; left: 0; bottom: 0; width: 300px; height: 200px; }
p { margin: 0; font-size: 10px; }
</style></head><body><p>perf fixture</p><div id="box"></div>
<img id="hero" src="/hero.svg" width="600" height="400">
<script>
const box = document.getElementById('box');
const vw = innerWidth, vh = innerHeight, big = Math.max(vw, vh);
const move = Math.round(0.05 * big);
box.style.width = vw + 'px';
box.style.top = '10px';
box.style.height = (Math.round(0.2 * vh) - move) + 'px';
document.getElementById('hero').addEventListener('load', () => {
  requestAnimationFrame(() => requestAnimationFrame(() => { box.style.top = (10 + move) + 'px'; }));
});
new PerformanceObserver((list, observer) => {
  if (list.getEntries().some(e => e.name === 'first-contentful-paint')) {
    observer.disconnect();
    setTimeout(() => { const end = performance.now() + LONG_TASK; while (performance.now() < end) {} }, 0);
  }
}).observe({ type: 'paint', buffered: true });
</script></body></html>"#;

fn fixture() -> (Fixtures, String) {
    let fx = Fixtures::start();
    fx.route_response(
        "/hero.svg",
        Response::bytes("image/svg+xml", hero_svg()).delay(IMAGE_DELAY),
    );
    let page = PAGE.replace("LONG_TASK", &LONG_TASK_MS.to_string());
    let url = fx.route_html("/perf.html", &page);
    (fx, url)
}

/// Runs `devtools-mcp perf` with this machine's browser flags, holding a browser slot.
fn perf(url: &str, extra: &[&str]) -> Output {
    let _slot = slots::acquire();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_devtools-mcp"));
    cmd.args(["perf", "--url", url]).args(extra);
    cmd.arg("--server-arg")
        .arg(format!("--executablePath={}", chrome_path()));
    for flag in crate::support::mcp::BROWSER_FLAGS {
        cmd.args(["--server-arg", flag]);
    }
    cmd.output().expect("run devtools-mcp perf")
}

fn json_of(out: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn metrics_of_a_known_page_and_the_json_shape() {
    let (_fx, url) = fixture();
    let out = perf(&url, &["--runs", "2", "--json", "--budget", "cls=0.5"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    assert_eq!(stderr.matches("run 1/2: TTFB").count(), 1, "{stderr}");
    assert_eq!(stderr.matches("run 2/2: TTFB").count(), 1, "{stderr}");
    let report = json_of(&out);
    assert_eq!(report["url"], url.as_str());
    assert_eq!(report["runs"].as_array().map(Vec::len), Some(2));
    assert_eq!(report["ok"], true);
    assert_eq!(report["budgets"][0]["metric"], "cls");
    assert_eq!(report["budgets"][0]["ok"], true);
    let delay = IMAGE_DELAY.as_millis() as f64;
    for run in report["runs"].as_array().into_iter().flatten() {
        let m = |name: &str| {
            run[name]
                .as_f64()
                .unwrap_or_else(|| panic!("{name} in {run}"))
        };
        let (ttfb, fcp, lcp) = (m("ttfb"), m("fcp"), m("lcp"));
        assert!(ttfb >= 0.0 && ttfb <= fcp, "{run}");
        assert!(lcp >= delay && lcp >= fcp, "LCP is the late image: {run}");
        assert!((m("cls") - 0.01).abs() < 0.001, "one shift of 0.01: {run}");
        assert!(
            m("tbt") >= LONG_TASK_MS - 50.0,
            "one long task after FCP: {run}"
        );
    }
    for name in ["ttfb", "fcp", "lcp", "cls", "tbt"] {
        let s = &report["metrics"][name];
        assert!(s["median"].is_f64() && s["p75"].is_f64(), "{name}: {s}");
        assert_eq!(s["missing"], 0, "{name}: {s}");
    }
    assert_eq!(report["metrics"]["lcp"]["unit"], "ms");
}

#[test]
fn a_broken_budget_exits_1_and_says_which() {
    let (_fx, url) = fixture();
    let out = perf(&url, &["--runs", "1", "--budget", "lcp=100,cls=0.5"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert!(stderr.contains("budget broken: lcp p75"), "{stderr}");
    assert!(!stderr.contains("budget broken: cls"), "{stderr}");
    let lcp_row = stdout
        .lines()
        .find(|l| l.starts_with("LCP"))
        .unwrap_or_default();
    assert!(lcp_row.ends_with("≤ 100 ms BROKEN"), "{stdout}");
    let cls_row = stdout
        .lines()
        .find(|l| l.starts_with("CLS"))
        .unwrap_or_default();
    assert!(cls_row.ends_with("≤ 0.500 ok"), "{stdout}");
}

#[test]
fn usage_and_browser_errors_exit_2() {
    let bad_budget = perf("http://127.0.0.1:1/", &["--budget", "speed=1"]);
    assert_eq!(bad_budget.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad_budget.stderr).contains("unknown metric"));
    let no_browser = Command::new(env!("CARGO_BIN_EXE_devtools-mcp"))
        .args(["perf", "--url", "about:blank", "--runs", "1"])
        .args(["--server-arg", "--executablePath=/nonexistent/chromium"])
        .output()
        .expect("run devtools-mcp perf");
    assert_eq!(no_browser.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&no_browser.stderr).contains("run 1/1"));
}

/// The page replaces what the observer uses and tries to take its name first; the observer
/// captured everything before the page's scripts ran, so the page's own paints are still read.
#[test]
fn a_page_that_replaces_the_performance_apis_is_still_measured() {
    let fx = Fixtures::start();
    let url = fx.page_url_with_html(
        r#"<!doctype html><script>
window.PerformanceObserver = function () { throw new Error('no observers here'); };
PerformanceObserverEntryList.prototype.getEntries = () => [];
Object.defineProperty(PerformanceEntry.prototype, 'startTime', { get: () => -1 });
window.setTimeout = () => 0;
window.Promise = function () {};
try { Object.defineProperty(window, '__dtmcpPerf', { value: () => ({ fcp: -1 }) }); } catch (_) {}
</script><p>hostile page</p>"#,
    );
    let out = perf(&url, &["--runs", "1", "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    let run = &json_of(&out)["runs"][0];
    let fcp = run["fcp"].as_f64().unwrap_or(-1.0);
    assert!(fcp > 0.0, "{run}");
    assert!(run["lcp"].as_f64().is_some_and(|lcp| lcp >= fcp), "{run}");
    assert_eq!(run["cls"], 0.0, "{run}");
}
