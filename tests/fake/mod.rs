//! The server in-process against a scripted browser connection (`support::wire`, driven by
//! `support/fake.rs`), no Chromium: what the browser answers, and when, is exactly what the
//! test says, so orders a real browser shows only under load are played every time.

mod all_pages;
mod crashes;
mod dispatch;
mod frames;
mod input_frames;
mod input_limits;
mod pagetools_forged;
mod webmcp;
