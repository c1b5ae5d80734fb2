#!/usr/bin/env python3
"""The browser's memory over a long session of navigations, for any stdio MCP server.

One tab navigates back and forth between two same-origin pages that each expose a page tool
(`navigate_page` then `list_3p_developer_tools`, which runs discovery on the new document),
hundreds of times. Every `--every` navigations (and after the first) it reads the browser
tree's PSS and its anonymous part (`/proc/PID/smaps_rollup`, summed over the server's Chromium
descendants) and the number of browser processes, 1 s after the last call; with `--settle S`,
once more S seconds after the last navigation (what Chromium gives back by itself once the tab
is quiet). Two pages: light (a paragraph and one tool) and heavier (300 list items and 2,000
objects of state beside the tool). Several servers run one after another in the same run, so
the columns compare:

    python3 benches/navigation_memory.py \
        ours-shell='target/release/devtools-mcp --headless' \
        ours-full='target/release/devtools-mcp --headless --headlessShell=false' \
        reference=../shared/bench/reference.sh

It reuses the MCP client and process watcher of the side-by-side harness (`../shared/bench/`,
`--harness` names another folder). Prints one line per checkpoint and a table at the end,
writes the JSON report to `--out`; asserts nothing.
"""
from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import shlex
import sys
import tempfile
import threading
import time

TOOL = """<script>
window.addEventListener('devtoolstooldiscovery', (event) => event.respondWith({
  name: 'nav', description: 'Navigation bench tools', tools: [{
    name: 'count', description: 'Returns how many objects of state the page holds',
    inputSchema: {type: 'object', properties: {}},
    execute: () => ({count: window.state ? window.state.length : 0})}]}));
</script>"""

LIGHT = ("<!doctype html><html><head><meta charset='utf-8'><title>light %s</title></head>"
         "<body><p>A light page.</p>" + TOOL + "</body></html>")

HEAVY = ("<!doctype html><html><head><meta charset='utf-8'><title>heavier %s</title></head><body><ul>"
         + "".join(f"<li class='item'>Item {i} <b>bold</b> <a href='#{i}'>link</a></li>"
                   for i in range(300))
         + "</ul><script>window.state = Array.from({length: 2000}, (_, i) => ({id: i, "
           "name: 'item ' + i, tags: ['a', 'b', String(i)], nested: {x: i, y: i * 2}}));</script>"
         + TOOL + "</body></html>")

PAGES = {"light": LIGHT, "heavier": HEAVY}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002
        pass


class Site:
    """Both pages of each kind, served on 127.0.0.1."""

    def __init__(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="navigation-memory-")
        for kind, html in PAGES.items():
            for name in ("a", "b"):
                with open(os.path.join(self._dir.name, f"{kind}-{name}.html"), "w") as f:
                    f.write(html % name)
        handler = functools.partial(_Quiet, directory=self._dir.name)
        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    def url(self, kind: str, name: str) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/{kind}-{name}.html"

    def close(self) -> None:
        self._httpd.shutdown()
        self._dir.cleanup()


def anon_pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss_Anon:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def checkpoint(watch, navigations: int) -> dict:
    time.sleep(1.0)
    _, browser = watch.split()
    snap = watch.checkpoint(f"nav-{navigations}")
    return {"navigations": navigations, "tree_pss_kb": snap["browser_pss_kb"],
            "tree_anon_kb": sum(anon_pss_kb(pid) for pid in browser),
            "processes": snap["browser_processes"]}


def call(client, name: str, args: dict) -> str:
    r = client.call_tool(name, args, 90)
    if not r.answered or r.is_error:
        raise RuntimeError(f"{name} {args}: {r.text[:300] if r.answered else 'no answer'}")
    return r.text


def report_row(label: str, kind: str, row: dict, when: str) -> None:
    print(f"{label} {kind} {when}: tree {row['tree_pss_kb'] / 1024:6.1f} MB,"
          f" anonymous {row['tree_anon_kb'] / 1024:6.1f} MB, {row['processes']} processes", flush=True)


def series(harness, argv: list[str], site: Site, kind: str, navs: int, every: int, label: str,
           settle: float) -> dict:
    stderr = tempfile.mktemp(prefix=f"navigation-memory-{label}-", suffix=".log")
    client = harness.McpClient(argv, stderr)
    rows, times = [], []
    try:
        if client.initialize() is None or client.list_tools() is None:
            raise RuntimeError(f"{label}: the server did not initialize")
        watch = harness.ProcessWatcher(client.proc.pid)
        for n in range(navs + 1):
            started = time.perf_counter()
            call(client, "navigate_page", {"type": "url", "url": site.url(kind, "ab"[n % 2])})
            times.append((time.perf_counter() - started) * 1000.0)
            listing = call(client, "list_3p_developer_tools", {})
            if n in (0, navs) and "count" not in listing:
                raise RuntimeError(f"{label}: the page's tool is not listed after navigation {n}")
            if n == 0 or n % every == 0:
                row = checkpoint(watch, n)
                rows.append(row)
                report_row(label, kind, row, f"after {n:4d} navigations")
        settled = None
        if settle > 0:
            # What Chromium gives back by itself once the tab stops navigating.
            time.sleep(settle)
            settled = checkpoint(watch, navs)
            report_row(label, kind, settled, f"{settle:.0f} s later")
    finally:
        client.close()
    return {"label": label, "page": kind, "checkpoints": rows, "settled": settled,
            "navigate_ms": harness.summarize(times[1:])}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--navigations", type=int, default=300)
    parser.add_argument("--every", type=int, default=50)
    parser.add_argument("--pages", default="light,heavier")
    parser.add_argument("--settle", type=float, default=0.0,
                        help="then wait this many seconds without calls and read the tree again")
    parser.add_argument("--harness", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                          "..", "..", "shared", "bench"))
    parser.add_argument("--out")
    parser.add_argument("servers", nargs="+", help="LABEL=COMMAND, run in this order for each page")
    opts = parser.parse_args()
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.abspath(opts.harness))
    import mcp_bench as harness  # noqa: PLC0415 (the harness is beside the repository)

    servers = [(label, shlex.split(command)) for label, _, command in
               (s.partition("=") for s in opts.servers)]
    site = Site()
    report = {"started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
              "load_average": os.getloadavg(), "series": []}
    try:
        for kind in opts.pages.split(","):
            for label, argv in servers:
                report["series"].append(series(harness, argv, site, kind, opts.navigations,
                                               opts.every, label, opts.settle))
    finally:
        site.close()
    report["load_average_after"] = os.getloadavg()
    print(f"\nload average {report['load_average'][0]:.2f} at the start, "
          f"{report['load_average_after'][0]:.2f} at the end")
    print("| page | server | tree PSS start → end (growth) | anonymous start → end | processes | navigate p50 |"
          " anonymous, settled |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for s in report["series"]:
        first, last = s["checkpoints"][0], s["checkpoints"][-1]
        mb = lambda kb: kb / 1024  # noqa: E731
        settled = f"{mb(s['settled']['tree_anon_kb']):.0f} MB" if s["settled"] else "—"
        print(f"| {s['page']} | {s['label']} | {mb(first['tree_pss_kb']):.0f} → {mb(last['tree_pss_kb']):.0f} MB"
              f" ({mb(last['tree_pss_kb'] - first['tree_pss_kb']):+.0f}) | {mb(first['tree_anon_kb']):.0f} →"
              f" {mb(last['tree_anon_kb']):.0f} MB ({mb(last['tree_anon_kb'] - first['tree_anon_kb']):+.0f}) |"
              f" {first['processes']} → {last['processes']} | {s['navigate_ms']['p50']:.1f} ms | {settled} |")
    if opts.out:
        with open(opts.out, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
