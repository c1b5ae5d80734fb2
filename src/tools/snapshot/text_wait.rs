//! `wait_for`'s text wait, step by step: the page watched until any of the texts is on it
//! (bounded by the page's own timer), then a snapshot for the answer. [`TextWait::next`] is
//! the whole story.

use std::time::Duration;

use super::capture;
use super::model;
use crate::browser::{self, pages, Flow, PageId};
use crate::cdp::generated::runtime;
use crate::error::Error;
use crate::pagetools::page_code;
use crate::tools::call::{self, CallId};
use crate::tools::ctx::Ctx;
use crate::tools::response::{finish, Response};

/// `wait_for`: resolves when any of `texts` is on the page, then answers with a snapshot.
pub(crate) fn wait_for_text(
    cx: &mut Ctx,
    call: CallId,
    page: PageId,
    texts: Vec<String>,
    timeout: Duration,
) {
    let session = match pages::session_of(&cx.browser.pages, page) {
        Ok(s) => s,
        Err(e) => return call::fail(cx, call, e),
    };
    let list = serde_json::to_string(&texts).unwrap_or_else(|_| "[]".into());
    let ms = timeout.as_millis();
    // Text content and accessible names (aria-label, alt, title, value) both count.
    let expression = format!(
        "new Promise((resolve, reject) => {{
  const texts = {list};
  const found = () => {{
    const body = document.body ? document.body.innerText : '';
    if (texts.some(t => body.includes(t))) return true;
    for (const el of document.querySelectorAll('[aria-label],[alt],[title],input,textarea')) {{
      const names = [el.getAttribute('aria-label'), el.getAttribute('alt'), el.getAttribute('title'), el.value];
      if (names.some(n => n && texts.some(t => n.includes(t)))) return true;
    }}
    return false;
  }};
  if (found()) return resolve(true);
  const observer = new MutationObserver(() => {{ if (found()) {{ observer.disconnect(); clearTimeout(timer); resolve(true); }} }});
  observer.observe(document, {{subtree: true, childList: true, characterData: true, attributes: true}});
  const timer = setTimeout(() => {{ observer.disconnect(); reject(new Error('Timed out after waiting {ms}ms')); }}, {ms});
}})"
    );
    let request = page_code::awaited(expression);
    let wait = TextWait {
        call,
        page,
        texts: list,
    };
    browser::send_then(cx, Some(&session), request, wait, Step::Found);
}

/// One wait for text.
struct TextWait {
    call: CallId,
    page: PageId,
    /// The texts waited for, as JSON (the answer names them so).
    texts: String,
}

enum Step {
    /// The page's watch ended: a text is there, or the page's timer threw.
    Found(Result<runtime::EvaluateReturns, Error>),
    /// The snapshot for the answer was taken (an answer without one still says the text was
    /// found).
    Snapshotted(Result<(), Error>),
}

impl Flow<Ctx> for TextWait {
    type Step = Step;

    fn next(self, cx: &mut Ctx, step: Step) {
        match step {
            Step::Found(Ok(answer)) => match answer.exception_details {
                Some(ex) => {
                    let msg = ex
                        .exception
                        .and_then(|e| e.description)
                        .and_then(|d| d.lines().next().map(str::to_owned))
                        .unwrap_or_else(|| "Timed out".into());
                    let msg = msg.trim_start_matches("Error: ").to_owned();
                    call::fail(cx, self.call, msg)
                }
                None => capture(cx, self.page, false, self.then(Step::Snapshotted)),
            },
            Step::Found(Err(e)) => call::fail(cx, self.call, page_code::page_error(e)),
            Step::Snapshotted(r) => {
                let mut resp = Response::for_page(self.page);
                resp.line(format!("Element matching one of {} found.", self.texts));
                if r.is_ok() {
                    if let Some(s) = cx.snapshots.latest(self.page) {
                        resp.snapshot = Some(model::format_section(s));
                    }
                }
                finish(cx, self.call, resp);
            }
        }
    }
}
