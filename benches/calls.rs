//! Tool-call round trips through the server, each beside the floor: one raw `Runtime.evaluate`
//! doing the same work in the same fixture page, over `--remote-debugging-pipe` to a Chromium
//! this bench starts itself with the same switches.
//!
//! Both browsers stay up for the whole run and the series alternate in blocks (ours, floor,
//! ours, floor, …), so a burst of load on this shared machine lands on both sides alike.
//!
//!     cargo bench --bench calls
//!     BENCH_ITERATIONS=1000 BENCH_ROUNDS=10 cargo bench --bench calls

mod common;

use std::time::Duration;

use common::*;
use serde_json::{json, Value};

fn main() {
    let counts = Counts::from_env();
    let fixtures = Fixtures::start(&[("/tools.html", tools_page())]);
    let url = fixtures.url("/tools.html");

    let mut floor = Browser::launch();
    floor.call("Browser.getVersion", json!({}), None);
    let session = floor.attach_first_page();
    floor.navigate(&session, &url);

    // The ~1 MB result is 1.26 M characters pretty-printed: over the default cap, so the cap
    // is raised for it to come back whole, the same bytes the floor moves.
    let mut mcp = Mcp::spawn_with(&[&format!("--maxResultBytes={BIG_CAP}")]);
    mcp.initialize();
    mcp.call_ok("new_page", json!({"url": url}));
    let listed = mcp.call_ok("list_3p_developer_tools", json!({}));
    assert_listed(&listed.text());
    let server_pid = mcp.pid();
    // Let both browsers finish their start-up work before anything is timed.
    std::thread::sleep(Duration::from_secs(2));

    println!("server: {} (pid {server_pid})", server());
    println!(
        "floor browser: {} {}",
        default_browser().exe,
        CHROMIUM_FLAGS.join(" ")
    );
    println!();

    let mut sides = Sides {
        mcp: &mut mcp,
        floor: &mut floor,
        session: &session,
    };
    let mut report = vec![
        evaluate_series(&counts, &mut sides),
        execute_series(&counts, &mut sides),
    ];
    let ping = ping_series(&counts, sides.mcp);
    let list = list_series(&counts, sides.mcp);
    let (big_row, big) = big_series(&counts, &mut sides);
    report.push(big_row);

    let hwm = status_kb(server_pid, "VmHWM");
    let shutdown = mcp.close();

    // Where the time goes: the page-side work the server asks for, timed raw on the floor
    // browser with the server's shim installed, so ours − this is what the server adds.
    let breakdown = page_side(
        &mut floor,
        &session,
        counts.iterations.min(200),
        counts.big_iterations,
    );
    floor.close();

    print_series(&report);
    print_row("ping (the MCP stdio hop alone, no browser work)", &ping);
    println!();
    list.print();
    println!();
    println!("page-side share: the same CDP requests the server sends, raw, on the floor browser with the shim:");
    print_header();
    for (name, samples) in &breakdown {
        print_row(name, samples);
    }
    println!();
    big.print();
    println!(
        "server VmHWM after the series: {} kB; shutdown after stdin closed: {:.1} ms",
        hwm.unwrap_or(0),
        ms(shutdown)
    );
}

/// How many calls each series makes (from the environment, see the header).
struct Counts {
    iterations: usize,
    list_iterations: usize,
    big_iterations: usize,
    rounds: usize,
    warmup: usize,
}

impl Counts {
    fn from_env() -> Counts {
        Counts {
            iterations: env_count("BENCH_ITERATIONS", 400),
            list_iterations: env_count("BENCH_LIST_ITERATIONS", 200),
            big_iterations: env_count("BENCH_BIG_ITERATIONS", 20),
            rounds: env_count("BENCH_ROUNDS", 4).max(1),
            warmup: 10,
        }
    }
}

/// Both sides of the comparison: the server, and the floor browser with its page's session.
struct Sides<'a> {
    mcp: &'a mut Mcp,
    floor: &'a mut Browser,
    session: &'a str,
}

/// One compared series: our call's name, the floor's, the timings, the target ratio.
type Row = (&'static str, &'static str, Series, Option<f64>);

/// evaluate_script `() => 1+1`  vs  Runtime.evaluate("1+1")
fn evaluate_series(counts: &Counts, sides: &mut Sides) -> Row {
    let session = sides.session;
    let series = alternate(
        counts.rounds,
        counts.iterations,
        counts.warmup,
        sides.mcp,
        sides.floor,
        |mcp, _| {
            let a = mcp.call("evaluate_script", json!({"function": "() => 1+1"}));
            (a.latency, !a.is_error() && a.text().contains("\n2\n"))
        },
        |floor| {
            let (v, took) = floor.evaluate(session, "1+1", false);
            (took, v == json!(2))
        },
    );
    (
        "evaluate_script `() => 1+1`",
        "Runtime.evaluate `1+1`",
        series,
        Some(1.5),
    )
}

/// execute_3p_developer_tool add  vs  Runtime.evaluate of the tool's own function
fn execute_series(counts: &Counts, sides: &mut Sides) -> Row {
    let session = sides.session;
    let series = alternate(
        counts.rounds,
        counts.iterations,
        counts.warmup,
        sides.mcp,
        sides.floor,
        |mcp, i| {
            let params = json!({"a": i, "b": 2 * i}).to_string();
            let a = mcp.call(
                "execute_3p_developer_tool",
                json!({"toolName": "add", "params": params}),
            );
            (
                a.latency,
                !a.is_error() && a.text().contains(&format!("{}", 3 * i)),
            )
        },
        |floor| {
            let (v, took) = floor.evaluate(session, "benchTools.add({a: 2, b: 3})", true);
            (took, v["sum"] == 5)
        },
    );
    (
        "execute_3p_developer_tool add",
        "Runtime.evaluate `benchTools.add({a:2,b:3})`",
        series,
        Some(1.4),
    )
}

/// ping: the MCP hop alone (client → server → client, no browser), the part of every call
/// above that no browser work can explain.
fn ping_series(counts: &Counts, mcp: &mut Mcp) -> Vec<f64> {
    let mut ping = Vec::new();
    for i in 0..(counts.iterations + counts.warmup) {
        let a = mcp.request("ping", json!({}));
        if i >= counts.warmup {
            ping.push(ms(a.latency));
        }
    }
    ping
}

/// list_3p_developer_tools: no floor of its own (the target is absolute); the 1+1 floor is
/// printed beside it for scale.
struct List {
    samples: Vec<f64>,
    ok: usize,
    cpu: f64,
}

fn list_series(counts: &Counts, mcp: &mut Mcp) -> List {
    let server_pid = mcp.pid();
    let cpu = cpu_ms(server_pid);
    let mut list = Vec::new();
    let mut list_ok = 0;
    for i in 0..(counts.list_iterations + counts.warmup) {
        let a = mcp.call("list_3p_developer_tools", json!({}));
        if i >= counts.warmup {
            list_ok += usize::from(!a.is_error() && a.text().contains("name=\"add\""));
            list.push(ms(a.latency));
        }
    }
    let list_cpu = (cpu_ms(server_pid) - cpu) / (counts.list_iterations + counts.warmup) as f64;
    List {
        samples: list,
        ok: list_ok,
        cpu: list_cpu,
    }
}

impl List {
    fn print(&self) {
        let (list, list_ok, list_cpu) = (&self.samples, self.ok, self.cpu);
        let l = print_row("list_3p_developer_tools", list);
        println!(
            "  correct: {list_ok}/{}   server CPU per call: {list_cpu:.3} ms   (target p50 ≤ 0.5 ms: p50 {:.3} ms)",
            list.len(),
            l.p50
        );
    }
}

/// The server's result cap in this bench: above the ~1 MB result's pretty-printed size.
const BIG_CAP: usize = 2_000_000;

/// What the floor asks for: the ~1 MB result printed as the server prints a page tool's
/// result (JSON with two-space indentation).
const BIG_FLOOR: &str = "JSON.stringify(benchTools.big({}), null, 2)";

/// What the ~1 MB series saw besides its timings.
struct Big {
    /// Our MCP response line, in bytes.
    line_bytes: usize,
    /// The result's length in characters.
    chars: usize,
}

/// ~1 MB result: execute 'big'  vs  Runtime.evaluate(JSON.stringify(benchTools.big(), null, 2)):
/// both sides carry the same text, and each answer counts as correct only when it is that text.
fn big_series(counts: &Counts, sides: &mut Sides) -> (Row, Big) {
    let session = sides.session;
    let expected = match sides.floor.evaluate(session, BIG_FLOOR, false) {
        (Value::String(s), _) => s,
        (other, _) => panic!("the floor's ~1 MB result is not a string: {other}"),
    };
    assert!(
        expected.len() < BIG_CAP && expected.contains(&format!("\"i\": {}", BIG_ROWS - 1)),
        "the ~1 MB result is not what this bench expects ({} chars)",
        expected.len()
    );
    let series = alternate(
        counts.rounds.min(counts.big_iterations),
        counts.big_iterations,
        2,
        sides.mcp,
        sides.floor,
        |mcp, _| {
            let a = mcp.call(
                "execute_3p_developer_tool",
                json!({"toolName": "big", "params": "{}"}),
            );
            (a.latency, !a.is_error() && a.text() == expected)
        },
        |floor| {
            let (v, took) = floor.evaluate(session, BIG_FLOOR, false);
            (took, v.as_str() == Some(expected.as_str()))
        },
    );
    let ours = sides.mcp.call(
        "execute_3p_developer_tool",
        json!({"toolName": "big", "params": "{}"}),
    );
    let row = (
        "~1 MB result (execute 'big')",
        "Runtime.evaluate `JSON.stringify(big(), null, 2)`",
        series,
        Some(1.3),
    );
    (
        row,
        Big {
            line_bytes: ours.bytes,
            chars: expected.len(),
        },
    )
}

impl Big {
    fn print(&self) {
        println!(
            "~1 MB result: the same {} characters on both sides; our MCP response line {} bytes",
            self.chars, self.line_bytes
        );
    }
}

/// The compared series, each with its floor, ratio and correctness.
fn print_series(report: &[Row]) {
    print_header();
    for (ours_name, floor_name, s, target) in report {
        let o = print_row(ours_name, &s.ours);
        let f = print_row(&format!("  floor: {floor_name}"), &s.floor);
        print_ratio(ours_name, &o, &f, *target);
        println!(
            "  correct: ours {}/{}  floor {}/{}   server CPU per call: {:.3} ms",
            s.ours_ok,
            s.ours.len(),
            s.floor_ok,
            s.floor.len(),
            s.server_cpu_per_call
        );
        println!();
    }
}

/// What execute_3p_developer_tool sends for a tool without element arguments: the server's
/// own expression (src/pagetools/run.rs) with the cap this bench gives the server.
fn run_tool(tool: &str, params: Value) -> String {
    let options = json!({"elementKeys": [], "maxChars": BIG_CAP});
    devtools_mcp::page_scripts::run_expression(tool, &params, &options)
}

fn page_side(
    floor: &mut Browser,
    session: &str,
    n: usize,
    big_n: usize,
) -> Vec<(String, Vec<f64>)> {
    floor.evaluate(session, devtools_mcp::page_scripts::shim(), false);
    let context = floor.default_context(session);
    // The shim's own first discovery (scheduled at install) ends within its grace period.
    std::thread::sleep(Duration::from_millis(700));
    let mut out = Vec::new();
    let mut time = |name: &str, count: usize, f: &mut dyn FnMut() -> Duration| {
        time_one(&mut out, name, count, f)
    };
    // The server's own wrapper (src/tools/script.rs), as evaluate_script sends it.
    let evaluate_wrapper = devtools_mcp::page_scripts::page_function("() => 1+1", false);
    time(
        "callFunctionOn(evaluate_script wrapper of `() => 1+1`)",
        n,
        &mut || {
            floor
                .call_function(session, context, &evaluate_wrapper, json!([]), true)
                .1
        },
    );
    let add = run_tool("add", json!({"a": 2, "b": 3}));
    time(
        "Runtime.evaluate(__dtmcp.run('add', {a:2,b:3}))",
        n,
        &mut || floor.evaluate(session, &add, true).1,
    );
    time(
        "Runtime.evaluate(__dtmcp.discover()) (what each list does)",
        n,
        &mut || {
            floor
                .evaluate(
                    session,
                    "window.__dtmcp && window.__dtmcp.shim ? window.__dtmcp.discover() : null",
                    true,
                )
                .1
        },
    );
    big_page_side(floor, session, big_n, &mut out);
    out
}

/// The ~1 MB part of `page_side`.
fn big_page_side(
    floor: &mut Browser,
    session: &str,
    big_n: usize,
    out: &mut Vec<(String, Vec<f64>)>,
) {
    let mut time =
        |name: &str, count: usize, f: &mut dyn FnMut() -> Duration| time_one(out, name, count, f);
    let big = run_tool("big", json!({}));
    time(
        "Runtime.evaluate(__dtmcp.run('big', {}))",
        big_n,
        &mut || floor.evaluate(session, &big, true).1,
    );
    // The same page work without the transfer: only the length comes back.
    time(
        "  page work only: JSON.stringify(big(), null, 2).length (floor's work)",
        big_n,
        &mut || {
            let expression = format!("({BIG_FLOOR}).length");
            floor.evaluate(session, &expression, false).1
        },
    );
    time(
        "  page work only: __dtmcp.run('big').length (the shim's work)",
        big_n,
        &mut || {
            let expression = format!("Promise.resolve({big}).then(s => s.length)");
            floor.evaluate(session, &expression, true).1
        },
    );
}

/// Times `f` `count` times, after 5 uncounted calls, into `out` under `name`.
fn time_one(
    out: &mut Vec<(String, Vec<f64>)>,
    name: &str,
    count: usize,
    f: &mut dyn FnMut() -> Duration,
) {
    for _ in 0..5 {
        f();
    }
    let samples: Vec<f64> = (0..count).map(|_| ms(f())).collect();
    out.push((name.to_owned(), samples));
}

fn assert_listed(text: &str) {
    if !text.contains("name=\"add\"") {
        panic!("the fixture's tools were not listed:\n{text}");
    }
}

struct Series {
    ours: Vec<f64>,
    floor: Vec<f64>,
    ours_ok: usize,
    floor_ok: usize,
    server_cpu_per_call: f64,
}

/// Runs `iterations` calls on each side in `rounds` alternating blocks, after `warmup`
/// uncounted calls on each side. Each closure returns (latency, answer was right).
fn alternate(
    rounds: usize,
    iterations: usize,
    warmup: usize,
    mcp: &mut Mcp,
    floor: &mut Browser,
    mut ours: impl FnMut(&mut Mcp, usize) -> (Duration, bool),
    mut raw: impl FnMut(&mut Browser) -> (Duration, bool),
) -> Series {
    for i in 0..warmup {
        ours(mcp, i + 1);
        raw(floor);
    }
    let server_pid = mcp.pid();
    let mut s = Series {
        ours: Vec::with_capacity(iterations),
        floor: Vec::with_capacity(iterations),
        ours_ok: 0,
        floor_ok: 0,
        server_cpu_per_call: 0.0,
    };
    let per_round = iterations.div_ceil(rounds);
    let mut cpu = 0.0;
    let mut i = 0;
    while s.ours.len() < iterations {
        let n = per_round.min(iterations - s.ours.len());
        let before = cpu_ms(server_pid);
        for _ in 0..n {
            i += 1;
            let (took, ok) = ours(mcp, i);
            s.ours.push(ms(took));
            s.ours_ok += usize::from(ok);
        }
        cpu += cpu_ms(server_pid) - before;
        for _ in 0..n {
            let (took, ok) = raw(floor);
            s.floor.push(ms(took));
            s.floor_ok += usize::from(ok);
        }
    }
    s.server_cpu_per_call = cpu / iterations as f64;
    s
}
