//! Unit tests of the network record (`record.rs`): documents, raw headers, redirects, bounds.
use super::*;
use crate::cdp::Event;
use serde_json::json;

/// Feeds `log` the event `name` with `params`, as the page's session delivers it (the
/// page's main frame is `F`).
fn on(log: &mut Log, name: &str, params: Value) {
    let event = RawEvent {
        session: None,
        method: name.to_owned(),
        params,
    };
    log.on_event(&event, "F");
}

fn sent(log: &mut Log, id: &str, kind: &str) {
    on(
        log,
        RequestWillBeSentEvent::NAME,
        json!({"requestId": id, "loaderId": id, "frameId": "F", "type": kind, "timestamp": 1.0,
            "request": {"url": format!("http://h/{id}"), "method": "GET", "headers": {"Accept": "*/*"}}}),
    );
}

fn ids(log: &Log, preserved: bool) -> Vec<&str> {
    log.requests(preserved)
        .iter()
        .map(|r| r.cdp_id.as_str())
        .collect()
}

#[test]
fn a_navigation_starts_a_list_with_its_own_request() {
    let mut log = Log::default();
    sent(&mut log, "doc1", "Document");
    sent(&mut log, "img", "Image");
    sent(&mut log, "doc2", "Document");
    let nav = |log: &mut Log, loader: &str| {
        on(
            log,
            FrameNavigatedEvent::NAME,
            json!({"frame": {"id": "F", "loaderId": loader}}),
        )
    };
    nav(&mut log, "doc2");
    assert_eq!(ids(&log, false), vec!["doc2"]);
    assert_eq!(ids(&log, true), vec!["doc1", "img", "doc2"]);
    // An iframe's navigation changes nothing.
    on(
        &mut log,
        FrameNavigatedEvent::NAME,
        json!({"frame": {"id": "sub", "parentId": "F", "loaderId": "x"}}),
    );
    assert_eq!(ids(&log, false), vec!["doc2"]);
    // A document without a request of its own (about:blank) starts empty.
    nav(&mut log, "other");
    assert!(ids(&log, false).is_empty());
    nav(&mut log, "x");
    nav(&mut log, "y");
    assert!(ids(&log, true).is_empty());
    assert_eq!((log.count, log.bytes), (0, 0));
    assert!(log.by_cdp.is_empty());
}

#[test]
fn raw_headers_and_redirects() {
    let mut log = Log::default();
    // The raw request headers may come first.
    on(
        &mut log,
        RequestWillBeSentExtraInfoEvent::NAME,
        json!({"requestId": "r", "headers": {"Accept": "*/*", "Cookie": "a=1"}}),
    );
    sent(&mut log, "r", "Fetch");
    on(
        &mut log,
        RequestWillBeSentEvent::NAME,
        json!({"requestId": "r", "loaderId": "r", "type": "Fetch", "timestamp": 2.0,
            "request": {"url": "http://h/next", "method": "GET", "headers": {}},
            "redirectResponse": {"status": 302, "headers": {"Location": "/next"}}}),
    );
    on(
        &mut log,
        ResponseReceivedExtraInfoEvent::NAME,
        json!({"requestId": "r", "statusCode": 304, "headers": {"ETag": "x"}}),
    );
    on(
        &mut log,
        ResponseReceivedEvent::NAME,
        json!({"requestId": "r", "type": "Fetch", "timestamp": 3.0,
            "response": {"status": 200, "headers": {"Content-Type": "text/plain"}, "mimeType": "text/plain"}}),
    );
    let first = log
        .find(1)
        .map(|r| (r.status(), r.redirected, r.headers.clone()));
    assert_eq!(
        first,
        Some((
            "302".to_owned(),
            true,
            vec![
                ("accept".to_owned(), "*/*".to_owned()),
                ("cookie".to_owned(), "a=1".to_owned())
            ]
        ))
    );
    let second = log.find(2).map(|r| (r.status(), r.redirected_from.clone()));
    assert_eq!(second, Some(("304".to_owned(), vec![1])));
    let headers = log
        .find(2)
        .and_then(|r| r.response.as_ref())
        .map(|a| a.headers.clone());
    assert_eq!(headers, Some(vec![("etag".to_owned(), "x".to_owned())]));
    on(
        &mut log,
        LoadingFailedEvent::NAME,
        json!({"requestId": "r", "timestamp": 4.0, "errorText": "net::ERR_ABORTED"}),
    );
    assert_eq!(
        log.find(2).and_then(|r| r.failure.clone()).as_deref(),
        Some("net::ERR_ABORTED")
    );
}

#[test]
fn a_hops_answer_that_comes_after_the_next_hops_is_still_the_hops() {
    let mut log = Log::default();
    sent(&mut log, "r", "Fetch");
    // Both raw answers come before the event that ends the first hop (seen with the
    // network service in the browser process).
    for (status, location) in [(302, "/next"), (200, "")] {
        on(
            &mut log,
            ResponseReceivedExtraInfoEvent::NAME,
            json!({"requestId": "r", "statusCode": status, "headers": {"Location": location}}),
        );
    }
    on(
        &mut log,
        RequestWillBeSentEvent::NAME,
        json!({"requestId": "r", "loaderId": "r", "type": "Fetch", "timestamp": 2.0,
            "request": {"url": "http://h/next", "method": "GET", "headers": {}},
            "redirectResponse": {"status": 302, "headers": {"Location": "/next"}}}),
    );
    on(
        &mut log,
        ResponseReceivedEvent::NAME,
        json!({"requestId": "r", "type": "Fetch", "timestamp": 3.0,
            "response": {"status": 200, "headers": {}, "mimeType": "text/plain"}}),
    );
    let statuses: Vec<_> = [1, 2]
        .iter()
        .filter_map(|id| log.find(*id).map(|r| r.status()))
        .collect();
    assert_eq!(statuses, ["302", "200"]);
}

#[test]
fn the_record_stays_bounded() {
    let mut log = Log::default();
    for i in 0..(MAX_REQUESTS + 10) {
        sent(&mut log, &format!("r{i}"), "Fetch");
    }
    assert_eq!(log.count, MAX_REQUESTS);
    assert_eq!(log.requests(false)[0].id, 11);
    assert_eq!(log.by_cdp.len(), MAX_REQUESTS);
    let big = "y".repeat(MAX_TEXT * 2);
    for i in 0..1000 {
        on(
            &mut log,
            RequestWillBeSentEvent::NAME,
            json!({"requestId": format!("b{i}"), "timestamp": 1.0,
                "request": {"url": format!("http://h/{big}"), "method": "GET", "headers": {"X": big}}}),
        );
    }
    assert!(log.bytes <= MAX_BYTES, "{}", log.bytes);
    assert!(log
        .requests(false)
        .iter()
        .all(|r| r.url.len() < MAX_TEXT + 100));
    for i in 0..(MAX_EARLY_EXTRAS * 3) {
        on(
            &mut log,
            ResponseReceivedExtraInfoEvent::NAME,
            json!({"requestId": format!("never{i}"), "headers": {}}),
        );
    }
    assert!(log.early.len() <= MAX_EARLY_EXTRAS);
}
