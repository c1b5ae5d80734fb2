//! `--blockedUrlPattern` / `--allowedUrlPattern`: which URLs a navigation may go to, and the
//! rules that make the browser refuse the requests themselves (as the reference's Puppeteer
//! does: one `Network.emulateNetworkConditionsByRule` list per page, offline for what is
//! refused).
//!
//! Patterns use URLPattern's constructor-string syntax without groups: the reference refuses
//! regexp and named groups (Chrome cannot enforce them on redirects and subresources), which
//! leaves literal text and `*` wildcards per URL component. That subset is matched here, so a
//! navigation is refused with the reference's message before it starts, while the browser
//! matches the same patterns with its own URLPattern for every request.

use url::Url;

use crate::cdp::generated::network::NetworkConditions;
use crate::settings::UrlRules;

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Text(char),
    Any,
}

/// One component's pattern: text and `*` wildcards.
#[derive(Debug, Clone, PartialEq)]
struct Component(Vec<Token>);

impl Component {
    fn any() -> Component {
        Component(vec![Token::Any])
    }

    fn parse(text: &str, lowercase: bool) -> Component {
        let mut tokens = Vec::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => tokens.extend(chars.next().map(Token::Text)),
                '*' => tokens.push(Token::Any),
                // A group without a modifier matches its contents.
                '{' | '}' => {}
                c if lowercase => tokens.push(Token::Text(c.to_ascii_lowercase())),
                c => tokens.push(Token::Text(c)),
            }
        }
        Component(tokens)
    }

    fn matches(&self, text: &str) -> bool {
        let text: Vec<char> = text.chars().collect();
        // Wildcard matching with one backtrack point (the last `*`): linear enough for URLs.
        let (mut p, mut t) = (0, 0);
        let mut star: Option<(usize, usize)> = None;
        while t < text.len() {
            match self.0.get(p) {
                Some(Token::Any) => {
                    star = Some((p, t));
                    p += 1;
                }
                Some(Token::Text(c)) if *c == text[t] => {
                    p += 1;
                    t += 1;
                }
                _ => match star {
                    Some((sp, st)) => {
                        p = sp + 1;
                        t = st + 1;
                        star = Some((sp, st + 1));
                    }
                    None => return false,
                },
            }
        }
        self.0[p..].iter().all(|tok| *tok == Token::Any)
    }
}

/// A URL split into the components URLPattern matches.
#[derive(Debug, Clone, Default, PartialEq)]
struct Parts<T> {
    protocol: T,
    username: T,
    password: T,
    hostname: T,
    port: T,
    pathname: T,
    search: T,
    hash: T,
}

/// Splits a pattern, written like a URL, into its components; `None` for a part the text does
/// not have. (URLs themselves are parsed by the `url` crate.)
fn split(text: &str) -> Option<Parts<Option<&str>>> {
    let (protocol, rest) = text.split_once(':')?;
    if protocol.is_empty() || protocol.contains(['/', '?', '#']) {
        return None;
    }
    let mut parts = Parts {
        protocol: Some(protocol),
        ..Default::default()
    };
    let (before_hash, hash) = match rest.split_once('#') {
        Some((b, h)) => (b, Some(h)),
        None => (rest, None),
    };
    let (before_search, search) = match before_hash.split_once('?') {
        Some((b, s)) => (b, Some(s)),
        None => (before_hash, None),
    };
    parts.hash = hash;
    parts.search = search;
    let Some(after_slashes) = before_search.strip_prefix("//") else {
        parts.pathname = Some(before_search);
        return Some(parts);
    };
    let (authority, path) = match after_slashes.find('/') {
        Some(i) => after_slashes.split_at(i),
        None => (after_slashes, ""),
    };
    parts.pathname = (!path.is_empty()).then_some(path);
    let host_port = match authority.rsplit_once('@') {
        Some((user_info, host_port)) => {
            let (user, pass) = match user_info.split_once(':') {
                Some((u, p)) => (u, Some(p)),
                None => (user_info, None),
            };
            parts.username = Some(user);
            parts.password = pass;
            host_port
        }
        None => authority,
    };
    let (host, port) = match host_port.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((h, p)) => (&host_port[..h.len() + 2], p.strip_prefix(':')),
            None => (host_port, None),
        },
        None => match host_port.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (host_port, None),
        },
    };
    parts.hostname = Some(host);
    parts.port = Some(port.unwrap_or(""));
    Some(parts)
}

/// One `--blockedUrlPattern` / `--allowedUrlPattern` value.
#[derive(Debug, Clone)]
pub(crate) struct Pattern {
    parts: Parts<Component>,
}

impl Pattern {
    /// Parses `raw`, refusing what the reference refuses (with its words, naming `flag`).
    pub(crate) fn parse(raw: &str, flag: &str) -> Result<Pattern, String> {
        let refuse = |why: &str| format!("Invalid {flag} \"{raw}\": {why}");
        if has_partial_ipv4_hostname(raw) {
            return Err(refuse("a partial IPv4 wildcard is not enforced on redirects or subresources. Use an exact IPv4 address or a \"*\" wildcard instead."));
        }
        let unescaped = unescaped(raw);
        if unescaped.contains('(') {
            return Err(refuse("a regexp group is not enforced on redirects or subresources. Use an exact value or a \"*\" wildcard instead."));
        }
        let split = split(raw).ok_or_else(|| {
            refuse("not a URL pattern (write it as a URL, e.g. https://*.example.com/*)")
        })?;
        let components = [
            split.username,
            split.password,
            split.hostname,
            split.port,
            split.pathname,
            split.search,
            split.hash,
        ];
        if components.iter().flatten().any(|c| unescaped_has(c, ':')) {
            return Err(refuse("a \":name\" named group is not enforced on redirects or subresources. Use an exact value or a \"*\" wildcard instead."));
        }
        let component = |c: Option<&str>, lowercase| {
            c.map_or_else(Component::any, |c| Component::parse(c, lowercase))
        };
        Ok(Pattern {
            parts: Parts {
                protocol: component(split.protocol, true),
                username: component(split.username, false),
                password: component(split.password, false),
                hostname: component(split.hostname, true),
                port: component(split.port, false),
                pathname: component(split.pathname, false),
                search: component(split.search, false),
                hash: component(split.hash, false),
            },
        })
    }

    /// Whether `url` matches, as URLPattern's `test` would: against the components the URL
    /// standard gives (the `url` crate's parse: tabs and newlines dropped, backslashes read as
    /// slashes in special schemes, default ports and dot segments gone, case folded where the
    /// standard folds it), as the browser reads the URL it loads.
    pub(crate) fn test(&self, url: &str) -> bool {
        let Ok(u) = Url::parse(url) else {
            return false;
        };
        let port = u.port().map(|p| p.to_string()).unwrap_or_default();
        let p = &self.parts;
        p.protocol.matches(u.scheme())
            && p.username.matches(u.username())
            && p.password.matches(u.password().unwrap_or_default())
            && p.hostname
                .matches(&u.host_str().unwrap_or_default().to_ascii_lowercase())
            && p.port.matches(&port)
            && p.pathname.matches(u.path())
            && p.search.matches(u.query().unwrap_or_default())
            && p.hash.matches(u.fragment().unwrap_or_default())
    }
}

/// `text` without its escaped characters (`\x`), for finding syntax that is really there.
fn unescaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            chars.next();
        } else {
            out.push(c);
        }
    }
    out
}

fn unescaped_has(text: &str, c: char) -> bool {
    unescaped(text).contains(c)
}

/// A hostname wildcard over the numbers of an IPv4 address (`127.0.0.*`), which the browser
/// cannot enforce on redirects or subresources (the reference's check).
fn has_partial_ipv4_hostname(pattern: &str) -> bool {
    let Some(start) = pattern.find("://") else {
        return false;
    };
    let after = &pattern[start + 3..];
    let authority = &after[..after.find(['/', '?', '#']).unwrap_or(after.len())];
    let host_port = authority.rsplit('@').next().unwrap_or(authority);
    if host_port.starts_with('[') {
        return false;
    }
    let hostname = host_port.split(':').next().unwrap_or(host_port);
    if !hostname.contains('*') {
        return false;
    }
    let stripped: String = hostname
        .chars()
        .filter(|c| !matches!(c, '{' | '}' | '*' | '\\'))
        .collect();
    let last = stripped
        .trim_end_matches('.')
        .rsplit('.')
        .next()
        .unwrap_or("");
    let hex = last
        .strip_prefix("0x")
        .or_else(|| last.strip_prefix("0X"))
        .is_some_and(|h| h.chars().all(|c| c.is_ascii_hexdigit()));
    hex || (!last.is_empty() && last.chars().all(|c| c.is_ascii_digit()))
}

/// Checks every pattern of one flag.
pub(crate) fn validate(patterns: &[String], flag: &str) -> Result<(), String> {
    patterns
        .iter()
        .try_for_each(|p| Pattern::parse(p, flag).map(|_| ()))
}

/// Whether a navigation to `url` may start (Puppeteer's `isUrlAllowed`, which the reference
/// relies on): `about:blank` and empty URLs always may; a blocked match may not; with an allow
/// list, only a match may.
pub(crate) fn allowed(rules: &UrlRules, url: &str) -> bool {
    if rules.is_empty() || url.is_empty() || url == "about:blank" {
        return true;
    }
    let matches = |list: &[String], flag: &str| {
        list.iter()
            .filter_map(|p| Pattern::parse(p, flag).ok())
            .any(|p| p.test(url))
    };
    if matches(&rules.blocked, "--blockedUrlPattern") {
        return false;
    }
    rules.allowed.is_empty() || matches(&rules.allowed, "--allowedUrlPattern")
}

/// The reference's refusal of a navigation the rules forbid.
pub(crate) fn refused(url: &str) -> String {
    format!("Navigation to {url} is blocked by blocklist/allowlist rules")
}

fn condition(url_pattern: &str, offline: bool) -> NetworkConditions {
    NetworkConditions {
        url_pattern: url_pattern.to_owned(),
        offline: Some(offline),
        latency: 0.0,
        download_throughput: -1.0,
        upload_throughput: -1.0,
        ..Default::default()
    }
}

/// The network conditions that make the browser refuse what the rules forbid: blocked
/// patterns offline; with an allow list, its patterns untouched and everything else offline.
/// First match wins, so throttling (`emulate`) goes after these.
pub(crate) fn conditions(rules: &UrlRules) -> Vec<NetworkConditions> {
    let mut out: Vec<NetworkConditions> =
        rules.blocked.iter().map(|p| condition(p, true)).collect();
    if !rules.allowed.is_empty() {
        out.extend(rules.allowed.iter().map(|p| condition(p, false)));
        out.push(condition("", true));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test(pattern: &str, url: &str) -> bool {
        Pattern::parse(pattern, "--p").unwrap().test(url)
    }

    #[test]
    fn matches_as_urlpattern_does() {
        // Each case checked against Chromium's URLPattern.
        assert!(test(
            "https://example.com/foo",
            "https://example.com/foo?x=1"
        ));
        assert!(test("https://example.com/foo", "https://example.com/foo#h"));
        assert!(!test("https://example.com/foo", "https://example.com/foo/"));
        assert!(test("*://example.com/*", "http://example.com/a/b?c#d"));
        assert!(test("*://example.com", "http://example.com/x"));
        assert!(test("*://*.example.com/*", "http://a.example.com/x"));
        assert!(!test("*://*.example.com/*", "http://example.com/x"));
        assert!(test("http://127.0.0.1:*/*", "http://127.0.0.1:8080/x"));
        assert!(!test("http://127.0.0.1/*", "http://127.0.0.1:8080/x"));
        assert!(test(
            "*://*:*/blocked*",
            "http://127.0.0.1:8080/blocked.html"
        ));
        assert!(test("https://EXAMPLE.com/*", "https://example.com/x"));
        assert!(test("https://example.com/*", "https://example.com:443/x"));
        assert!(test("file:///*", "file:///etc/passwd"));
        assert!(test("*://*/*.png", "http://h/a/b.png"));
        assert!(!test("*://*/*.png", "http://h/a/b.pngx"));
    }

    #[test]
    fn urls_are_read_as_the_standard_reads_them() {
        // Where a naive split and the URL standard differ, the standard (the browser's
        // reading) decides, so a blocked URL cannot be walked around by its spelling. Each
        // case checked against Chromium's URLPattern.
        let blocked = "*://*:*/blocked*";
        for url in [
            "http:\\\\a\\blocked.html",
            "ht\ttp://a/blocked.html",
            "http://a/\nblocked.html",
            "HTTP://A/blocked.html",
            "http://a/x/../blocked.html",
            "http://user:pw@a/blocked.html",
            "http://[::1]:8080/blocked.html",
            "  http://a/blocked.html",
        ] {
            assert!(test(blocked, url), "{url:?}");
        }
        assert!(test("http://a/*", "http://evil@a/x"));
        assert!(!test("http://a/*", "http://a@evil/x"));
        assert!(test("http://*:9/*", "http://[0:0::1]:9/x"));
        assert!(test("http://a/%62*", "http://a/%62x"));
        assert!(!test("http://a/b*", "http://a/%62x"));
        assert!(test("http://a/*", "http://a:80/x"));
    }

    #[test]
    fn refuses_what_the_reference_refuses() {
        let err = |p: &str| Pattern::parse(p, "--blockedUrlPattern").unwrap_err();
        assert!(err("*://127.0.0.*/*").contains("partial IPv4 wildcard"));
        assert!(err("(127\\.\\d+\\.\\d+\\.\\d+)").contains("regexp group"));
        assert!(err("*://127.0.0.1::port/*").contains("named group"));
        assert!(err("*://h/:id").contains("named group"));
        assert!(err("nothing").starts_with("Invalid --blockedUrlPattern \"nothing\": "));
        assert!(Pattern::parse("*://h/a\\:b", "--p").is_ok());
        // Chromium's URLPattern refuses an IPv6 host's colons too ("Missing parameter name").
        assert!(err("http://[::1]:*/*").contains("named group"));
    }

    #[test]
    fn allow_and_block_lists() {
        let blocked = UrlRules {
            blocked: vec!["*://*/blocked*".into()],
            allowed: vec![],
        };
        assert!(!allowed(&blocked, "http://a/blocked.html"));
        assert!(allowed(&blocked, "http://a/ok.html"));
        assert!(allowed(&blocked, "about:blank"));
        let only = UrlRules {
            blocked: vec![],
            allowed: vec!["http://a/*".into()],
        };
        assert!(allowed(&only, "http://a/x"));
        assert!(!allowed(&only, "http://b/x"));
        assert_eq!(conditions(&only).len(), 2);
        assert_eq!(conditions(&only)[1].url_pattern, "");
    }
}
