//! Third-party developer tools against real headless Chromium, on the pages of
//! `tests/fixtures/thirdparty/` (its README says what each one registers) and inline pages on
//! the fixture server; the helpers are in `support/thirdparty.rs`.

mod discovery;
mod execute;
mod flags;
mod flood;
mod list;
mod robustness;
mod values;
