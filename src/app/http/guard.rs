//! Who may talk to the HTTP server: a `Host` header that names the bound address or a loopback
//! name (a page on another site that rebinds its DNS name to 127.0.0.1 sends its own name), no
//! `Origin` but a loopback one (a page in a browser on this machine sends its own), and, when
//! `DEVTOOLS_MCP_TOKEN` is set, `Authorization: Bearer <token>`. And which paths exist.

use std::net::{IpAddr, SocketAddr};

use super::request::Request;
use crate::mcp::http::rules::agent_name_ok;

/// What the server checks every request against.
pub(super) struct Guard {
    pub bound: SocketAddr,
    pub token: Option<String>,
}

/// A refusal: the status and what the client reads.
pub(super) type Refusal = (u16, &'static str);

impl Guard {
    /// Refuses a request from where it must not come, or without the token.
    pub(super) fn check(&self, request: &Request) -> Result<(), Refusal> {
        match request.host.as_deref() {
            None => return Err((400, "Bad Request: a Host header is required")),
            Some(host) if !self.host_ok(host) => {
                return Err((
                    403,
                    "Forbidden: the Host header names neither this server nor a loopback name",
                ))
            }
            Some(_) => {}
        }
        if request
            .origin
            .as_deref()
            .is_some_and(|o| !loopback_origin(o))
        {
            return Err((
                403,
                "Forbidden: requests from a non-loopback Origin are refused",
            ));
        }
        if let Some(token) = &self.token {
            let given = request.authorization.as_deref().and_then(bearer);
            if !given.is_some_and(|g| same(g.as_bytes(), token.as_bytes())) {
                return Err((
                    401,
                    "Unauthorized: send Authorization: Bearer <DEVTOOLS_MCP_TOKEN>",
                ));
            }
        }
        Ok(())
    }

    fn host_ok(&self, host: &str) -> bool {
        let name = host_name(host);
        // Bound to every address, with a token (required then): clients name the machine as
        // they reach it, and a rebinding page cannot send the token.
        if self.bound.ip().is_unspecified() && self.token.is_some() {
            return true;
        }
        loopback_name(name) || name.parse::<IpAddr>().is_ok_and(|ip| ip == self.bound.ip())
    }
}

/// `host[:port]` or `[v6][:port]` without the port (and the brackets).
fn host_name(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or_default();
    }
    host.rsplit_once(':').map_or(host, |(name, _)| name)
}

fn loopback_name(name: &str) -> bool {
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn loopback_origin(origin: &str) -> bool {
    let rest = (origin.strip_prefix("http://")).or_else(|| origin.strip_prefix("https://"));
    rest.is_some_and(|host| !host.contains('/') && loopback_name(host_name(host)))
}

fn bearer(header: &str) -> Option<&str> {
    let (scheme, token) = header.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// Compares in time that depends on the lengths only, not on where the bytes differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

/// The agent a path names: `Ok(None)` for `/mcp`, `Ok(Some(name))` for `/mcp/<name>`; `Err`
/// for any other path (a query string is ignored).
pub(super) fn route(path: &str) -> Result<Option<&str>, ()> {
    let path = path.split('?').next().unwrap_or_default();
    match path.strip_prefix("/mcp") {
        Some("") | Some("/") => Ok(None),
        Some(rest) => match rest.strip_prefix('/') {
            Some(name) if agent_name_ok(name) => Ok(Some(name)),
            _ => Err(()),
        },
        None => Err(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(token: Option<&str>) -> Guard {
        Guard {
            bound: "127.0.0.1:8931".parse().unwrap(),
            token: token.map(str::to_owned),
        }
    }

    fn request(host: &str, origin: Option<&str>, auth: Option<&str>) -> Request {
        Request {
            host: Some(host.into()),
            origin: origin.map(str::to_owned),
            authorization: auth.map(str::to_owned),
            ..Request::default()
        }
    }

    #[test]
    fn hosts_and_origins() {
        let g = guard(None);
        assert!(g.check(&request("127.0.0.1:8931", None, None)).is_ok());
        assert!(g.check(&request("localhost:8931", None, None)).is_ok());
        assert!(g.check(&request("[::1]:8931", None, None)).is_ok());
        assert_eq!(
            g.check(&request("evil.example:8931", None, None))
                .unwrap_err()
                .0,
            403
        );
        let local = Some("http://localhost:3000");
        assert!(g.check(&request("localhost", local, None)).is_ok());
        let far = Some("https://evil.example");
        assert_eq!(
            g.check(&request("localhost", far, None)).unwrap_err().0,
            403
        );
    }

    #[test]
    fn the_token() {
        let g = guard(Some("s3cret"));
        assert_eq!(
            g.check(&request("localhost", None, None)).unwrap_err().0,
            401
        );
        let wrong = Some("Bearer s3creT");
        assert_eq!(
            g.check(&request("localhost", None, wrong)).unwrap_err().0,
            401
        );
        assert!(g
            .check(&request("localhost", None, Some("Bearer s3cret")))
            .is_ok());
    }

    #[test]
    fn paths() {
        assert_eq!(route("/mcp"), Ok(None));
        assert_eq!(route("/mcp?x=1"), Ok(None));
        assert_eq!(route("/mcp/ci-1"), Ok(Some("ci-1")));
        assert!(route("/mcpx").is_err());
        assert!(route("/mcp/a/b").is_err());
        assert!(route("/").is_err());
    }
}
