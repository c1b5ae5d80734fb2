//! The top: the command line, the one event loop that wires stdin, stdout, the browser
//! connection, signals and timers to the MCP server, the one-shot client (`run`, `demo`) and
//! the other one-shot commands (`trace`, `heap`, `perf`, `check`).

mod check;
mod cli;
mod event_loop;
mod flags;
mod heap_cli;
mod http;
mod in_process;
mod perf;
mod stdout;
mod trace_cli;

use std::process::ExitCode;

pub use in_process::InProcess;
use stdout::outln;

use crate::log;
use crate::settings::Settings;

/// The browser executable the server starts with these flags (the same rule the server uses:
/// `--executablePath`, `CHROME_PATH`, the headless shell when headless, full Chromium).
pub fn browser_executable(args: &[&str]) -> Result<std::path::PathBuf, String> {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let (parsed, _) = flags::Flags::parse("devtools-mcp", &args).map_err(|e| e.output)?;
    let settings = flags::settings(&parsed)?;
    Ok(crate::browser::launch::find_executable(&settings)?.path)
}

/// The program: `run`, `demo` and `perf` are the one-shot client, `trace` the trace analyser on
/// a file, `heap` the heap snapshot analyser, `check` the check of a page's tools; anything
/// else starts the server.
/// Allocations of 1 MB or more (a heap snapshot's columns, an analysis' scratch arrays) are
/// mapped from the OS and given back when freed. glibc otherwise raises that threshold
/// after the first large free and serves the next ones from its heap, which it rarely gives
/// back: a snapshot's load left ~50 MB of freed scratch resident for the rest of the
/// session and pushed the next phase's peak up by as much.
fn large_allocations_from_the_os() {
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt only sets an allocator parameter; called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

pub fn main(args: Vec<String>) -> ExitCode {
    large_allocations_from_the_os();
    let rest: Vec<&str> = args.iter().skip(1).map(String::as_str).collect();
    match args.first().map(String::as_str) {
        Some("run") => return cli::run(&rest),
        Some("demo") => return cli::demo(&rest),
        Some("trace") => return trace_cli::trace(&rest),
        Some("heap") => return heap_cli::heap(&rest),
        Some("perf") => return perf::perf(&rest),
        Some("check") => return check::check(&rest),
        _ => {}
    }
    let (flags, notes) = match flags::Flags::parse("devtools-mcp", &args) {
        Ok(f) => f,
        Err(exit) => {
            // --help prints to stdout: fine, no client reads it as protocol then.
            if exit.status.is_ok() {
                outln!("{}", exit.output);
                return ExitCode::SUCCESS;
            }
            eprintln!("{}", exit.output);
            return ExitCode::from(2);
        }
    };
    if flags.version {
        outln!("devtools-mcp {}", env!("CARGO_PKG_VERSION"));
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
    let settings = match flags::settings(&flags) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("devtools-mcp: {e}");
            return ExitCode::from(2);
        }
    };
    let ran = match flags.port {
        Some(port) => match http_options(&flags, port) {
            Ok(options) => {
                let settings = Settings {
                    startup_tab: false,
                    ..settings
                };
                http::run(settings, options)
            }
            Err(e) => {
                eprintln!("devtools-mcp: {e}");
                return ExitCode::from(2);
            }
        },
        None => event_loop::run(settings),
    };
    match ran {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            log::log!("fatal: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Where `--port` listens, and what it asks of clients. A non-loopback address without a
/// token would let anyone who reaches it drive the browser: refused.
fn http_options(flags: &flags::Flags, port: u16) -> Result<http::Options, String> {
    let host = flags.host.as_deref().unwrap_or("127.0.0.1");
    let ip: std::net::IpAddr = match host {
        "localhost" => std::net::Ipv4Addr::LOCALHOST.into(),
        _ => (host.trim_start_matches('[').trim_end_matches(']').parse())
            .map_err(|_| format!("--host must be an IP address or localhost (got {host})"))?,
    };
    let token = std::env::var("DEVTOOLS_MCP_TOKEN")
        .ok()
        .filter(|t| !t.is_empty());
    if !ip.is_loopback() && token.is_none() {
        return Err(format!(
            "--host {host} is not a loopback address: set DEVTOOLS_MCP_TOKEN so that only clients \
             that send it (Authorization: Bearer <token>) can drive the browser"
        ));
    }
    let idle = flags.agent_idle_timeout.unwrap_or(http::DEFAULT_IDLE_SECS);
    Ok(http::Options {
        addr: std::net::SocketAddr::new(ip, port),
        token,
        idle: std::time::Duration::from_secs(idle.max(1)),
    })
}
