//! One network request written out in full, as DevTools' `PerformanceTraceFormatter`
//! writes it for an insight about a few requests (RenderBlocking, DocumentLatency):
//! timings from its frame's navigation, durations, initiators, redirects and the response
//! headers with the values DevTools does not allow redacted.

use super::format::micros;
use super::network::Request;
use super::report::Report;

/// Headers a cross-origin response may show at all (the CORS safelist).
const CORS_SAFELISTED: &[&str] = &[
    "cache-control",
    "content-language",
    "content-length",
    "content-type",
    "expires",
    "last-modified",
    "pragma",
];

/// DevTools caps the headers block at this many characters.
const MAX_HEADERS_SIZE: usize = 1000;

/// `scheme://host[:port]` of an http(s) URL, lowercased, default ports dropped (as
/// browsers compare origins); None for any other URL.
pub(super) fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit('@').next()?.to_ascii_lowercase();
    let host = match (scheme.as_str(), host.rsplit_once(':')) {
        ("http", Some((h, "80"))) | ("https", Some((h, "443"))) => h.to_owned(),
        _ => host,
    };
    (!host.is_empty()).then(|| format!("{scheme}://{host}"))
}

/// Whether the request (and its redirects) stayed on the trace's origin: only then does
/// DevTools show its redirects and all its headers.
fn same_origin(report: &Report, request: &Request) -> bool {
    let Some(trace) = origin(&report.url) else {
        return false;
    };
    let same = |url: &str| origin(url).is_some_and(|o| o == trace);
    request.redirects.iter().all(|r| same(&r.url)) && same(&request.url)
}

/// The URL DevTools prints for a request: a cross-origin redirect shows where it started.
pub(super) fn url(report: &Report, request: &Request) -> String {
    match request.redirects.first() {
        Some(first) if !same_origin(report, request) => {
            if first.url.is_empty() {
                "<redacted cross-origin redirect destination>".into()
            } else {
                first.url.clone()
            }
        }
        _ => request.url.clone(),
    }
}

/// `url (eventKey: s-N, ts: T)`, how insights name a request.
pub(super) fn url_with_key(report: &Report, request: &Request) -> String {
    format!(
        "{} (eventKey: {}, ts: {})",
        url(report, request),
        request.key(),
        super::format::js(request.ts)
    )
}

fn by_key(report: &Report, key: Option<u64>) -> Option<&Request> {
    let key = key?;
    report.requests.iter().find(|r| r.send.index == key)
}

/// The request that loaded this one (DevTools' `getNetworkInitiator`): the network
/// handler's initiator when that is a stylesheet; else, when the request was sent from a
/// task a script scheduled, the last earlier request for that script; else the network
/// handler's initiator.
pub(super) fn initiator<'a>(report: &'a Report, request: &Request) -> Option<&'a Request> {
    let named = by_key(report, request.initiated_by);
    if named.is_some_and(|r| r.mime_type == "text/css") {
        return named;
    }
    match report.async_stacks.scheduler_url(&request.send) {
        Some(script) => report
            .requests
            .iter()
            .rfind(|r| r.url == script && r.ts < request.ts),
        None => named,
    }
}

/// From the root request to the one that loaded `request` (empty on a cycle).
fn initiator_chain<'a>(report: &'a Report, request: &Request) -> Vec<&'a Request> {
    let mut chain: Vec<&Request> = Vec::new();
    let mut current = initiator(report, request);
    while let Some(found) = current {
        if chain.iter().any(|r| r.send.index == found.send.index) {
            return Vec::new();
        }
        chain.insert(0, found);
        current = initiator(report, found);
    }
    chain
}

/// The headers DevTools shows (all on the trace's origin, the CORS safelist elsewhere),
/// values it does not allow redacted.
fn shown_headers(request: &Request, same_origin: bool) -> impl Iterator<Item = (&str, &str)> {
    request.headers.iter().filter_map(move |(name, value)| {
        let lower = name.trim().to_ascii_lowercase();
        if !same_origin && !CORS_SAFELISTED.contains(&lower.as_str()) {
            return None;
        }
        let value = if crate::headers::shown(&lower) {
            value.as_str()
        } else {
            "<redacted>"
        };
        Some((name.as_str(), value))
    })
}

/// Times are printed from the navigation of the request's frame (the trace's start without one).
fn base_time(report: &Report, request: &Request) -> f64 {
    report
        .navigations
        .iter()
        .filter(|(frame, ts)| *frame == request.frame && *ts <= request.ts && !frame.is_empty())
        .map(|(_, ts)| *ts)
        .next_back()
        .or(report.bounds.map(|b| b.min))
        .unwrap_or(0.0)
}

fn headers(report: &Report, request: &Request) -> String {
    let mut out = String::new();
    for (name, value) in shown_headers(request, same_origin(report, request)) {
        let line = format!("- {name}: {value}\n");
        // DevTools counts UTF-16 units.
        if out.encode_utf16().count() + line.encode_utf16().count() > MAX_HEADERS_SIZE {
            break;
        }
        out.push_str(&line);
    }
    let out = out.trim();
    if out.is_empty() {
        String::new()
    } else {
        format!("Response headers\n{out}")
    }
}

/// The request in full under `## {title}: url`.
pub(super) fn verbose(report: &Report, request: &Request, title: &str) -> String {
    let base = base_time(report, request);
    let processing_done = request.end - base;
    let download_done = request.finish_time - base;
    let priority = if request.initial_priority == request.priority {
        format!("Priority: {}", request.priority)
    } else {
        format!(
            "Initial priority: {}\nFinal priority: {}",
            request.initial_priority, request.priority
        )
    };
    let redirects: Vec<String> = if same_origin(report, request) {
        request
            .redirects
            .iter()
            .enumerate()
            .map(|(i, r)| {
                format!(
                    "#### Redirect {}: {}\n- Start time: {}\n- Duration: {}",
                    i + 1,
                    r.url,
                    micros(r.ts - base),
                    micros(r.dur)
                )
            })
            .collect()
    } else {
        Vec::new()
    };
    let redirects = if redirects.is_empty() {
        " no redirects".to_owned()
    } else {
        format!("\n{}", redirects.join("\n"))
    };
    let initiator = initiator(report, request).map_or(String::new(), |i| {
        format!("\nInitiator: {}", url(report, i))
    });
    let chain: Vec<String> = initiator_chain(report, request)
        .into_iter()
        .map(|r| url(report, r))
        .collect();
    let chain = if chain.is_empty() {
        "none".to_owned()
    } else {
        chain.join(", ")
    };
    let yes = |b: bool| if b { "Yes" } else { "No" };
    format!(
        "## {title}: {}\neventKey: {}\nTimings:\n- Queued at: {}\n- Request sent at: {}\n- Download complete at: {}\n- Main thread processing completed at: {}\nDurations:\n- Download time: {}\n- Main thread processing time: {}\n- Total duration: {}{initiator}\nRedirects:{redirects}\nStatus code: {}\nMIME Type: {}\nProtocol: {}\n{priority}\nRender-blocking: {}\nFrom a service worker: {}\nInitiators (root request to the request that directly loaded this one): {chain}\n{}",
        url(report, request),
        request.key(),
        micros(request.ts - base),
        micros(request.send_start_time() - base),
        micros(download_done),
        micros(processing_done),
        micros(request.finish_time - request.download_start()),
        micros(processing_done - download_done),
        micros(request.dur()),
        request.status,
        request.mime_type,
        request.protocol,
        yes(request.is_render_blocking()),
        yes(request.from_service_worker),
        headers(report, request),
    )
}

/// DevTools' `formatNetworkRequests` without options: one request in full, several as
/// the compact lines the summary's format notes describe.
pub(super) fn requests(report: &Report, requests: &[&Request]) -> String {
    match requests {
        [] => String::new(),
        [one] => verbose(report, one, "Network request"),
        many => compressed(report, many),
    }
}

fn index_of(urls: &mut Vec<String>, url: String) -> usize {
    match urls.iter().position(|u| *u == url) {
        Some(i) => i,
        None => {
            urls.push(url);
            urls.len() - 1
        }
    }
}

fn compressed(report: &Report, requests: &[&Request]) -> String {
    let mut urls: Vec<String> = Vec::new();
    let lines: Vec<String> = requests
        .iter()
        .map(|r| {
            let index = index_of(&mut urls, url(report, r));
            compressed_line(report, r, index, &mut urls)
        })
        .collect();
    let all: Vec<String> = urls
        .iter()
        .enumerate()
        .map(|(i, u)| format!("{i}: {u}"))
        .collect();
    format!(
        "\nNetwork requests data:\n\n\n\nallUrls = [{}]\n\n{}",
        all.join(", "),
        lines.join("\n")
    )
}

fn compressed_line(report: &Report, r: &Request, index: usize, urls: &mut Vec<String>) -> String {
    let base = base_time(report, r);
    let safe = same_origin(report, r);
    let headers: Vec<String> = shown_headers(r, safe)
        .map(|(name, value)| format!("{name}: {value}"))
        .collect();
    let redirects: Vec<String> = if safe {
        r.redirects
            .iter()
            .map(|d| {
                let i = index_of(urls, d.url.clone());
                format!("[{i}|{}|{}]", micros(d.ts - base), micros(d.dur))
            })
            .collect()
    } else {
        Vec::new()
    };
    let initiators: Vec<String> = initiator_chain(report, r)
        .into_iter()
        .map(|i| index_of(urls, url(report, i)).to_string())
        .collect();
    let flag = |b: bool| if b { "t" } else { "f" };
    [
        index.to_string(),
        r.key(),
        micros(r.ts - base),
        micros(r.send_start_time() - base),
        micros(r.finish_time - base),
        micros(r.end - base),
        micros(r.dur()),
        micros(r.finish_time - r.download_start()),
        micros(r.end - r.finish_time),
        r.status.to_string(),
        r.mime_type.clone(),
        r.priority.clone(),
        r.initial_priority.clone(),
        r.priority.clone(),
        flag(r.is_render_blocking()).into(),
        r.protocol.clone(),
        flag(r.from_service_worker).into(),
        initiators.join(","),
        format!("[{}]", redirects.join(",")),
        format!("[{}]", headers.join("|")),
    ]
    .join(";")
}

#[cfg(test)]
mod tests {
    use super::origin;

    #[test]
    fn origins_compare_as_browsers_compare_them() {
        assert_eq!(
            origin("http://127.0.0.1:8080/a.css?x=1").as_deref(),
            Some("http://127.0.0.1:8080")
        );
        assert_eq!(
            origin("HTTPS://Example.com#top").as_deref(),
            Some("https://example.com")
        );
        assert_eq!(
            origin("HTTPS://Example.com:443/x").as_deref(),
            Some("https://example.com")
        );
        assert_eq!(origin("http://u@h:80").as_deref(), Some("http://h"));
        assert_eq!(origin("about:blank"), None);
        assert_eq!(origin("data:text/plain,x"), None);
        assert_eq!(origin("file:///tmp/a.html"), None);
    }
}
