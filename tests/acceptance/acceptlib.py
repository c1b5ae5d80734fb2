"""Shared pieces of the acceptance scripts: where things are, the reference's flags, a static
file server for the pages, and a small pass/fail recorder that times every step.

Nothing here talks MCP: the scripts use real clients (the official Python SDK, or a raw
subprocess for what the SDK will not send).
"""

from __future__ import annotations

import functools
import http.server
import os
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
PAGES = HERE / "pages"
ACCEPT_DIR = Path(os.environ.get("ACCEPT_DIR", "/tmp/devtools-mcp-acceptance"))
NODE_MODULES = ACCEPT_DIR / "node_modules"

# The release binary under test (build it with `cargo build --release`).
BINARY = os.environ.get(
    "DEVTOOLS_MCP",
    str(Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "release" / "devtools-mcp"),
)

# Exactly the flags ../shared/bench/reference.sh gives the reference server, so a configuration
# written for chrome-devtools-mcp is what is being accepted.
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
REFERENCE_FLAGS = [
    f"--executablePath={CHROMIUM}",
    "--headless",
    "--isolated",
    "--categoryExperimentalThirdParty=true",
    "--no-page-id-routing",
    "--no-usage-statistics",
    "--no-performance-crux",
    "--chromeArg=--no-sandbox",
    "--chromeArg=--disable-gpu",
    "--chromeArg=--disable-quic",
    "--chromeArg=--no-first-run",
    "--chromeArg=--disable-background-networking",
    "--chromeArg=--disable-component-update",
    "--chromeArg=--disable-sync",
]


class _Handler(http.server.SimpleHTTPRequestHandler):
    """/pages/* from tests/acceptance/pages, /node_modules/* from the npm install."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".html": "text/html; charset=utf-8",
    }

    def translate_path(self, path: str) -> str:
        path = path.split("?", 1)[0].split("#", 1)[0]
        for prefix, root in (("/pages/", PAGES), ("/node_modules/", NODE_MODULES)):
            if path.startswith(prefix):
                rel = Path(path[len(prefix):])
                if ".." in rel.parts:
                    return str(PAGES / "missing")
                return str(root / rel)
        return str(PAGES / "missing")

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, *args) -> None:  # quiet: the scripts print their own log
        pass


def serve_pages() -> tuple[str, http.server.ThreadingHTTPServer]:
    """Starts the page server on 127.0.0.1 (a free port); returns its base URL and the server."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", server


class Recorder:
    """Collects named checks with their duration; prints a summary line the CI tooling reads."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.rows: list[tuple[str, bool, float, str]] = []
        self.timings: dict[str, float] = {}

    def check(self, name: str, ok: bool, seconds: float, detail: str = "") -> bool:
        self.rows.append((name, ok, seconds, detail))
        mark = "PASS" if ok else "FAIL"
        line = f"[{mark}] {seconds * 1000:9.1f} ms  {name}"
        if detail and (not ok or os.environ.get("VERBOSE")):
            line += "\n        " + detail.replace("\n", "\n        ")
        print(line, flush=True)
        return ok

    def finish(self) -> int:
        failed = [r for r in self.rows if not r[1]]
        print(f"\n== {self.title}: {len(self.rows) - len(failed)} passed, {len(failed)} failed")
        for name, _, secs, detail in failed:
            print(f"   FAILED: {name} ({secs * 1000:.1f} ms): {detail[:2000]}")
        print(f"{len(self.rows) - len(failed)} passed, {len(failed)} failed")
        return 1 if failed else 0


class Timer:
    def __enter__(self) -> "Timer":
        self.t0 = time.perf_counter()
        self.seconds = 0.0
        return self

    def __exit__(self, *exc) -> None:
        self.seconds = time.perf_counter() - self.t0


def server_pids() -> list[int]:
    """Pids of devtools-mcp processes that are children of this process."""
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            exe = os.readlink(f"/proc/{entry}/exe")
        except (OSError, ValueError, IndexError):
            continue
        if ppid == me and os.path.basename(exe) == "devtools-mcp":
            found.append(int(entry))
    return found


def descendants(pid: int) -> list[int]:
    """All live descendants of pid (by scanning /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def rss_kb(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of a process in kB, or (0, 0) when gone."""
    rss = hwm = 0
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
    except OSError:
        pass
    return rss, hwm


def need_binary() -> None:
    if not os.access(BINARY, os.X_OK):
        sys.exit(f"no server binary at {BINARY}: build it with `cargo build --release` "
                 "(or set DEVTOOLS_MCP / CARGO_TARGET_DIR)")
