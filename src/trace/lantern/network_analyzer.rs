//! Lantern's NetworkAnalyzer: the round-trip time, server response time and throughput the
//! observed requests imply, per origin. With DevTools' "provided" throttling these are
//! the network the simulation runs on.

use std::collections::HashMap;

use super::requests::Net;

/// TCP's initial congestion window, in bytes (10 segments).
const INITIAL_CWD: f64 = 14.0 * 1024.0;

/// The network the requests were observed on (times in ms, throughput in bits/s).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Analysis {
    pub(super) rtt: f64,
    pub(super) throughput: f64,
    pub(super) additional_rtt: HashMap<String, f64>,
    pub(super) server_response_time: HashMap<String, f64>,
}

/// Lantern's `NetworkAnalyzer.analyze`; None without a request that measures throughput.
pub(super) fn analyze(requests: &[Net]) -> Option<Analysis> {
    let throughput = throughput(requests)?;
    let rtt_by_origin = minimum_rtt_by_origin(requests);
    // Without any round-trip estimate Lantern's RTT is not a number and it simulates nothing.
    let rtt = rtt_by_origin.get(SUMMARY).copied()?;
    let responses = response_times_by_origin(requests, &rtt_by_origin);
    let mut additional_rtt = HashMap::new();
    let mut server_response_time = HashMap::new();
    for (origin, estimates) in &responses {
        let own = rtt_by_origin.get(origin).copied().filter(|r| *r != 0.0);
        additional_rtt.insert(origin.clone(), own.unwrap_or(rtt) - rtt);
        server_response_time.insert(origin.clone(), median(estimates));
    }
    for (origin, own) in &rtt_by_origin {
        additional_rtt
            .entry(origin.clone())
            .or_insert_with(|| own - rtt);
    }
    Some(Analysis {
        rtt,
        throughput,
        additional_rtt,
        server_response_time,
    })
}

/// The key Lantern files its estimates over all origins under.
const SUMMARY: &str = "__SUMMARY__";

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => f64::NAN,
        _ if n.is_multiple_of(2) => (v[(n - 1) / 2] + v[(n - 1) / 2 + 1]) / 2.0,
        _ => v[(n - 1) / 2],
    }
}

/// Origins in the order their first request appears (Lantern's map order).
fn by_origin<'a, 'b>(requests: &'b [Net<'a>]) -> Vec<(&'b str, Vec<&'b Net<'a>>)> {
    let mut out: Vec<(&str, Vec<&Net>)> = Vec::new();
    for r in requests {
        if r.origin.starts_with("chrome-extension:") {
            continue;
        }
        match out.iter_mut().find(|(o, _)| *o == r.origin) {
            Some((_, list)) => list.push(r),
            None => out.push((&r.origin, vec![r])),
        }
    }
    out
}

/// Whether each request reused a connection: the trace's word when it can be trusted
/// (several connections, each of them opened by one of the requests), else a guess.
pub(super) fn connection_reused(requests: &[Net], force_coarse: bool) -> HashMap<String, bool> {
    if !force_coarse && can_trust_connections(requests) {
        return requests
            .iter()
            .map(|r| (r.id.clone(), r.request.connection_reused))
            .collect();
    }
    let mut out = HashMap::new();
    for (_, list) in by_origin(requests) {
        let earliest_reuse = list.iter().map(|r| r.end).fold(f64::INFINITY, f64::min);
        for r in &list {
            out.insert(
                r.id.clone(),
                r.request_time >= earliest_reuse || r.is_multiplexed(),
            );
        }
        let mut first = list[0];
        for r in &list[1..] {
            if first.request_time > r.request_time {
                first = r;
            }
        }
        out.insert(first.id.clone(), false);
    }
    out
}

fn can_trust_connections(requests: &[Net]) -> bool {
    let mut started: Vec<(f64, bool)> = Vec::new();
    for r in requests {
        let opened = !r.request.connection_reused;
        match started
            .iter_mut()
            .find(|(id, _)| *id == r.request.connection_id)
        {
            Some((_, s)) => *s = *s || opened,
            None => started.push((r.request.connection_id, opened)),
        }
    }
    started.len() > 1 && started.iter().all(|(_, s)| *s)
}

/// One request's round-trip estimates, each from one way of reading its timing.
type Estimator = fn(&Net, bool) -> Vec<f64>;

fn rtt_from_connection(r: &Net, reused: bool) -> Vec<f64> {
    let Some(t) = r.timing.filter(|_| !reused) else {
        return Vec::new();
    };
    if t.connect_end >= 0.0 && t.connect_start >= 0.0 && r.protocol().starts_with("h3") {
        return vec![t.connect_end - t.connect_start];
    }
    if t.ssl_start >= 0.0 && t.ssl_end >= 0.0 && t.ssl_start != t.connect_start {
        return vec![t.connect_end - t.ssl_start, t.ssl_start - t.connect_start];
    }
    if t.connect_start >= 0.0 && t.connect_end >= 0.0 {
        return vec![t.connect_end - t.connect_start];
    }
    Vec::new()
}

fn rtt_from_download(r: &Net, reused: bool) -> Vec<f64> {
    let Some(t) = r.timing.filter(|_| !reused) else {
        return Vec::new();
    };
    if r.transfer_size <= INITIAL_CWD
        || !t.receive_headers_end.is_finite()
        || t.receive_headers_end < 0.0
    {
        return Vec::new();
    }
    let after_first_byte = r.end - r.request_time - t.receive_headers_end;
    let round_trips = (r.transfer_size / INITIAL_CWD).log2();
    if round_trips > 5.0 {
        return Vec::new();
    }
    vec![after_first_byte / round_trips]
}

fn rtt_from_send_start(r: &Net, reused: bool) -> Vec<f64> {
    let Some(t) = r.timing.filter(|_| !reused) else {
        return Vec::new();
    };
    if !t.send_start.is_finite() || t.send_start < 0.0 {
        return Vec::new();
    }
    let mut round_trips = 1.0;
    if !r.protocol().starts_with("h3") {
        round_trips += 1.0;
    }
    if r.scheme == "https" {
        round_trips += 1.0;
    }
    vec![t.send_start / round_trips]
}

fn rtt_from_headers_end(r: &Net, reused: bool) -> Vec<f64> {
    let Some(t) = r.timing else { return Vec::new() };
    if !t.receive_headers_end.is_finite() || t.receive_headers_end < 0.0 {
        return Vec::new();
    }
    let Some(kind) = r.resource_type else {
        return Vec::new();
    };
    let share = match kind {
        "Document" | "XHR" | "Fetch" => 0.9,
        _ => 0.4,
    };
    let server = t.receive_headers_end * share;
    let mut round_trips = 1.0;
    if !reused {
        round_trips += 1.0;
        if !r.protocol().starts_with("h3") {
            round_trips += 1.0;
        }
        if r.scheme == "https" {
            round_trips += 1.0;
        }
    }
    vec![((t.receive_headers_end - server) / round_trips).max(3.0)]
}

/// Each origin's smallest round-trip estimate, and the smallest of all under `SUMMARY`.
fn minimum_rtt_by_origin(requests: &[Net]) -> HashMap<String, f64> {
    let reused = connection_reused(requests, false);
    let mut out = HashMap::new();
    let mut all = f64::INFINITY;
    for (origin, list) in by_origin(requests) {
        let collect = |estimator: Estimator, multiplier: f64| -> Vec<f64> {
            list.iter()
                .filter(|r| r.timing.is_some() && r.transfer_size != 0.0)
                .flat_map(|r| estimator(r, reused.get(&r.id).copied().unwrap_or(false)))
                .map(|e| e * multiplier)
                .collect()
        };
        let mut estimates = collect(rtt_from_connection, 1.0);
        if estimates.is_empty() {
            // Coarse estimates count for less than a measured handshake.
            estimates.extend(collect(rtt_from_download, 0.3));
            estimates.extend(collect(rtt_from_send_start, 0.3));
            estimates.extend(collect(rtt_from_headers_end, 0.3));
        }
        if let Some(min) = estimates.iter().copied().reduce(f64::min) {
            all = all.min(min);
            out.insert(origin.to_owned(), min);
        }
    }
    if all.is_finite() {
        out.insert(SUMMARY.to_owned(), all);
    }
    out
}

/// Each origin's server response time estimates (and all of them under `SUMMARY`).
fn response_times_by_origin(
    requests: &[Net],
    rtt_by_origin: &HashMap<String, f64>,
) -> Vec<(String, Vec<f64>)> {
    let mut out: Vec<(String, Vec<f64>)> = Vec::new();
    let mut all = Vec::new();
    for (origin, list) in by_origin(requests) {
        let rtt = rtt_by_origin
            .get(origin)
            .copied()
            .filter(|r| *r != 0.0)
            .or_else(|| rtt_by_origin.get(SUMMARY).copied())
            .unwrap_or(0.0);
        let estimates: Vec<f64> = list
            .iter()
            .filter_map(|r| r.timing)
            .filter(|t| t.receive_headers_end.is_finite() && t.receive_headers_end >= 0.0)
            .filter(|t| t.send_end.is_finite() && t.send_end >= 0.0)
            .map(|t| (t.receive_headers_end - t.send_end - rtt).max(0.0))
            .collect();
        if !estimates.is_empty() {
            all.extend(estimates.iter().copied());
            out.push((origin.to_owned(), estimates));
        }
    }
    out.push((SUMMARY.to_owned(), all));
    out
}

/// Bits per second while at least one response was downloading; None when nothing was.
fn throughput(requests: &[Net]) -> Option<f64> {
    let mut bytes = 0.0;
    let mut bounds: Vec<(f64, bool)> = Vec::new();
    for r in requests {
        let skip = r.scheme == "data"
            || r.disk_cached()
            || r.memory_cached()
            || r.request.failed
            || !r.request.finished
            || r.status > 300
            || r.transfer_size == 0.0;
        if skip {
            continue;
        }
        bytes += r.transfer_size;
        bounds.push((r.headers_end / 1000.0, true));
        bounds.push((r.end / 1000.0, false));
    }
    // Stable, as Lantern's sort: a start and an end at one time keep their order.
    bounds.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut inflight, mut start, mut total) = (0, 0.0, 0.0);
    for (time, is_start) in bounds {
        if is_start {
            if inflight == 0 {
                start = time;
            }
            inflight += 1;
        } else {
            inflight -= 1;
            if inflight == 0 {
                total += time - start;
            }
        }
    }
    (total != 0.0).then(|| bytes * 8.0 / total)
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn median_averages_the_middle_pair() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
