//! `devtools-mcp check`: a page with one of every defect the check reports (registration
//! errors and warnings, and with `--exercise` a tool that throws, one that never settles, a slow
//! one, a large result, values that do not survive the trip, an undefined result), including
//! defects of a group answered by a promise after the load and of a listener added a second
//! after it; the same page with each defect fixed (`?fixed`), which passes; a page with no
//! tools; usage and browser errors.

use std::process::{Command, Output};

use serde_json::{json, Value};

use crate::support::{chrome_path, slots, Fixtures};

/// Runs `devtools-mcp check --url URL EXTRA…` with this machine's browser, holding a browser
/// slot.
fn check(url: &str, extra: &[&str]) -> Output {
    let _slot = slots::acquire();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_devtools-mcp"));
    cmd.args(["check", "--url", url]).args(extra);
    cmd.arg("--server-arg")
        .arg(format!("--executablePath={}", chrome_path()));
    for flag in crate::support::mcp::BROWSER_FLAGS {
        cmd.args(["--server-arg", flag]);
    }
    cmd.output().expect("run devtools-mcp check")
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn json_of(out: &Output) -> Value {
    let stdout = text(out);
    serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// One problem of a `--json` report, after checking that it has exactly the four keys.
struct Found {
    group: Option<String>,
    tool: Option<String>,
    severity: String,
    message: String,
}

fn problems(report: &Value) -> Vec<Found> {
    let list = report["problems"].as_array().expect("problems is an array");
    let keys = |p: &Value| p.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>());
    list.iter()
        .map(|p| {
            assert_eq!(
                keys(p).unwrap_or_default(),
                ["group", "tool", "severity", "message"],
                "{p}"
            );
            let text = |k: &str| p[k].as_str().map(str::to_owned);
            Found {
                group: text("group"),
                tool: text("tool"),
                severity: text("severity").unwrap_or_default(),
                message: text("message").unwrap_or_default(),
            }
        })
        .collect()
}

/// What the defects page must report: group, tool (`None` for the page's or the group's own
/// problems), severity, and how the message starts.
const DEFECTS: &[(Option<&str>, Option<&str>, &str, &str)] = &[
    // Registration errors: what the server leaves out.
    (None, None, "error", "a tool group has no name"),
    (Some("Reports"), None, "error", "tool group 'Reports' has no tools array"),
    (Some("Shop"), None, "error", "tools[9] in group 'Shop' has no name"),
    (Some("Shop"), Some("returns"), "error", "tool 'returns' in group 'Shop' has no execute function"),
    (Some("Shop"), Some("coupons"), "error", "tool 'coupons' in group 'Shop': its inputSchema is not a valid JSON Schema"),
    // Registration warnings.
    (Some("Shop"), Some("add_item"), "warning", "the tool has no description"),
    (Some("Debug"), None, "warning", "the group has no description"),
    (Some("Shop"), Some("stock level"), "warning", "MCP clients refuse 'stock level' as a tool name"),
    (Some("Debug"), Some("cart"), "warning", "group 'Shop' registers 'cart' too"),
    (Some("Shop"), Some("add_item"), "warning", "required names properties that are not defined: 'qty'"),
    (Some("Shop"), Some("add_item"), "warning", "properties without a type: 'sku'"),
    (None, None, "warning", "1 group promise(s) given to respondWith() had not settled 5 s after the load"),
    // Late registrations (a promise after 800 ms, a listener added a second after the load).
    (Some("Inventory"), Some("count"), "warning", "the tool has no description"),
    (Some("Late"), Some("late_tool"), "warning", "required names properties that are not defined: 'delay'"),
    // Running.
    (Some("Shop"), Some("add_item"), "error", r#"threw when called with {"sku":"aaa","qty":"a"}: the cart is locked"#),
    (Some("Shop"), Some("checkout"), "error", "did not settle within 2000 ms when called with {}"),
    (Some("Shop"), Some("sync_stock"), "warning", "took 1."),
    (Some("Shop"), Some("orders"), "warning", "its result is "),
    (Some("Shop"), Some("clear_cart"), "warning", "returned undefined when called with {}"),
    (Some("Shop"), Some("cart"), "warning", "its result holds 3 values that cannot make the trip to the agent: a Cart instance at result.cart, a function at result.total, a circular reference at result.node.parent"),
];

#[test]
fn every_defect_is_reported_by_tool_with_its_severity_late_registrations_included() {
    let fx = Fixtures::start();
    let url = fx.url("/thirdparty/check.html");
    let out = check(&url, &["--exercise", "--timeout", "2000", "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    let report = json_of(&out);
    let keys: Vec<&String> = report
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["ok", "tools", "problems"], "{report}");
    assert_eq!(report["ok"], false);
    // Shop's eight, Debug's, and the late ones: Inventory's and Late's.
    assert_eq!(report["tools"], 11, "{report}");
    let found = problems(&report);
    for &(group, tool, severity, message) in DEFECTS {
        let hit = found.iter().any(|f| {
            f.group.as_deref() == group
                && f.tool.as_deref() == tool
                && f.severity == severity
                && f.message.starts_with(message)
        });
        assert!(
            hit,
            "no {severity} of {group:?}/{tool:?} starting {message:?} in {report:#}"
        );
    }
    assert_eq!(found.len(), DEFECTS.len(), "{report:#}");
    // The tool that takes an element got one and ran cleanly.
    assert!(
        !found.iter().any(|f| f.tool.as_deref() == Some("highlight")),
        "{report:#}"
    );
}

#[test]
fn the_readable_report_groups_problems_by_tool_with_a_fix_each() {
    let fx = Fixtures::start();
    let out = check(&fx.url("/thirdparty/check.html"), &[]);
    assert_eq!(out.status.code(), Some(1));
    let report = text(&out);
    let at = |needle: &str| {
        report
            .find(needle)
            .unwrap_or_else(|| panic!("no {needle:?} in:\n{report}"))
    };
    assert!(report.contains("4 groups, 11 tools (registrations only; --exercise runs them); registrations counted up to "), "{report}");
    let page = at("the page's registrations\n  error    a tool group has no name (expected a non-empty string, got an empty string)\n           fix: give the group a non-empty string name\n");
    let cart = at("\nShop › cart\n  ok\n");
    let add = at("\nShop › add_item\n  warning  the tool has no description\n           fix: ");
    let debug = at("\ngroup Debug\n  warning  the group has no description\n");
    let late = at(
        "\nLate › late_tool\n  warning  required names properties that are not defined: 'delay'\n",
    );
    let reports = at("\ngroup Reports\n  error    tool group 'Reports' has no tools array (got undefined)\n           fix: give the group a tools array (it may be empty)\n");
    assert!(
        page < cart && cart < add && add < debug && debug < late && late < reports,
        "{report}"
    );
    assert!(
        report.ends_with("\n5 errors, 9 warnings: failed\n"),
        "{report}"
    );
}

#[test]
fn the_fixed_page_passes_with_no_problems() {
    let fx = Fixtures::start();
    let url = fx.url("/thirdparty/check.html?fixed");
    let out = check(&url, &["--exercise", "--timeout", "2000", "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    assert_eq!(
        json_of(&out),
        json!({"ok": true, "tools": 11, "problems": []})
    );
    let readable = check(&url, &[]);
    assert_eq!(readable.status.code(), Some(0));
    let report = text(&readable);
    assert!(report.contains("\nLate › late_tool\n  ok\n"), "{report}");
    assert!(
        report.ends_with("\n0 errors, 0 warnings: passed\n"),
        "{report}"
    );
}

#[test]
fn a_page_without_tools_says_so_and_passes() {
    let fx = Fixtures::start();
    let url = fx.url("/thirdparty/no-tools.html");
    let out = check(&url, &["--exercise"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out),
        format!("devtools-mcp check {url}\nThis page exposes no third-party developer tools.\n")
    );
    let json = check(&url, &["--json"]);
    assert_eq!(json.status.code(), Some(0));
    assert_eq!(
        json_of(&json),
        json!({"ok": true, "tools": 0, "problems": []})
    );
}

#[test]
fn usage_and_browser_errors_exit_2() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_devtools-mcp"))
            .arg("check")
            .args(args)
            .output()
            .expect("run devtools-mcp check")
    };
    let stderr = |out: &Output| String::from_utf8_lossy(&out.stderr).into_owned();
    let unparseable = run(&["--url", "127.0.0.1:8080/page.html"]);
    assert_eq!(unparseable.status.code(), Some(2));
    assert!(
        stderr(&unparseable).contains("is not a URL"),
        "{}",
        stderr(&unparseable)
    );
    let no_url = run(&[]);
    assert_eq!(no_url.status.code(), Some(2));
    let zero = run(&["--url", "http://127.0.0.1:1/", "--timeout", "0"]);
    assert_eq!(zero.status.code(), Some(2));
    assert!(
        stderr(&zero).contains("--timeout must be between 1 and"),
        "{}",
        stderr(&zero)
    );
    let no_browser = run(&[
        "--url",
        "about:blank",
        "--server-arg",
        "--executablePath=/nonexistent/chromium",
    ]);
    assert_eq!(no_browser.status.code(), Some(2));
    assert!(
        stderr(&no_browser).contains("Could not start the browser"),
        "{}",
        stderr(&no_browser)
    );
    assert!(no_browser.stdout.is_empty());
}

/// A page that answered with an HTTP error has no tools to check: that is not a pass.
#[test]
fn a_page_answering_404_is_a_browser_error() {
    let fx = Fixtures::start();
    let url = fx.url("/thirdparty/no-such-page.html");
    let out = check(&url, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(
        stderr.contains(&format!("{url} answered HTTP 404")),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}
