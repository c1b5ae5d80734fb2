//! Telling the shim's messages from page code's. The binding is a window global until the
//! shim takes it away, and a document the shim was installed into late (it existed before
//! the server attached) may have had page code run first, so a message proves it comes
//! from the shim by starting with a secret the server put into that copy of the shim.
//! Page code never sees the source of the shim, nor the closure that holds the secret.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

/// What the server accepts from one page target's shim.
pub(crate) struct Guard {
    /// In the new-document script: every document the target commits after attaching.
    document_secret: String,
    /// In the copies installed late (Runtime.evaluate): a page that ran before the shim
    /// could learn it (built-ins it replaced), so it is believed only from the documents
    /// it was installed into (the page's `document` counter at the time; a few kept).
    late_secret: String,
    late_documents: Vec<u64>,
    /// The execution context whose shim said hello: its `window.__dtmcp` is the shim's
    /// and cannot be replaced, so what discover() answers there is the shim's.
    pub trusted: Option<i64>,
    /// The document that existed when the server attached (the page was running): its
    /// `window.__dtmcp` may be an earlier server's shim, which never says hello to this one.
    /// What it answers is believed as the page's own, like the page's own listeners: tools
    /// and their runs both come from that document, so nothing stronger is there to forge.
    pub preexisting: Option<u64>,
}

/// How many documents a late secret is remembered for (a page is late-installed at
/// attach, and again when discovery finds no shim).
const LATE_DOCUMENTS: usize = 4;

impl Default for Guard {
    fn default() -> Self {
        Guard {
            document_secret: secret(),
            late_secret: secret(),
            late_documents: Vec::new(),
            trusted: None,
            preexisting: None,
        }
    }
}

impl Guard {
    /// The shim for the new-document script.
    pub(crate) fn document_shim(&self) -> String {
        with_secret(&self.document_secret)
    }

    /// The shim for a document that exists already (`document`, the page's counter).
    pub(crate) fn late_shim(&mut self, document: u64) -> String {
        if !self.late_documents.contains(&document) {
            if self.late_documents.len() == LATE_DOCUMENTS {
                self.late_documents.remove(0);
            }
            self.late_documents.push(document);
        }
        with_secret(&self.late_secret)
    }

    /// The message in a binding payload, if it carries the secret valid for `document`.
    pub(crate) fn open<'a>(&self, document: u64, payload: &'a str) -> Option<&'a str> {
        let (secret, body) = payload.split_once('\n')?;
        let valid = secret == self.document_secret
            || (secret == self.late_secret && self.late_documents.contains(&document));
        valid.then_some(body)
    }
}

/// The placeholder in `shim/00-open.js` that each installed copy replaces.
const SLOT: &str = "@@DTMCP-SECRET@@";

fn with_secret(secret: &str) -> String {
    super::shim().replacen(SLOT, secret, 1)
}

/// 128 unpredictable bits as hex: SipHash under the process's random keys (std seeds them
/// from the OS), of the time and a count, twice.
fn secret() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    (0..2u8)
        .map(|i| {
            let mut h = RandomState::new().build_hasher();
            h.write_u128(nanos);
            h.write_u8(i);
            format!("{:016x}", h.finish())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_secret_opens_and_a_late_one_only_in_its_documents() {
        let mut g = Guard::default();
        assert!(super::super::shim().contains(SLOT));
        let shim = g.document_shim();
        assert!(shim.contains(&g.document_secret) && !shim.contains(SLOT));
        let doc = format!("{}\n{{}}", g.document_secret);
        assert_eq!(g.open(7, &doc), Some("{}"));
        assert_eq!(g.open(7, "{\"type\":\"groups\"}"), None);
        assert_eq!(g.open(7, "\n{}"), None);
        let late = format!("{}\n{{}}", g.late_secret);
        assert_eq!(g.open(3, &late), None);
        g.late_shim(3);
        assert_eq!(g.open(3, &late), Some("{}"));
        assert_eq!(g.open(4, &late), None);
        assert_ne!(Guard::default().document_secret, g.document_secret);
    }
}
