//! Loading the source maps an answer needs before it is written. The Debugger domain is on
//! only meanwhile (on all the time it slows every call and navigation; see benches/README):
//! enabling it replays `Debugger.scriptParsed` for the scripts the page still holds, which
//! says which have a map (pauses are skipped first: a `debugger;` statement must not hold
//! the page). Then, for each script of the shown frames with a map not loaded yet, its
//! generated text (`Debugger.getScriptSource`, which function names are read from) and its
//! map (decoded from a `data:` URL, or fetched by the browser with
//! `Network.loadNetworkResource` and read from the stream it gives), one script after the
//! other. A failure leaves that script's frames at their generated positions; after [`WAIT`]
//! the answer is written with what is loaded, as the reference waits at most a second.

use std::time::Duration;

use super::maps::MapSource;
use crate::browser::{self, Flow, Host, Once, PageId};
use crate::cdp::generated::{debugger, network};
use crate::error::Error;
use crate::sourcemap::MAX_MAP_BYTES;
use crate::tools::ctx::Ctx;
use crate::tools::stream::{Sink, StreamRead};

/// How long an answer waits for maps.
const WAIT: Duration = Duration::from_secs(1);
/// Largest generated script read for function names.
const MAX_SCRIPT_CHARS: usize = 16 << 20;

/// Looks at `scripts` on `page` and loads their maps, then runs `then` (at the latest after
/// [`WAIT`]).
pub(super) fn load(
    cx: &mut Ctx,
    page: PageId,
    scripts: Vec<String>,
    then: impl FnOnce(&mut Ctx) + 'static,
) {
    let Some(session) = cx.browser.pages.get(page).map(|p| p.session.clone()) else {
        return then(cx);
    };
    if scripts.is_empty() {
        return then(cx);
    }
    cx.console.entry(page).scripts.loading += 1;
    let off = session.clone();
    let done = Once::new(Box::new(move |cx: &mut Ctx, _: Result<(), Error>| {
        let scripts = &mut cx.console.entry(page).scripts;
        scripts.loading = scripts.loading.saturating_sub(1);
        if scripts.loading == 0 {
            browser::fire(cx, Some(&off), debugger::DisableParams {});
        }
        then(cx)
    }));
    let timeout = done.clone();
    cx.after(WAIT, move |cx| timeout.call(cx, Ok(())));
    let skip = debugger::SetSkipAllPausesParams { skip: true };
    browser::fire(cx, Some(&session), skip);
    // Scripts the page no longer holds are not kept for the domain (without a bound, the
    // renderer would keep the text of every script it collected while the domain is on).
    let enable = debugger::EnableParams {
        max_scripts_cache_size: Some(0.0),
    };
    let flow = LoadMaps {
        page,
        session: session.clone(),
        todo: scripts,
        id: String::new(),
        text: None,
        done,
    };
    browser::send_then(cx, Some(&session), enable, flow, Step::Enabled);
}

struct LoadMaps {
    page: PageId,
    session: String,
    todo: Vec<String>,
    /// The script being loaded, and its generated text once read.
    id: String,
    text: Option<String>,
    done: Once<Ctx, ()>,
}

enum Step {
    /// The domain is on: the page's scripts with maps are known.
    Enabled(Result<debugger::EnableReturns, Error>),
    Source(Result<debugger::GetScriptSourceReturns, Error>),
    Resource(Result<network::LoadNetworkResourceReturns, Error>),
    Read(Result<Bounded, Error>),
}

impl Flow<Ctx> for LoadMaps {
    type Step = Step;

    fn next(mut self, cx: &mut Ctx, step: Step) {
        match step {
            Step::Enabled(Ok(_)) => {
                let scripts = &mut cx.console.entry(self.page).scripts;
                scripts.checked(&self.todo);
                self.todo.retain(|id| scripts.unloaded(id));
                self.next_script(cx);
            }
            Step::Enabled(Err(_)) => self.done.call(cx, Ok(())),
            Step::Source(r) => {
                self.text = r
                    .ok()
                    .map(|s| s.script_source)
                    .filter(|t| t.len() <= MAX_SCRIPT_CHARS);
                let source = cx
                    .console
                    .get_mut(self.page)
                    .and_then(|log| log.scripts.source_of(&self.id));
                match source {
                    Some(MapSource::Inline(map)) => self.script_done(cx, Some(&map)),
                    Some(MapSource::Fetch { url, frame_id }) => self.fetch(cx, url, frame_id),
                    None => self.script_done(cx, None),
                }
            }
            Step::Resource(Ok(r)) => match r.resource.stream.filter(|_| r.resource.success) {
                Some(stream) => {
                    let session = self.session.clone();
                    StreamRead::new(session, stream, Bounded(Vec::new()), self.then(Step::Read))
                        .start(cx);
                }
                None => self.script_done(cx, None),
            },
            Step::Read(Ok(Bounded(map))) => self.script_done(cx, Some(&map)),
            Step::Resource(Err(_)) | Step::Read(Err(_)) => self.script_done(cx, None),
        }
    }
}

impl LoadMaps {
    fn next_script(mut self, cx: &mut Ctx) {
        let Some(id) = self.todo.pop() else {
            return self.done.call(cx, Ok(()));
        };
        self.id = id.clone();
        self.text = None;
        let session = self.session.clone();
        let params = debugger::GetScriptSourceParams { script_id: id };
        browser::send_then(cx, Some(&session), params, self, Step::Source);
    }

    /// The browser fetches the map for the page (no request leaves from the server).
    fn fetch(self, cx: &mut Ctx, url: String, frame_id: Option<String>) {
        let frame_id =
            frame_id.or_else(|| cx.browser.pages.get(self.page).map(|p| p.target_id.clone()));
        let params = network::LoadNetworkResourceParams {
            frame_id,
            url,
            options: network::LoadNetworkResourceOptions {
                disable_cache: false,
                include_credentials: false,
            },
        };
        let session = self.session.clone();
        browser::send_then(cx, Some(&session), params, self, Step::Resource);
    }

    fn script_done(self, cx: &mut Ctx, map: Option<&[u8]>) {
        if let Some(log) = cx.console.get_mut(self.page) {
            log.scripts.loaded(&self.id, map, self.text.as_deref());
        }
        self.next_script(cx);
    }
}

/// A map's bytes as they stream in, refused past [`MAX_MAP_BYTES`].
struct Bounded(Vec<u8>);

impl Sink for Bounded {
    fn put(&mut self, bytes: &[u8]) -> Result<(), Error> {
        if self.0.len() + bytes.len() > MAX_MAP_BYTES {
            return Err(Error::Page("The source map is too large.".into()));
        }
        self.0.extend_from_slice(bytes);
        Ok(())
    }
}
