//! One HTTP/1.1 request read off a connection's bytes with `httparse`, bounded: the head to
//! [`MAX_HEAD`] and [`MAX_HEADERS`] headers, the body to [`MAX_BODY`] and given by
//! `Content-Length` only. What cannot be read is a status to answer with before closing.

/// The longest request head (request line and headers).
pub(super) const MAX_HEAD: usize = 16 * 1024;
const MAX_HEADERS: usize = 48;
/// The largest request body: a JSON-RPC message with a large script fits.
pub(super) const MAX_BODY: usize = 16 << 20;

/// A request as the server reads it: the headers that matter, owned.
#[derive(Debug, Default)]
pub(super) struct Request {
    pub method: String,
    pub path: String,
    pub host: Option<String>,
    pub origin: Option<String>,
    pub authorization: Option<String>,
    pub accept: Option<String>,
    pub session: Option<String>,
    pub version: Option<String>,
    pub mcp_method: Option<String>,
    pub mcp_name: Option<String>,
    /// The client asked to close the connection after the answer (or spoke HTTP/1.0).
    pub close: bool,
    pub body: Vec<u8>,
}

/// What the bytes read so far hold.
#[derive(Debug)]
pub(super) enum Parsed {
    /// Not a whole request yet.
    Partial,
    /// A request, and how many bytes it took.
    Whole(Request, usize),
    /// A request that cannot be served: answer with this status and message, then close.
    Bad(u16, &'static str),
}

/// Reads one request from the start of `bytes`.
pub(super) fn parse(bytes: &[u8]) -> Parsed {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut headers);
    let head_len = match req.parse(bytes) {
        Ok(httparse::Status::Complete(n)) if n <= MAX_HEAD => n,
        Ok(httparse::Status::Complete(_)) => return too_large_head(),
        Ok(httparse::Status::Partial) if bytes.len() > MAX_HEAD => return too_large_head(),
        Ok(httparse::Status::Partial) => return Parsed::Partial,
        Err(httparse::Error::TooManyHeaders) => return too_large_head(),
        Err(_) => return Parsed::Bad(400, "Bad Request: not an HTTP/1.1 request"),
    };
    let mut out = Request {
        method: req.method.unwrap_or_default().to_owned(),
        path: req.path.unwrap_or_default().to_owned(),
        close: req.version == Some(0),
        ..Request::default()
    };
    let mut length: Option<usize> = None;
    for h in req.headers.iter() {
        let Ok(value) = std::str::from_utf8(h.value) else {
            return Parsed::Bad(400, "Bad Request: a header value is not UTF-8");
        };
        let value = value.trim();
        match h.name.to_ascii_lowercase().as_str() {
            "content-length" => match (value.parse::<usize>(), length) {
                (Ok(n), None) => length = Some(n),
                (Ok(n), Some(m)) if n == m => {}
                _ => return Parsed::Bad(400, "Bad Request: invalid Content-Length"),
            },
            "transfer-encoding" => {
                return Parsed::Bad(411, "Length Required: send the body with a Content-Length")
            }
            "connection" => out.close |= value.eq_ignore_ascii_case("close"),
            name => keep(&mut out, name, value),
        }
    }
    let length = length.unwrap_or(0);
    if length > MAX_BODY {
        return Parsed::Bad(413, "Content Too Large: the body is over 16 MiB");
    }
    let Some(body) = bytes.get(head_len..head_len + length) else {
        return Parsed::Partial;
    };
    out.body = body.to_vec();
    Parsed::Whole(out, head_len + length)
}

fn too_large_head() -> Parsed {
    Parsed::Bad(431, "Request Header Fields Too Large")
}

/// Keeps a header that matters (the first of each; a repeated one is the client's mistake).
fn keep(out: &mut Request, name: &str, value: &str) {
    let slot = match name {
        "host" => &mut out.host,
        "origin" => &mut out.origin,
        "authorization" => &mut out.authorization,
        "accept" => &mut out.accept,
        "mcp-session-id" => &mut out.session,
        "mcp-protocol-version" => &mut out.version,
        "mcp-method" => &mut out.mcp_method,
        "mcp-name" => &mut out.mcp_name,
        _ => return,
    };
    if slot.is_none() {
        *slot = Some(value.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_request_and_its_length() {
        let raw = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nMcp-Session-Id: ab\r\n\r\n{}GET";
        let Parsed::Whole(r, n) = parse(raw) else {
            panic!("not whole");
        };
        assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/mcp"));
        assert_eq!(r.session.as_deref(), Some("ab"));
        assert_eq!(r.body, b"{}");
        assert_eq!(n, raw.len() - 3);
    }

    #[test]
    fn what_cannot_be_served_is_a_status() {
        assert!(matches!(
            parse(b"POST /mcp HTTP/1.1\r\nHost: x\r\n"),
            Parsed::Partial
        ));
        assert!(matches!(
            parse(b"\x00\x01garbage\r\n\r\n"),
            Parsed::Bad(400, _)
        ));
        let bad_length = b"POST /mcp HTTP/1.1\r\nContent-Length: -1\r\n\r\n";
        assert!(matches!(parse(bad_length), Parsed::Bad(400, _)));
        let two = b"POST /mcp HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n";
        assert!(matches!(parse(two), Parsed::Bad(400, _)));
        let huge = b"POST /mcp HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n";
        assert!(matches!(parse(huge), Parsed::Bad(413, _)));
        let chunked = b"POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
        assert!(matches!(parse(chunked), Parsed::Bad(411, _)));
        let mut long = b"GET /mcp HTTP/1.1\r\nX: ".to_vec();
        long.extend(std::iter::repeat_n(b'a', MAX_HEAD));
        assert!(matches!(parse(&long), Parsed::Bad(431, _)));
    }
}
