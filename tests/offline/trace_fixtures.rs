//! The streaming trace analyser against chrome-devtools-mcp 1.11.0 on the same traces
//! (tests/fixtures/perf: traces the reference recorded, and what it answered for them).

use std::fs;
use std::path::PathBuf;

use devtools_mcp::trace;

const PAGES: &[&str] = &[
    "lcp-image",
    "layout-shift",
    "render-blocking",
    "long-tasks",
    "interaction",
    "document-latency",
    "request-chain",
    "redirect",
    "dom-size",
    "forced-reflow",
    "third-parties",
    // RenderBlocking's Lantern savings.
    "multi",
    "busy",
    "cross",
    "fetchy",
    "image-lcp",
];

/// The recorded traces and the reference's answers for them.
pub(crate) fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/perf")
}

fn ours(name: &str) -> String {
    let file = fs::File::open(dir().join(format!("{name}.json.gz"))).unwrap();
    let mut report = trace::analyse_reader(file).unwrap();
    // The reference recorded with the page's CPU throttling rate, 1.
    report.cpu_throttling = Some(1.0);
    scrub(&trace::summary(&report))
}

/// The fixture server's port differs between runs (it serves 127.0.0.1, and 127.0.0.2 and
/// `localhost` as other sites).
fn scrub(text: &str) -> String {
    let mut text = text.to_owned();
    for host in [
        "http://127.0.0.1:",
        "http://127.0.0.2:",
        "http://localhost:",
        // Traces rewritten over TLS.
        "https://127.0.0.1:",
        "https://127.0.0.2:",
        "https://localhost:",
    ] {
        let mut out = String::new();
        let mut rest = text.as_str();
        while let Some(i) = rest.find(host) {
            let (head, tail) = rest.split_at(i + host.len());
            out.push_str(head);
            out.push_str("PORT");
            rest = tail.trim_start_matches(|c: char| c.is_ascii_digit());
        }
        out.push_str(rest);
        text = out;
    }
    text
}

fn reference(name: &str) -> String {
    let text = fs::read_to_string(dir().join(format!("{name}.summary.txt"))).unwrap();
    // The reference's answer starts with the file it saved and "stopped".
    let start = text.find("## Summary of").unwrap();
    text[start..].to_owned()
}

/// Lines that state metrics: trace and set headers, LCP, its breakdown, INP and CLS.
fn metric_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| {
            [
                "URL:",
                "Trace bounds:",
                "CPU",
                "Network throttling",
                "## insight set id",
                "Bounds:",
            ]
            .iter()
            .any(|p| l.starts_with(p))
                || l.starts_with("  - LCP")
                || l.starts_with("    - ")
                || l.starts_with("  - CLS")
                || l.starts_with("  - INP")
        })
        .filter(|l| !l.starts_with("    - insight"))
        .map(str::to_owned)
        .collect()
}

fn computed_insight_lines(text: &str) -> Vec<String> {
    let computed: Vec<&str> = trace::INSIGHTS
        .iter()
        .filter(|(_, c)| *c)
        .map(|(n, _)| *n)
        .collect();
    let mut out = Vec::new();
    let mut keep = false;
    for line in text.lines() {
        if line.starts_with("## insight set id") {
            out.push(line.to_owned());
        } else if let Some(name) = line.strip_prefix("  - insight name: ") {
            keep = computed.contains(&name);
        } else if !line.starts_with("    ") {
            keep = false;
        }
        if keep {
            out.push(line.to_owned());
        }
    }
    out
}

#[test]
fn lab_metrics_match_the_reference() {
    for name in PAGES {
        let (ours, theirs) = (ours(name), reference(name));
        assert_eq!(metric_lines(&ours), metric_lines(&theirs), "{name}");
        assert!(metric_lines(&ours).len() >= 9, "{name}: {ours}");
    }
}

#[test]
fn computed_insights_are_listed_as_the_reference_lists_them() {
    for name in PAGES {
        let (ours, theirs) = (ours(name), reference(name));
        assert_eq!(
            computed_insight_lines(&ours),
            computed_insight_lines(&theirs),
            "{name}"
        );
    }
}

#[test]
fn the_summary_ends_with_the_reference_format_notes() {
    let (ours, theirs) = (ours("lcp-image"), reference("lcp-image"));
    let notes = |t: &str| {
        t[t.find("## Details on call tree").unwrap()..]
            .trim_end()
            .to_owned()
    };
    assert_eq!(notes(&ours), notes(&theirs));
}

#[test]
fn plain_and_bare_array_traces_read_like_gzip() {
    use std::io::Read;
    let mut gz =
        flate2::read::GzDecoder::new(fs::File::open(dir().join("layout-shift.json.gz")).unwrap());
    let mut json = String::new();
    gz.read_to_string(&mut json).unwrap();
    let plain = trace::analyse_reader(json.as_bytes()).unwrap();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let bare = serde_json::to_vec(&value["traceEvents"]).unwrap();
    let bare = trace::analyse_reader(bare.as_slice()).unwrap();
    let gz =
        trace::analyse_reader(fs::File::open(dir().join("layout-shift.json.gz")).unwrap()).unwrap();
    for report in [&plain, &bare] {
        assert_eq!(trace::summary(report), trace::summary(&gz));
    }
    let (cls, worst) = gz.sets[0].cls();
    assert!((cls - 0.0311).abs() < 0.0001, "{cls}");
    assert!(worst.is_some());
}

#[test]
fn insight_answers_match_the_reference_where_written() {
    let mut matched = Vec::new();
    for entry in fs::read_dir(dir()).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(rest) = name.strip_suffix(".txt") else {
            continue;
        };
        let parts: Vec<&str> = rest.split('.').collect();
        let [page, "insight", set, insight] = parts[..] else {
            continue;
        };
        let file = fs::File::open(dir().join(format!("{page}.json.gz"))).unwrap();
        let report = trace::analyse_reader(file).unwrap();
        let theirs = fs::read_to_string(dir().join(&name)).unwrap();
        match trace::insight(&report, set, insight) {
            Ok(ours) => {
                assert_eq!(scrub(&ours), theirs.trim_end(), "{name}");
                matched.push(name);
            }
            // Named as not written: never a wrong answer.
            Err(text) => assert!(text.starts_with("devtools-mcp "), "{name}: {text}"),
        }
    }
    matched.sort();
    assert_eq!(
        matched,
        [
            "busy.insight.NAVIGATION_0.LCPBreakdown.txt",
            "busy.insight.NAVIGATION_0.NetworkDependencyTree.txt",
            "busy.insight.NAVIGATION_0.RenderBlocking.txt",
            "cross.insight.NAVIGATION_0.LCPBreakdown.txt",
            "cross.insight.NAVIGATION_0.NetworkDependencyTree.txt",
            "cross.insight.NAVIGATION_0.RenderBlocking.txt",
            "cross.insight.NAVIGATION_0.ThirdParties.txt",
            "document-latency.insight.NAVIGATION_0.DocumentLatency.txt",
            "document-latency.insight.NAVIGATION_0.LCPBreakdown.txt",
            "dom-size.insight.NAVIGATION_0.DOMSize.txt",
            "dom-size.insight.NAVIGATION_0.LCPBreakdown.txt",
            "fetchy.insight.NAVIGATION_0.LCPBreakdown.txt",
            "fetchy.insight.NAVIGATION_0.NetworkDependencyTree.txt",
            "fetchy.insight.NAVIGATION_0.RenderBlocking.txt",
            "forced-reflow.insight.NAVIGATION_0.CLSCulprits.txt",
            "forced-reflow.insight.NAVIGATION_0.DOMSize.txt",
            "forced-reflow.insight.NAVIGATION_0.ForcedReflow.txt",
            "forced-reflow.insight.NAVIGATION_0.LCPBreakdown.txt",
            "image-lcp.insight.NAVIGATION_0.LCPBreakdown.txt",
            "image-lcp.insight.NAVIGATION_0.LCPDiscovery.txt",
            "image-lcp.insight.NAVIGATION_0.NetworkDependencyTree.txt",
            "image-lcp.insight.NAVIGATION_0.RenderBlocking.txt",
            "interaction.insight.NO_NAVIGATION.INPBreakdown.txt",
            "layout-shift.insight.NAVIGATION_0.CLSCulprits.txt",
            "layout-shift.insight.NAVIGATION_0.CharacterSet.txt",
            "layout-shift.insight.NAVIGATION_0.LCPBreakdown.txt",
            "lcp-image.insight.NAVIGATION_0.CharacterSet.txt",
            "lcp-image.insight.NAVIGATION_0.LCPBreakdown.txt",
            "lcp-image.insight.NAVIGATION_0.LCPDiscovery.txt",
            "long-tasks.insight.NAVIGATION_0.CharacterSet.txt",
            "long-tasks.insight.NAVIGATION_0.LCPBreakdown.txt",
            "multi.insight.NAVIGATION_0.LCPBreakdown.txt",
            "multi.insight.NAVIGATION_0.NetworkDependencyTree.txt",
            "multi.insight.NAVIGATION_0.RenderBlocking.txt",
            "redirect.insight.NAVIGATION_0.DocumentLatency.txt",
            "redirect.insight.NAVIGATION_0.LCPBreakdown.txt",
            "redirect.insight.NAVIGATION_0.NetworkDependencyTree.txt",
            "render-blocking.insight.NAVIGATION_0.CharacterSet.txt",
            "render-blocking.insight.NAVIGATION_0.LCPBreakdown.txt",
            "render-blocking.insight.NAVIGATION_0.NetworkDependencyTree.txt",
            "render-blocking.insight.NAVIGATION_0.RenderBlocking.txt",
            "request-chain.insight.NAVIGATION_0.LCPBreakdown.txt",
            "request-chain.insight.NAVIGATION_0.NetworkDependencyTree.txt",
            "request-chain.insight.NAVIGATION_0.RenderBlocking.txt",
            "third-parties.insight.NAVIGATION_0.LCPBreakdown.txt",
            "third-parties.insight.NAVIGATION_0.LCPDiscovery.txt",
            "third-parties.insight.NAVIGATION_0.NetworkDependencyTree.txt",
            "third-parties.insight.NAVIGATION_0.RenderBlocking.txt",
            "third-parties.insight.NAVIGATION_0.ThirdParties.txt",
        ]
    );
}

/// CLSCulprits' root causes on a made-up trace: a web font that finished loading just
/// before the pre-paint that shifted, and an unsized image painted right after it.
#[test]
fn layout_shift_culprits_name_fonts_and_unsized_images() {
    let events = serde_json::json!([
        {"name": "TracingStartedInBrowser", "ph": "I", "ts": 1000, "pid": 1, "tid": 1,
         "args": {"data": {"frames": [{"frame": "F", "url": "http://a.test/", "processId": 2}]}}},
        {"name": "ResourceSendRequest", "ph": "I", "ts": 1500, "pid": 2, "tid": 2,
         "args": {"data": {"requestId": "r1", "url": "http://a.test/f.woff2", "resourceType": "Font", "priority": "High"}}},
        {"name": "ResourceReceiveResponse", "ph": "I", "ts": 1700, "pid": 2, "tid": 2,
         "args": {"data": {"requestId": "r1", "mimeType": "font/woff2", "statusCode": 200}}},
        {"name": "ResourceFinish", "ph": "I", "ts": 1800, "pid": 2, "tid": 2,
         "args": {"data": {"requestId": "r1"}}},
        {"name": "LayoutImageUnsized", "ph": "I", "ts": 1900, "pid": 2, "tid": 2,
         "args": {"data": {"nodeId": 9}}},
        {"name": "PrePaint", "ph": "X", "ts": 2000, "dur": 100, "pid": 2, "tid": 2, "args": {}},
        {"name": "LayoutShift", "ph": "I", "ts": 2050, "pid": 2, "tid": 2,
         "args": {"data": {"weighted_score_delta": 0.2, "had_recent_input": false,
                           "impacted_nodes": [{"debug_name": "DIV id='a'"}, {"node_id": 3}]}}},
        {"name": "PaintImage", "ph": "X", "ts": 2200, "dur": 10, "pid": 2, "tid": 2,
         "args": {"data": {"nodeId": 9, "nodeName": "IMG", "url": "http://a.test/i.png"}}}
    ]);
    let bytes = serde_json::to_vec(&events).unwrap();
    let report = trace::analyse_reader(bytes.as_slice()).unwrap();
    let text = trace::insight(&report, "NO_NAVIGATION", "CLSCulprits").unwrap();
    let details = "### Layout shift 1:\n- Impacted elements:\n  - DIV id='a'\n\n- Start time: 1\u{a0}ms\n- Score: 0.2000\n- Potential root causes:\n  - A font that was loaded over the network: http://a.test/f.woff2 (eventKey: s-1, ts: 1500).\n- An unsized image (IMG) (url: http://a.test/i.png).\n";
    assert!(text.contains(details), "{text}");
    assert!(
        text.contains("The score for this cluster is 0.2000.\n"),
        "{text}"
    );
}

/// A recorded trace rewritten as if served over another network: every URL over https when
/// `https`, every response over `protocol`, and each fresh connection's handshake taking
/// `rtt` ms (twice with TLS), its later timings moved by as much. First, each
/// `replacements` pair replaces text in the trace (`PORT` in it: the fixture server's port).
fn rewritten(
    name: &str,
    protocol: &str,
    https: bool,
    rtt: f64,
    replacements: &[(&str, &str)],
) -> Vec<u8> {
    use std::io::Read;
    let file = fs::File::open(dir().join(format!("{name}.json.gz"))).unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .unwrap();
    let at = text.find("127.0.0.1:").unwrap() + "127.0.0.1:".len();
    let port: String = text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    for (from, to) in replacements {
        text = text.replace(&from.replace("PORT", &port), &to.replace("PORT", &port));
    }
    if https {
        for host in ["127.0.0.1:", "127.0.0.2:", "localhost:"] {
            text = text.replace(&format!("http://{host}"), &format!("https://{host}"));
        }
    }
    let mut trace: serde_json::Value = serde_json::from_str(&text).unwrap();
    let events = trace["traceEvents"].as_array_mut().unwrap();
    for event in events.iter_mut() {
        if event["name"] != "ResourceReceiveResponse" {
            continue;
        }
        let data = &mut event["args"]["data"];
        data["protocol"] = protocol.into();
        let timing = &mut data["timing"];
        let Some(start) = timing["connectStart"].as_f64().filter(|s| *s >= 0.0) else {
            continue;
        };
        let shift = if https { 2.0 * rtt } else { rtt };
        if https {
            timing["sslStart"] = (start + rtt).into();
            timing["sslEnd"] = (start + 2.0 * rtt).into();
        }
        timing["connectEnd"] = (start + shift).into();
        for key in [
            "sendStart",
            "sendEnd",
            "receiveHeadersStart",
            "receiveHeadersEnd",
        ] {
            if let Some(v) = timing[key].as_f64().filter(|v| *v >= 0.0) {
                timing[key] = (v + shift).into();
            }
        }
    }
    serde_json::to_vec(&trace).unwrap()
}

/// Lantern's connection model where the local fixtures do not reach it (their RTT is well
/// under a millisecond, so one request at a time): recorded traces rewritten with 25
/// to 40 ms handshakes, over HTTP/1.1, TLS and H2 (an image LCP saves no LCP). The numbers
/// are what DevTools' trace engine (the reference's bundle, run on the same rewritten
/// traces) estimates.
#[test]
fn render_blocking_savings_follow_lantern_over_slower_connections() {
    for (name, protocol, https, rtt, savings) in [
        ("busy", "http/1.1", false, 40.0, "FCP 233 ms, LCP 233 ms"),
        ("busy", "http/1.1", true, 25.0, "FCP 243 ms, LCP 243 ms"),
        ("busy", "h2", true, 30.0, "FCP 0 ms, LCP 0 ms"),
        ("cross", "h2", true, 30.0, "FCP 417 ms, LCP 417 ms"),
        ("third-parties", "h2", true, 30.0, "FCP 236 ms, LCP 0 ms"),
        (
            "request-chain",
            "http/1.1",
            true,
            25.0,
            "FCP 291 ms, LCP 291 ms",
        ),
    ] {
        let trace = rewritten(name, protocol, https, rtt, &[]);
        let report = trace::analyse_reader(trace.as_slice()).unwrap();
        let summary = trace::summary(&report);
        let line = format!("    estimated metric savings: {savings}\n");
        assert!(summary.contains(&line), "{name} {protocol}: {summary}");
    }
}

/// NetworkDependencyTree's preconnect candidates, which the local fixtures never have (their
/// connections take no time): traces rewritten over slower connections, with the imported
/// stylesheet (loaded by another stylesheet, so not by the document) moved to another
/// origin. The expected answers are DevTools' trace engine's on the same rewritten traces
/// (tests/fixtures/perf/preconnect/reference.mjs wrote them).
#[test]
fn preconnect_candidates_follow_lantern_over_slower_connections() {
    let moved = (
        "127.0.0.1:PORT/chain-imported.css",
        "127.0.0.2:PORT/chain-imported.css",
    );
    // The page's unused preconnect pointed at the moved stylesheet's origin instead: in
    // use, but the request still opened its own connection.
    let preconnected = ("unused.example.invalid/", "127.0.0.2:PORT/");
    for (expected, name, protocol, https, rtt, replacements) in [
        // Two RTTs of TLS setup.
        (
            "request-chain.h2.https.30",
            "request-chain",
            "h2",
            true,
            30.0,
            &[moved][..],
        ),
        (
            "request-chain.h2.https.30.crossorigin",
            "request-chain",
            "h2",
            true,
            30.0,
            &[moved, preconnected][..],
        ),
        // Exactly the 50 ms threshold.
        (
            "multi.http1.https.25",
            "multi",
            "http/1.1",
            true,
            25.0,
            &[moved][..],
        ),
        // One RTT without TLS: 40 ms, under the threshold.
        (
            "multi.http1.http.40",
            "multi",
            "http/1.1",
            false,
            40.0,
            &[moved][..],
        ),
    ] {
        let trace = rewritten(name, protocol, https, rtt, replacements);
        let report = trace::analyse_reader(trace.as_slice()).unwrap();
        let ours = trace::insight(&report, "NAVIGATION_0", "NetworkDependencyTree").unwrap();
        let path = dir().join(format!("preconnect/{expected}.txt"));
        let theirs = fs::read_to_string(path).unwrap();
        assert_eq!(scrub(&ours), theirs.trim_end(), "{expected}");
    }
}
