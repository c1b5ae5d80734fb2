//! Who a URL belongs to, as DevTools decides it for ThirdParties: an entity of the
//! third-party-web dataset DevTools bundles (`entities.tsv`, name and domains only), else
//! one made up from the URL's root domain or IP address (the port does not count).

use std::collections::HashMap;

const DATASET: &str = include_str!("entities.tsv");

/// An entity: a known one (its name in the dataset) or one made up for a root domain.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Entity {
    Known(&'static str),
    Made(String),
}

impl Entity {
    pub(super) fn name(&self) -> &str {
        match self {
            Entity::Known(name) => name,
            Entity::Made(root) => root,
        }
    }
}

/// The dataset's lookups, built on first use.
pub(super) struct Entities {
    by_domain: HashMap<&'static str, &'static str>,
    by_subdomain: HashMap<String, &'static str>,
    by_root: HashMap<String, &'static str>,
    cache: HashMap<String, Option<Entity>>,
}

impl Entities {
    pub(super) fn new() -> Self {
        let mut e = Entities {
            by_domain: HashMap::new(),
            by_subdomain: HashMap::new(),
            by_root: HashMap::new(),
            cache: HashMap::new(),
        };
        for line in DATASET.lines().filter(|l| !l.starts_with('#')) {
            let Some((name, domains)) = line.split_once('\t') else {
                continue;
            };
            for domain in domains.split(' ') {
                e.by_domain.entry(domain).or_insert(name);
                let Some(wildcard) = domain.strip_prefix("*.") else {
                    continue;
                };
                let Some(root) = root_domain(domain) else {
                    continue;
                };
                if wildcard == root {
                    e.by_root.entry(root).or_insert(name);
                } else {
                    e.by_subdomain.entry(wildcard.to_owned()).or_insert(name);
                }
            }
        }
        e
    }

    /// The entity of a URL (DevTools' `getEntityForUrl`), cached by URL.
    pub(super) fn of(&mut self, url: &str) -> Option<Entity> {
        if let Some(known) = self.cache.get(url) {
            return known.clone();
        }
        let entity = self.known(url).map(Entity::Known).or_else(|| {
            let root = url.starts_with("http").then(|| root_domain(url))??;
            Some(Entity::Made(root))
        });
        self.cache.insert(url.to_owned(), entity.clone());
        entity
    }

    fn known(&self, url: &str) -> Option<&'static str> {
        let (root, domain) = domains(url)?;
        if let Some(name) = self.by_domain.get(domain.as_str()) {
            return Some(name);
        }
        let mut sub = domain.as_str();
        while sub.len() > root.len() {
            if let Some(name) = self.by_subdomain.get(sub) {
                return Some(name);
            }
            sub = sub.split_once('.').map_or("", |(_, rest)| rest);
        }
        self.by_root.get(&root).copied()
    }
}

fn root_domain(url: &str) -> Option<String> {
    domains(url).map(|(root, _)| root)
}

/// third-party-web's `parseDomains`: (root domain, domain) of a URL or origin.
fn domains(url: &str) -> Option<(String, String)> {
    if url.len() > 10_000 || url.starts_with("data:") {
        return None;
    }
    let domain = domain_characters(url).or_else(|| host(url))?;
    let is_ip = domain.split('.').count() == 4
        && domain
            .split('.')
            .all(|p| (1..=3).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()));
    if is_ip {
        return Some((domain.to_owned(), domain.to_owned()));
    }
    Some((root_of(domain).to_owned(), domain.to_owned()))
}

/// `/:\/\/(\S*?)(:\d+)?(\/|$)/`'s first group.
fn host(url: &str) -> Option<&str> {
    let start = url.find("://")? + 3;
    let rest = &url[start..];
    let end = rest
        .find(|c: char| c == '/' || c == ':' || c.is_whitespace())
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

/// The leftmost match of `/(?:[a-z0-9.-]+\.[a-z0-9]+|localhost)/i`.
fn domain_characters(s: &str) -> Option<&str> {
    let bytes = s.as_bytes();
    let in_class = |b: u8| b.is_ascii_alphanumeric() || b == b'.' || b == b'-';
    for i in 0..bytes.len() {
        let run = bytes[i..].iter().take_while(|b| in_class(**b)).count();
        // The last dot after the first character that an alphanumeric follows.
        let dot = (i + 1..i + run)
            .rev()
            .find(|&k| bytes[k] == b'.' && bytes.get(k + 1).is_some_and(u8::is_ascii_alphanumeric));
        if let Some(k) = dot {
            let tail = bytes[k + 1..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric())
                .count();
            return s.get(i..k + 1 + tail);
        }
        if s.get(i..i + 9)
            .is_some_and(|w| w.eq_ignore_ascii_case("localhost"))
        {
            return s.get(i..i + 9);
        }
    }
    None
}

/// The leftmost match of `/[^.]+\.([^.]+|(gov|com|co|ne)\.\w{2})$/i`, or the domain.
fn root_of(domain: &str) -> &str {
    let labels: Vec<&str> = domain.split('.').collect();
    let n = labels.len();
    if n >= 3 && !labels[n - 3].is_empty() {
        let middle = labels[n - 2].to_ascii_lowercase();
        let last = labels[n - 1];
        let word = last.len() == 2 && last.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if ["gov", "com", "co", "ne"].contains(&middle.as_str()) && word {
            let len = labels[n - 3].len() + middle.len() + last.len() + 2;
            return &domain[domain.len() - len..];
        }
    }
    if n >= 2 && !labels[n - 2].is_empty() && !labels[n - 1].is_empty() {
        let len = labels[n - 2].len() + labels[n - 1].len() + 1;
        return &domain[domain.len() - len..];
    }
    domain
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_belong_to_entities_as_in_devtools() {
        let mut e = Entities::new();
        let name = |e: &mut Entities, url: &str| e.of(url).map(|x| x.name().to_owned());
        assert_eq!(
            name(&mut e, "http://127.0.0.2:8080/a.js").as_deref(),
            Some("127.0.0.2")
        );
        assert_eq!(
            name(&mut e, "http://localhost:8080/a.png").as_deref(),
            Some("localhost")
        );
        assert_eq!(
            name(&mut e, "https://cdn.example.co.uk/x.js").as_deref(),
            Some("example.co.uk")
        );
        assert_eq!(
            name(&mut e, "https://www.example.com/x.js").as_deref(),
            Some("example.com")
        );
        assert_eq!(
            name(&mut e, "https://connect.facebook.net/en_US/sdk.js").as_deref(),
            Some("Facebook")
        );
        assert_eq!(name(&mut e, "about:blank"), None);
    }
}
