//! devtools-mcp: an MCP server on stdio that drives Chromium over the Chrome DevTools
//! Protocol and runs the developer tools that pages expose. See ARCHITECTURE.md.

mod app;
mod browser;
mod cdp;
mod cli;
mod error;
mod event_loop;
mod flags;
mod log;
mod mcp;
mod settings;
mod thirdparty;
mod timers;
mod tools;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest: Vec<&str> = args.iter().skip(1).map(String::as_str).collect();
    match args.first().map(String::as_str) {
        Some("run") => return cli::run(&rest),
        Some("demo") => return cli::demo(&rest),
        _ => {}
    }
    let (flags, notes) = match flags::Flags::parse("devtools-mcp", &args) {
        Ok(f) => f,
        Err(exit) => {
            // --help prints to stdout: fine, no client reads it as protocol then.
            if exit.status.is_ok() {
                println!("{}", exit.output);
                return ExitCode::SUCCESS;
            }
            eprintln!("{}", exit.output);
            return ExitCode::from(2);
        }
    };
    if flags.version {
        println!("devtools-mcp {}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    if let Some(path) = &flags.log_file {
        if let Err(e) = log::open_file(path) {
            eprintln!("devtools-mcp: {e}");
            return ExitCode::from(2);
        }
    }
    for note in notes {
        log::log!("{note}");
    }
    if flags.category_experimental_third_party == Some(false) {
        log::log!("third-party developer tools are always on; --categoryExperimentalThirdParty=false is ignored");
    }
    let settings = match settings::Settings::from_flags(&flags) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("devtools-mcp: {e}");
            return ExitCode::from(2);
        }
    };
    match event_loop::run(settings) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            log::log!("fatal: {e}");
            ExitCode::FAILURE
        }
    }
}
