//! `devtools-mcp demo` works wherever the binary is installed: its page is built in, so a copy
//! of the binary alone, run from a folder that holds nothing of the repository, shows the page's
//! tools listed and called, and leaves no file behind.

use std::path::Path;
use std::process::Command;

use crate::support::{chrome_path, mcp::BROWSER_FLAGS, slots};

#[test]
fn the_demo_runs_from_an_installed_binary_in_any_folder() {
    let _slot = slots::acquire();
    let home = std::env::temp_dir().join(format!("devtools-mcp-installed-{}", std::process::id()));
    let (bin, cwd) = (home.join("bin"), home.join("elsewhere"));
    for folder in [&bin, &cwd] {
        std::fs::create_dir_all(folder).unwrap();
    }
    let installed = bin.join("devtools-mcp");
    std::fs::copy(env!("CARGO_BIN_EXE_devtools-mcp"), &installed).unwrap();
    let mut demo = Command::new(&installed);
    demo.current_dir(&cwd).arg("demo");
    demo.arg("--server-arg")
        .arg(format!("--executablePath={}", chrome_path()));
    for flag in BROWSER_FLAGS {
        demo.args(["--server-arg", flag]);
    }
    let child = demo.stdout(std::process::Stdio::piped()).spawn().unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    let _ = std::fs::remove_dir_all(&home);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{:?}\n{text}", out.status);
    assert!(
        text.contains("devtools-mcp demo: a shop cart (file://"),
        "{text}"
    );
    assert!(text.contains("name=\"get_cart\""), "{text}");
    assert!(text.contains("\"total\": 31.5"), "{text}");
    assert!(text.contains("[\"Green tea x5\",\"Mug x1\"]"), "{text}");
    // The page's file was written for the demo and is gone with it.
    let folder = text
        .split("file://")
        .nth(1)
        .and_then(|rest| rest.split("/index.html").next())
        .unwrap_or_default();
    assert!(
        folder.contains(&format!("devtools-mcp-demo-{pid}-")),
        "{folder}"
    );
    assert!(!Path::new(folder).exists(), "{folder} is left behind");
}
