//! A static + programmable HTTP/1.1 server for the pages the browser loads in tests.
//!
//! Why our own: the tests must drive a real browser against real sockets, and the project keeps
//! dev-dependencies at zero. Every connection gets its own thread and every response closes its
//! connection, so a deliberately slow route never holds up another request, and there is no
//! keep-alive state to get wrong.
//!
//! ```ignore
//! let fx = Fixtures::start();
//! let hello = fx.url("/pages/hello.html");
//! let inline = fx.page_url_with_html("<title>x</title><p>hi</p>");
//! fx.route("/slow", |_req| Response::text("late").delay(Duration::from_secs(5)));
//! let gate = fx.held_route("/held", Response::text("when the test says"));
//! fx.echo_route("/api/echo");
//! // ... drive the browser ...
//! let posted = fx.wait_for_request("/api/echo", Duration::from_secs(5));
//! assert_eq!(posted.body_text(), r#"{"a":1}"#);
//! gate.open();
//! ```

use std::collections::HashMap;
use std::io::BufReader;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::http::{header, read_request, write_response};

/// How long a connection may sit idle before its thread gives up. Browsers open speculative
/// connections that never carry a request; this bounds how long those threads live.
const IDLE_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// A programmable route: gets the parsed request, returns the response to send.
pub type Handler = Arc<dyn Fn(&Request) -> Response + Send + Sync + 'static>;

/// One request as the server received it. Every request (files, routes, 404s) is recorded, so
/// tests can assert what the browser actually sent.
#[derive(Clone, Debug)]
pub struct Request {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The request target exactly as sent, e.g. `/api/echo?x=1`.
    pub target: String,
    /// The target's path, percent-decoded, without the query string.
    pub path: String,
    /// The raw query string without the `?` (empty when absent).
    pub query: String,
    /// Header names lower-cased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The body (Content-Length or chunked), empty for bodiless requests.
    pub body: Vec<u8>,
}

impl Request {
    /// The first header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    /// The body as text (lossy UTF-8).
    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The request as JSON, the shape the echo route answers with.
    pub fn to_json(&self) -> Value {
        let headers: serde_json::Map<String, Value> = self
            .headers
            .iter()
            .map(|(n, v)| (n.clone(), Value::String(v.clone())))
            .collect();
        json!({
            "method": self.method,
            "path": self.path,
            "query": self.query,
            "headers": headers,
            "body": self.body_text(),
        })
    }
}

/// What a route answers. Build with the constructors and chain the modifiers:
/// `Response::html("<p>hi</p>").header("X-Test", "1").delay(Duration::from_millis(500))`.
#[derive(Clone, Debug)]
pub struct Response {
    /// HTTP status code.
    pub status: u16,
    /// Extra headers. `Content-Length` and `Connection: close` are always added by the server;
    /// `Cache-Control: no-store` is added unless a `Cache-Control` header is given here.
    pub headers: Vec<(String, String)>,
    /// The body bytes.
    pub body: Vec<u8>,
    /// Sleep this long before sending anything (only this connection's thread sleeps).
    pub delay: Duration,
}

impl Response {
    /// An empty response with this status.
    pub fn new(status: u16) -> Response {
        Response {
            status,
            headers: Vec::new(),
            body: Vec::new(),
            delay: Duration::ZERO,
        }
    }

    /// 200 with this body and content type.
    pub fn bytes(content_type: &str, body: impl Into<Vec<u8>>) -> Response {
        Response::new(200)
            .header("Content-Type", content_type)
            .body(body)
    }

    /// 200 `text/html; charset=utf-8`.
    pub fn html(body: impl Into<String>) -> Response {
        Response::bytes("text/html; charset=utf-8", body.into())
    }

    /// 200 `text/plain; charset=utf-8`.
    pub fn text(body: impl Into<String>) -> Response {
        Response::bytes("text/plain; charset=utf-8", body.into())
    }

    /// 200 `application/json`.
    pub fn json(value: &Value) -> Response {
        Response::bytes("application/json", value.to_string())
    }

    /// 302 to `location`.
    pub fn redirect(location: &str) -> Response {
        Response::new(302).header("Location", location)
    }

    /// 404 with a short plain-text body naming the path.
    pub fn not_found(path: &str) -> Response {
        Response::new(404)
            .header("Content-Type", "text/plain; charset=utf-8")
            .body(format!("404 Not Found: {path}"))
    }

    /// Replace the status code.
    pub fn status(mut self, status: u16) -> Response {
        self.status = status;
        self
    }

    /// Add a header (replacing one with the same name, case-insensitive).
    pub fn header(mut self, name: &str, value: &str) -> Response {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// Replace the body.
    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Response {
        self.body = body.into();
        self
    }

    /// Wait this long before answering, e.g. for timeout tests. Other connections are unaffected.
    pub fn delay(mut self, delay: Duration) -> Response {
        self.delay = delay;
        self
    }
}

/// What holds a [`Fixtures::held_route`]'s requests. Dropping it opens it too, so a test that
/// fails first leaves no connection thread waiting.
pub struct Gate {
    state: Arc<(Mutex<bool>, Condvar)>,
}

impl Gate {
    /// Lets the held requests (and every later one) through.
    pub fn open(&self) {
        let (open, opened) = &*self.state;
        *lock(open) = true;
        opened.notify_all();
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        self.open();
    }
}

struct Shared {
    root: PathBuf,
    routes: Mutex<HashMap<String, Handler>>,
    requests: Mutex<Vec<Request>>,
    request_arrived: Condvar,
    stopping: AtomicBool,
    inline_pages: AtomicUsize,
}

/// The fixture server. Dropping it stops accepting connections (requests already being answered
/// finish on their own threads).
pub struct Fixtures {
    addr: SocketAddr,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

impl Fixtures {
    /// Serve `tests/fixtures/` of this crate on 127.0.0.1 with an OS-chosen port.
    pub fn start() -> Fixtures {
        Fixtures::start_in(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures"
        )))
    }

    /// Serve files from `dir` on 127.0.0.1 with an OS-chosen port, in a background thread.
    /// Content-Type follows the extension (html, js, mjs, css, json, png, svg, txt, jpeg, gif,
    /// webp, ico, wasm; anything else is application/octet-stream); a missing file is a 404.
    /// Start a second instance when a test needs a second origin (e.g. a cross-origin iframe).
    pub fn start_in(dir: &Path) -> Fixtures {
        let listener = TcpListener::bind("127.0.0.1:0")
            .unwrap_or_else(|e| panic!("fixtures: cannot bind 127.0.0.1:0: {e}"));
        let addr = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("fixtures: no local address: {e}"));
        let shared = Arc::new(Shared {
            root: dir.to_path_buf(),
            routes: Mutex::new(HashMap::new()),
            requests: Mutex::new(Vec::new()),
            request_arrived: Condvar::new(),
            stopping: AtomicBool::new(false),
            inline_pages: AtomicUsize::new(0),
        });
        let acceptor_shared = shared.clone();
        let acceptor = thread::Builder::new()
            .name(format!("fixtures-accept-{}", addr.port()))
            .spawn(move || accept_loop(listener, acceptor_shared))
            .unwrap_or_else(|e| panic!("fixtures: cannot spawn acceptor: {e}"));
        Fixtures {
            addr,
            shared,
            acceptor: Some(acceptor),
        }
    }

    /// The port the server listens on.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.addr.port())
    }

    /// The full URL of `path` on this server: `url("/pages/hello.html")` →
    /// `http://127.0.0.1:<port>/pages/hello.html`. A missing leading slash is added.
    pub fn url(&self, path: &str) -> String {
        if path.starts_with('/') {
            format!("{}{}", self.origin(), path)
        } else {
            format!("{}/{}", self.origin(), path)
        }
    }

    /// Register (or replace) a route. `path` matches the request path exactly (query ignored);
    /// a path ending in `*` matches every path with that prefix (the longest prefix wins). Routes
    /// take precedence over files. The handler runs on the connection's own thread, so it may
    /// sleep (or use [`Response::delay`]) without blocking other requests.
    pub fn route<F>(&self, path: &str, handler: F)
    where
        F: Fn(&Request) -> Response + Send + Sync + 'static,
    {
        lock(&self.shared.routes).insert(path.to_string(), Arc::new(handler));
    }

    /// Register a route that always answers a clone of `response`.
    pub fn route_response(&self, path: &str, response: Response) {
        self.route(path, move |_| response.clone());
    }

    /// Register `html` at `path` and return its full URL (for tests that need a known path).
    pub fn route_html(&self, path: &str, html: &str) -> String {
        self.route_response(path, Response::html(html));
        self.url(path)
    }

    /// Register a route that holds each request until the test opens the returned [`Gate`],
    /// then answers a clone of `response`: a request kept waiting exactly as long as the test
    /// wants, whatever the machine's load.
    pub fn held_route(&self, path: &str, response: Response) -> Gate {
        let gate = Gate {
            state: Arc::new((Mutex::new(false), Condvar::new())),
        };
        let held = gate.state.clone();
        self.route(path, move |_| {
            let (open, opened) = &*held;
            let mut open = lock(open);
            while !*open {
                open = opened.wait(open).unwrap_or_else(|e| e.into_inner());
            }
            response.clone()
        });
        gate
    }

    /// Register an in-memory HTML page under a fresh `/inline/<n>.html` path and return its URL.
    pub fn page_url_with_html(&self, html: &str) -> String {
        let n = self.shared.inline_pages.fetch_add(1, Ordering::Relaxed);
        self.route_html(&format!("/inline/{n}.html"), html)
    }

    /// Register an echo route: any method, answers 200 `application/json` with
    /// `{method, path, query, headers, body}` of the request (headers as an object of lower-cased
    /// names, body as text) and `Access-Control-Allow-Origin: *`. Received requests are recorded
    /// like all others: read them back with [`Fixtures::requests_to`] /
    /// [`Fixtures::wait_for_request`]. Returns the route's URL.
    pub fn echo_route(&self, path: &str) -> String {
        self.route(path, |req| {
            Response::json(&req.to_json()).header("Access-Control-Allow-Origin", "*")
        });
        self.url(path)
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        lock(&self.shared.requests).clone()
    }

    /// The requests received so far whose path equals `path`.
    pub fn requests_to(&self, path: &str) -> Vec<Request> {
        lock(&self.shared.requests)
            .iter()
            .filter(|r| r.path == path)
            .cloned()
            .collect()
    }

    /// Forget the recorded requests.
    pub fn clear_requests(&self) {
        lock(&self.shared.requests).clear();
    }

    /// Wait until a request for `path` has been received (one recorded earlier counts) and return
    /// the first such request. Panics after `timeout`, listing the paths that did arrive.
    pub fn wait_for_request(&self, path: &str, timeout: Duration) -> Request {
        let deadline = Instant::now() + timeout;
        let mut requests = lock(&self.shared.requests);
        loop {
            if let Some(found) = requests.iter().find(|r| r.path == path) {
                return found.clone();
            }
            let now = Instant::now();
            if now >= deadline {
                let seen: Vec<String> = requests
                    .iter()
                    .map(|r| format!("{} {}", r.method, r.target))
                    .collect();
                panic!("fixtures: no request for {path} within {timeout:?}; received: {seen:?}");
            }
            requests = match self
                .shared
                .request_arrived
                .wait_timeout(requests, deadline - now)
            {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}

impl Drop for Fixtures {
    fn drop(&mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        // The acceptor is blocked in accept(); one connection wakes it up to see the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

/// Lock a mutex, ignoring poisoning: a panicking handler must not hide the test's real failure.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.stopping.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        let shared = shared.clone();
        // One thread per connection: a delayed response only ever delays itself.
        let _ = thread::Builder::new()
            .name("fixtures-conn".to_string())
            .spawn(move || serve_connection(stream, &shared));
    }
}

fn serve_connection(stream: TcpStream, shared: &Shared) {
    let _ = stream.set_read_timeout(Some(IDLE_READ_TIMEOUT));
    let _ = stream.set_nodelay(true);
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    let request = match read_request(&mut reader, &mut writer) {
        Ok(Some(request)) => request,
        Ok(None) => return, // connection opened and closed without a request
        Err(_) => {
            let _ = write_response(&mut writer, &Response::new(400), false);
            return;
        }
    };
    {
        lock(&shared.requests).push(request.clone());
        shared.request_arrived.notify_all();
    }
    let response = dispatch(shared, &request);
    if !response.delay.is_zero() {
        thread::sleep(response.delay);
    }
    let _ = write_response(&mut writer, &response, request.method == "HEAD");
}

fn dispatch(shared: &Shared, request: &Request) -> Response {
    let handler = {
        let routes = lock(&shared.routes);
        routes.get(&request.path).cloned().or_else(|| {
            routes
                .iter()
                .filter_map(|(pattern, h)| {
                    let prefix = pattern.strip_suffix('*')?;
                    request
                        .path
                        .starts_with(prefix)
                        .then_some((prefix.len(), h))
                })
                .max_by_key(|(len, _)| *len)
                .map(|(_, h)| h.clone())
        })
    };
    if let Some(handler) = handler {
        return handler(request);
    }
    if request.method == "OPTIONS" {
        // CORS preflight for cross-origin fetches in network tests.
        return Response::new(204)
            .header("Access-Control-Allow-Origin", "*")
            .header(
                "Access-Control-Allow-Methods",
                "GET, POST, PUT, PATCH, DELETE, OPTIONS",
            )
            .header("Access-Control-Allow-Headers", "*");
    }
    if request.method != "GET" && request.method != "HEAD" {
        return Response::new(405).header("Allow", "GET, HEAD");
    }
    serve_file(&shared.root, &request.path)
}

fn serve_file(root: &Path, path: &str) -> Response {
    let relative = path.trim_start_matches('/');
    let safe = !relative.is_empty()
        && relative
            .split('/')
            .all(|seg| !seg.is_empty() && seg != "." && seg != ".." && !seg.contains('\\'));
    if !safe {
        return Response::not_found(path);
    }
    let full = root.join(relative);
    if !full.is_file() {
        return Response::not_found(path);
    }
    match std::fs::read(&full) {
        Ok(bytes) => Response::bytes(content_type_for(&full), bytes),
        Err(_) => Response::not_found(path),
    }
}

/// The Content-Type for a file, by extension.
pub fn content_type_for(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        "txt" => "text/plain; charset=utf-8",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "wasm" => "application/wasm",
        _ => "application/octet-stream",
    }
}
