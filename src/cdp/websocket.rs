//! A browser reached over its DevTools websocket (`--browserUrl` / `--wsEndpoint`).
//!
//! The HTTP lookup and the websocket handshake run once, at connect time, on a blocking socket
//! with short timeouts (the browser is expected on a local address); after that the socket is
//! non-blocking and driven by the event loop like the pipe.

use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use tungstenite::client::IntoClientRequest;
use tungstenite::http::{HeaderName, HeaderValue};
use tungstenite::{protocol::WebSocketConfig, Message, WebSocket};

const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

pub(crate) struct WsConn {
    ws: WebSocket<mio::net::TcpStream>,
}

/// Asks a browser started with `--remote-debugging-port` for its websocket URL.
/// `headers` (`--wsHeaders`) go with the request: a browser behind a gateway may need them.
pub(crate) fn lookup_ws_url(
    browser_url: &str,
    headers: &[(String, String)],
) -> Result<String, String> {
    let rest = browser_url
        .strip_prefix("http://")
        .ok_or_else(|| format!("--browserUrl must start with http:// (got {browser_url})"))?;
    let host = rest.split('/').next().unwrap_or(rest);
    let mut stream = connect(host)?;
    let extra: String = headers
        .iter()
        .map(|(name, value)| format!("{name}: {value}\r\n"))
        .collect();
    let request =
        format!("GET /json/version HTTP/1.1\r\nHost: {host}\r\n{extra}Connection: close\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .map_err(|e| format!("cannot query {browser_url}/json/version: {e}"))?;
    // Chromium keeps the connection open after answering: read the head, then exactly
    // Content-Length bytes, rather than waiting for the end of the stream.
    let mut raw = Vec::new();
    let mut chunk = [0u8; 4096];
    let body = loop {
        let n = stream
            .read(&mut chunk)
            .map_err(|e| format!("cannot read {browser_url}/json/version: {e}"))?;
        raw.extend_from_slice(&chunk[..n]);
        if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok());
            let have = raw.len() - (end + 4);
            match length {
                Some(len) if have >= len => break raw[end + 4..end + 4 + len].to_vec(),
                None if n == 0 => break raw[end + 4..].to_vec(),
                _ => {}
            }
        }
        if n == 0 {
            return Err(format!(
                "{browser_url}/json/version: the answer ended early"
            ));
        }
    };
    let text = String::from_utf8_lossy(&body);
    let version: serde_json::Value = serde_json::from_str(text.trim())
        .map_err(|e| format!("{browser_url}/json/version did not answer JSON: {e}"))?;
    version["webSocketDebuggerUrl"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("{browser_url}/json/version has no webSocketDebuggerUrl"))
}

fn connect(host: &str) -> Result<TcpStream, String> {
    let addr = host
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {host}: {e}"))?
        .next()
        .ok_or_else(|| format!("cannot resolve {host}"))?;
    let stream = TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT)
        .map_err(|e| format!("cannot connect to {host}: {e}"))?;
    let _ = stream.set_read_timeout(Some(CONNECT_TIMEOUT));
    let _ = stream.set_write_timeout(Some(CONNECT_TIMEOUT));
    let _ = stream.set_nodelay(true);
    Ok(stream)
}

impl WsConn {
    /// `headers` (`--wsHeaders`) are added to the handshake request (a token for a browser
    /// farm, say).
    pub(crate) fn connect(ws_url: &str, headers: &[(String, String)]) -> Result<WsConn, String> {
        let rest = ws_url
            .strip_prefix("ws://")
            .ok_or_else(|| format!("--wsEndpoint must start with ws:// (got {ws_url})"))?;
        let host = rest.split('/').next().unwrap_or(rest);
        let stream = connect(host)?;
        let config = WebSocketConfig::default()
            .max_message_size(Some(256 << 20))
            .max_frame_size(Some(256 << 20));
        let mut request = ws_url
            .into_client_request()
            .map_err(|e| format!("{ws_url} is not a websocket URL: {e}"))?;
        for (name, value) in headers {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|e| format!("--wsHeaders: bad header name {name}: {e}"))?;
            let value = HeaderValue::from_str(value)
                .map_err(|e| format!("--wsHeaders: bad value for {name}: {e}"))?;
            request.headers_mut().insert(name, value);
        }
        let (ws, _) = tungstenite::client::client_with_config(request, stream, Some(config))
            .map_err(|e| format!("websocket handshake with {ws_url} failed: {e}"))?;
        let std_stream = ws.into_inner();
        std_stream
            .set_nonblocking(true)
            .map_err(|e| format!("cannot make the websocket non-blocking: {e}"))?;
        let stream = mio::net::TcpStream::from_std(std_stream);
        let ws =
            WebSocket::from_raw_socket(stream, tungstenite::protocol::Role::Client, Some(config));
        Ok(WsConn { ws })
    }

    pub(crate) fn socket(&mut self) -> &mut mio::net::TcpStream {
        self.ws.get_mut()
    }

    pub(crate) fn queue(&mut self, message: &[u8]) {
        let text = String::from_utf8_lossy(message).into_owned();
        match self.ws.write(Message::text(text)) {
            Ok(()) => {}
            Err(tungstenite::Error::Io(e)) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(_) => {} // surfaces on the next read or flush
        }
    }

    pub(crate) fn flush(&mut self) -> io::Result<bool> {
        match self.ws.flush() {
            Ok(()) => Ok(true),
            Err(tungstenite::Error::Io(e)) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
            Err(e) => Err(io::Error::other(e.to_string())),
        }
    }

    /// Reads until the socket would block. `Ok(false)` when the browser closed the connection.
    pub(crate) fn read(&mut self, mut on_message: impl FnMut(&[u8])) -> io::Result<bool> {
        loop {
            match self.ws.read() {
                Ok(Message::Text(t)) => on_message(t.as_bytes()),
                Ok(Message::Binary(b)) => on_message(&b),
                Ok(Message::Close(_)) => return Ok(false),
                Ok(_) => {}
                Err(tungstenite::Error::Io(e)) if e.kind() == io::ErrorKind::WouldBlock => {
                    return Ok(true)
                }
                Err(tungstenite::Error::ConnectionClosed | tungstenite::Error::AlreadyClosed) => {
                    return Ok(false)
                }
                Err(e) => return Err(io::Error::other(e.to_string())),
            }
        }
    }
}
