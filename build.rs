//! The discovery shim, in every build: the parts in `src/pagetools/shim/*.js`, joined into the
//! one script the server installs (without comments and indentation) and written to
//! `$OUT_DIR/shim.js`, which `pagetools::shim()` includes. How they are joined:
//! `src/pagetools/shim/join.rs`.
//!
//! Release builds of the server binary for Linux only (measured, see ARCHITECTURE.md "Lean
//! browser"):
//!
//! - The linker puts the functions the everyday calls run first in the code
//!   (`src/app/hot_code.ld`, written by `benches/hot_code.py`), so the pages those calls touch
//!   lie together. The kernel maps the cached neighbours of each page a process faults in
//!   (fault-around; whole large folios on recent kernels), so hot code spread over the whole
//!   text kept nearly all of it resident.
//! - Relative relocations are packed (DT_RELR): the dynamic loader reads a few KB instead of
//!   ~300 KB of `.rela.dyn` at every start. Loading such a binary needs glibc 2.36, so this is
//!   done only when building on a glibc that has it, for the same machine.

#[path = "src/pagetools/shim/join.rs"]
mod join;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    shim();
    release_link();
}

/// Joins the shim's parts into `$OUT_DIR/shim.js`. A build script runs in the package's
/// folder; a folder named here is watched whole (a part added, changed or removed).
fn shim() {
    let dir = "src/pagetools/shim";
    println!("cargo:rerun-if-changed={dir}");
    let parts = join::parts(dir.as_ref()).unwrap_or_else(|e| panic!("reading {dir}: {e}"));
    assert!(!parts.is_empty(), "no shim parts (*.js) in {dir}");
    let script = join::installed(dir.as_ref()).unwrap_or_else(|e| panic!("joining {dir}: {e}"));
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    let out = std::path::Path::new(&out).join("shim.js");
    std::fs::write(&out, script).unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
}

/// The hot-code layout and packed relocations of release builds on Linux.
fn release_link() {
    println!("cargo:rerun-if-changed=src/app/hot_code.ld");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux");
    if !linux || std::env::var("PROFILE").as_deref() != Ok("release") {
        return;
    }
    // benches/hot_code.py profiles a build without the layout: valgrind finds no symbols
    // in a code section that is not called `.text`.
    println!("cargo:rerun-if-env-changed=DEVTOOLS_MCP_HOT_CODE");
    if std::env::var("DEVTOOLS_MCP_HOT_CODE").as_deref() != Ok("off") {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/src/app/hot_code.ld");
        println!("cargo:rustc-link-arg-bins=-Wl,-T,{script}");
    }
    let native = std::env::var("TARGET").ok() == std::env::var("HOST").ok();
    if native && glibc_has_relr() {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Whether the glibc this build script runs on loads DT_RELR (2.36 and later).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn glibc_has_relr() -> bool {
    extern "C" {
        fn gnu_get_libc_version() -> *const std::ffi::c_char;
    }
    // SAFETY: glibc returns a static NUL-terminated string such as "2.36".
    let version = unsafe { std::ffi::CStr::from_ptr(gnu_get_libc_version()) };
    let mut parts = version.to_str().unwrap_or("").split('.');
    let mut next = || {
        parts
            .next()
            .and_then(|p| p.parse::<u32>().ok())
            .unwrap_or(0)
    };
    (next(), next()) >= (2, 36)
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn glibc_has_relr() -> bool {
    false
}
