//! What the one-shot commands (`run`, `demo`, `trace`, `perf`, `--help`) print. A reader that
//! stops early (`| head`, `| grep -m1`) closes the pipe; the command then ends quietly with
//! the status a shell gives a command a closed pipe stopped (141), as other Unix tools do,
//! where `println!` would panic. The server itself never prints: its stdout is the protocol.

use std::fmt::Arguments;
use std::io::{ErrorKind, Write};
use std::process;

/// Writes `args` to stdout, or ends the process when stdout is gone.
pub(super) fn write(args: Arguments) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        if e.kind() == ErrorKind::BrokenPipe {
            process::exit(141);
        }
        eprintln!("devtools-mcp: cannot write the output: {e}");
        process::exit(1);
    }
}

/// `print!` through [`write`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::app::stdout::write(format_args!($($arg)*))
    };
}

/// `println!` through [`write`].
macro_rules! outln {
    () => {
        $crate::app::stdout::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::app::stdout::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {out, outln};
