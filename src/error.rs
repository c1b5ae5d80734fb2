//! The one error type. Its `Display` is what an agent reads in an `isError` result, so every
//! variant's message names what went wrong and, where it helps, what to do next.

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Error {
    /// The browser answered a command with an error. `fault` is what the error means, read
    /// once from the browser's words (see [`Fault::of`]); `message` is those words.
    Cdp {
        method: String,
        message: String,
        fault: Fault,
    },
    /// The browser could not be started or reached.
    Launch(String),
    /// The browser connection ended (the process exited or the socket closed).
    BrowserGone(String),
    /// The page's renderer process crashed.
    Crashed,
    /// The page was closed, or navigated away while we waited on its document.
    PageGone(String),
    /// Something did not happen within its time limit.
    Timeout(String),
    /// The request itself is wrong: bad arguments, unknown names.
    Invalid(String),
    /// The page's own code failed (a thrown exception, a rejected promise).
    Page(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Cdp {
                method, message, ..
            } => write!(f, "{method} failed: {message}"),
            Error::Launch(m) => write!(f, "Could not start the browser: {m}"),
            Error::BrowserGone(m) => write!(f, "The browser connection was lost: {m}"),
            Error::Crashed => write!(
                f,
                "The page crashed (its renderer process died). Navigate it or open a new page to continue."
            ),
            Error::PageGone(m) => write!(f, "{m}"),
            Error::Timeout(m) => write!(f, "{m}"),
            Error::Invalid(m) => write!(f, "{m}"),
            Error::Page(m) => write!(f, "{m}"),
        }
    }
}

pub(crate) type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// The text as the reference words it, where its answer is the browser's error as its
    /// Puppeteer reports it (`Protocol error (Domain.method): …`); any other error as usual.
    pub(crate) fn in_reference_words(&self) -> String {
        match self {
            Error::Cdp {
                method, message, ..
            } => format!("Protocol error ({method}): {message}"),
            other => other.to_string(),
        }
    }

    /// The browser's error answer to `method`, with what it means.
    pub(crate) fn cdp(method: &str, message: String) -> Error {
        Error::Cdp {
            method: method.to_owned(),
            fault: Fault::of(&message),
            message,
        }
    }
}

/// What a browser's error answer means, where code must tell errors apart. Chromium answers
/// nearly every failure with the same generic error code, so only its wording tells them
/// apart: that wording is read here and nowhere else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fault {
    /// The document the command ran in went away (navigation, reload, close).
    ContextLost,
    /// The DOM node is not in the document.
    NodeNotFound,
    /// A remote object (an element handle) is no longer known.
    ObjectNotFound,
    /// The node was detached from the document.
    Detached,
    /// The element has no box on the page (e.g. `display: none`).
    NoLayout,
    /// The browser does not know the command (an older or different browser).
    UnknownMethod,
    /// An app's install page or manifest could not be fetched or read (the first install of
    /// a page the browser has not cached yet can fail so; the reference tries once more).
    NoInstallInfo,
    Other,
}

impl Fault {
    pub(crate) fn of(message: &str) -> Fault {
        const CONTEXT_LOST: [&str; 3] = [
            "Execution context was destroyed",
            "Inspected target navigated or closed",
            "Cannot find context",
        ];
        let has = |s: &str| message.contains(s);
        if CONTEXT_LOST.iter().any(|m| has(m)) {
            Fault::ContextLost
        } else if has("layout object") || has("content quads") {
            Fault::NoLayout
        } else if has("No node") || has("find node") {
            Fault::NodeNotFound
        } else if has("Could not find") {
            Fault::ObjectNotFound
        } else if has("detached") {
            Fault::Detached
        } else if has("wasn't found") {
            Fault::UnknownMethod
        } else if has("Couldn't fetch install info") {
            Fault::NoInstallInfo
        } else {
            Fault::Other
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_browsers_words_are_read_once() {
        let cases = [
            ("Execution context was destroyed.", Fault::ContextLost),
            ("Inspected target navigated or closed", Fault::ContextLost),
            ("Cannot find context with specified id", Fault::ContextLost),
            ("Could not compute content quads.", Fault::NoLayout),
            ("Node does not have a layout object", Fault::NoLayout),
            ("No node with given id found", Fault::NodeNotFound),
            ("Could not find node with given id", Fault::NodeNotFound),
            ("Could not find object with given id", Fault::ObjectNotFound),
            ("Node is detached from document", Fault::Detached),
            (
                "'Browser.setContentsSize' wasn't found",
                Fault::UnknownMethod,
            ),
            (
                "Couldn't fetch install info for http://a/ from http://a/b",
                Fault::NoInstallInfo,
            ),
            ("Something else", Fault::Other),
        ];
        for (message, fault) in cases {
            assert_eq!(Fault::of(message), fault, "{message}");
        }
        let e = Error::cdp("Some.command", "No node with given id found".into());
        assert_eq!(
            e.to_string(),
            "Some.command failed: No node with given id found"
        );
        assert_eq!(
            e.in_reference_words(),
            "Protocol error (Some.command): No node with given id found"
        );
        let other = Error::Invalid("Extension with ID x not found.".into());
        assert_eq!(other.in_reference_words(), other.to_string());
    }
}
