//! The one error type. Its `Display` is what an agent reads in an `isError` result, so every
//! variant's message names what went wrong and, where it helps, what to do next.

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// The browser answered a command with an error.
    Cdp { method: String, message: String },
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
            Error::Cdp { method, message } => write!(f, "{method} failed: {message}"),
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

pub type Result<T> = std::result::Result<T, Error>;
