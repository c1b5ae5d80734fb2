//! The input tools against real Chromium and the pages in `tests/fixtures/input/`: each test
//! checks what the page itself saw (events, values, the submitted form), the response text the
//! reference gives, and that no call stalls.

mod clicks;
mod dialogs;
mod forms;
mod limits;
