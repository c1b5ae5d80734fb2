//! devtools-mcp: an MCP server on stdio that drives Chromium over the Chrome DevTools
//! Protocol and runs the developer tools that pages expose. See ARCHITECTURE.md.

fn main() -> std::process::ExitCode {
    devtools_mcp::app::main(std::env::args().skip(1).collect())
}
