//! The extensions' service workers that answers listing the pages list after them (with
//! `--categoryExtensions`), each under an id (`sw-1`, `sw-2`, …) minted when it is first seen
//! and kept while it runs, as the reference numbers them.

use serde_json::{json, Value};

use crate::cdp::generated::target::TargetInfo;

#[derive(Default)]
pub(crate) struct Workers {
    /// The number of the next id.
    next: u32,
    /// The workers running at the last look: target id, number, URL.
    running: Vec<(String, u32, String)>,
}

impl Workers {
    /// Takes in the browser's targets: new extension workers get an id, gone ones lose theirs.
    pub(crate) fn update(&mut self, targets: &[TargetInfo]) {
        let workers: Vec<&TargetInfo> = targets
            .iter()
            .filter(|t| t.r#type == "service_worker" && t.url.starts_with("chrome-extension://"))
            .collect();
        self.running
            .retain(|(id, ..)| workers.iter().any(|t| t.target_id == *id));
        for t in workers {
            match self.running.iter_mut().find(|(id, ..)| *id == t.target_id) {
                Some(known) => known.2.clone_from(&t.url),
                None => {
                    self.next += 1;
                    self.running
                        .push((t.target_id.clone(), self.next, t.url.clone()));
                }
            }
        }
    }

    /// `## Extension Service Workers` and a line per worker (no section when none runs), and
    /// the same as structured content.
    pub(crate) fn section(&self) -> (Option<String>, Value) {
        let listed: Vec<Value> = self
            .running
            .iter()
            .map(|(_, n, url)| json!({"id": format!("sw-{n}"), "url": url}))
            .collect();
        if self.running.is_empty() {
            return (None, json!(listed));
        }
        let mut text = String::from("## Extension Service Workers");
        for (_, n, url) in &self.running {
            text.push_str(&format!("\nsw-{n}: {url}"));
        }
        (Some(text), json!(listed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn worker(id: &str, url: &str) -> TargetInfo {
        TargetInfo {
            target_id: id.into(),
            r#type: "service_worker".into(),
            url: url.into(),
            ..Default::default()
        }
    }

    #[test]
    fn ids_are_minted_once_and_dropped_with_their_worker() {
        let mut w = Workers::default();
        assert_eq!(w.section().0, None);
        let a = worker("A", "chrome-extension://a/bg.js");
        let web = worker("W", "http://127.0.0.1/sw.js");
        w.update(&[a.clone(), web]);
        let b = worker("B", "chrome-extension://b/bg.js");
        w.update(&[a, b.clone()]);
        assert_eq!(
            w.section().0.as_deref(),
            Some("## Extension Service Workers\nsw-1: chrome-extension://a/bg.js\nsw-2: chrome-extension://b/bg.js")
        );
        w.update(&[b]);
        let c = worker("C", "chrome-extension://a/bg.js");
        w.update(&[c, worker("B", "chrome-extension://b/bg.js")]);
        assert_eq!(
            w.section().0.as_deref(),
            Some("## Extension Service Workers\nsw-2: chrome-extension://b/bg.js\nsw-3: chrome-extension://a/bg.js")
        );
    }
}
