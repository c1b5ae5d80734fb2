//! Routing browser events: target lifecycle, documents, execution contexts, dialogs and
//! crashes update the browser's own state; then the layers above hear every event
//! (`Host::event`), and last any waiter that asked for it.

use super::frames;
use super::host::{Host, RawEvent};
use super::pages::{self, CrashReport, Dialog, PageId};
use crate::cdp::generated::{inspector, page as cdp_page, runtime, target};
use crate::error::Error;
use crate::log::log;

pub(crate) fn on_event<H: Host>(cx: &mut H, event: RawEvent) {
    match apply(cx, &event) {
        Some(Source::Page(page)) => cx.event(Some(page), &event),
        Some(Source::Frame(page)) => cx.frame_event(page, &event),
        None => cx.event(None, &event),
    }
    // Browser-level events are waited for under the session "".
    let session = event.session.as_deref().unwrap_or("");
    super::waiters::on_event(cx, session, &event.method, &event.params);
}

/// Whose session an event came on.
enum Source {
    Page(PageId),
    /// One of the page's out-of-process iframes.
    Frame(PageId),
}

/// Applies the event to the browser's state; returns whose session it came on.
fn apply<H: Host>(cx: &mut H, event: &RawEvent) -> Option<Source> {
    let Some(session) = event.session.as_deref() else {
        browser_event(cx, event);
        return None;
    };
    if frames::on_child_event(cx, session, event) {
        return None;
    }
    let Some(id) = cx.browser().pages.by_session(session).map(|p| p.id) else {
        let page = frames::page_of_frame(cx, session)?;
        frames::on_frame_event(cx, session, event);
        return Some(Source::Frame(page));
    };
    if event.is::<inspector::TargetCrashedEvent>() {
        crashed(cx, session, CrashReport::PageSession);
    } else if let Some(e) = event.decode::<cdp_page::FrameNavigatedEvent>() {
        frame_navigated(cx, id, e.frame);
    } else if let Some(e) = event.decode::<cdp_page::LifecycleEventEvent>() {
        let page = cx.browser().pages.get_mut(id)?;
        if e.name == "load" && page.target_id == e.frame_id {
            page.loaded_loader = Some(e.loader_id);
        }
    } else if let Some(e) = event.decode::<cdp_page::JavascriptDialogOpeningEvent>() {
        cx.browser().pages.get_mut(id)?.dialog = Some(Dialog {
            kind: e.r#type.as_str().to_owned(),
            message: e.message,
            default_prompt: e.default_prompt.unwrap_or_default(),
        });
    } else if event.is::<cdp_page::JavascriptDialogClosedEvent>() {
        cx.browser().pages.get_mut(id)?.dialog = None;
    } else {
        contexts(cx, id, event);
    }
    Some(Source::Page(id))
}

/// Events on the browser's own session: targets come, change, crash and go.
fn browser_event<H: Host>(cx: &mut H, event: &RawEvent) {
    if let Some(e) = event.decode::<target::AttachedToTargetEvent>() {
        pages::attached(cx, e);
    } else if let Some(e) = event.decode::<target::DetachedFromTargetEvent>() {
        pages::detached(cx, &e.session_id);
    } else if let Some(e) = event.decode::<target::TargetInfoChangedEvent>() {
        pages::update_info(&mut cx.browser().pages, &e.target_info);
    } else if let Some(e) = event.decode::<target::TargetCrashedEvent>() {
        let session = cx
            .browser()
            .pages
            .by_target(&e.target_id)
            .map(|p| p.session.clone());
        match session {
            Some(s) => crashed(cx, &s, CrashReport::Browser),
            None => {
                frames::target_crashed(cx, &e.target_id);
            }
        }
    }
}

/// The main frame's default execution context: where page scripts and the shim live.
fn contexts<H: Host>(cx: &mut H, id: PageId, event: &RawEvent) {
    let Some(page) = cx.browser().pages.get_mut(id) else {
        return;
    };
    if let Some(e) = event.decode::<runtime::ExecutionContextCreatedEvent>() {
        let aux = e.context.aux_data.unwrap_or_default();
        if aux["isDefault"] == true && aux["frameId"].as_str() == Some(page.target_id.as_str()) {
            page.context = Some(e.context.id);
        }
    } else if let Some(e) = event.decode::<runtime::ExecutionContextDestroyedEvent>() {
        if page.context == Some(e.execution_context_id) {
            page.context = None;
        }
    } else if event.is::<runtime::ExecutionContextsClearedEvent>() {
        page.context = None;
    }
}

/// A new document in the main frame: everything tied to the old one is void.
fn frame_navigated<H: Host>(cx: &mut H, id: PageId, frame: cdp_page::Frame) {
    if frame.parent_id.is_some() {
        return;
    }
    let Some(page) = cx.browser().pages.get_mut(id) else {
        return;
    };
    if frame.id != page.target_id {
        return;
    }
    page.document += 1;
    page.crashed = false;
    page.loaded_loader = None;
    page.url = format!("{}{}", frame.url, frame.url_fragment.unwrap_or_default());
    page.loader_id = frame.loader_id;
    cx.document_changed(id);
}

/// A report of a crash of the page of `session`: the first of a crash's two reports ends
/// what waited on the page; the second is dropped, whenever it comes.
fn crashed<H: Host>(cx: &mut H, session: &str, report: CrashReport) {
    let Some(page) = cx.browser().pages.by_session_mut(session) else {
        return;
    };
    if page.unpaired_crash.is_some_and(|first| first != report) {
        page.unpaired_crash = None;
        return;
    }
    page.unpaired_crash = Some(report);
    log!("page {} crashed", page.id);
    page.crashed = true;
    page.context = None;
    let id = page.id;
    cx.document_changed(id);
    super::fail_session(cx, session, Error::Crashed);
}
