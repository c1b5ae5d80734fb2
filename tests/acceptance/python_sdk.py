"""Acceptance through the official MCP Python SDK (`pip install mcp`), from outside.

Starts the release binary with the reference's flags (see acceptlib.REFERENCE_FLAGS), serves
tests/acceptance/pages on 127.0.0.1, and drives:
  1. the classic client: stdio_client -> ClientSession.initialize -> tools, pages, scripts, page tools,
     snapshots and every bad input the SDK lets us send;
  2. the SDK's newer `Client` (mode="auto"), which sends `server/discover` first: it must connect at once,
     at MCP 2026-07-28 (mode="legacy": at 2025-11-25 through `initialize`);
  3. published libraries: Prebid.js 11 (npm prebuilt bundle) and Angular 22 in dev mode (JIT);
  4. hostile pages: sabotaged globals, console floods, dialogs, a 100 MB result, a tool that never
     settles, a busy loop, navigation and reload mid-call, a renderer crash and the browser killed
     mid-call -- with `ping` answered throughout;
  5. late registration (notifications/tools/list_changed) and --exposePageTools;
  6. MCP 2026-07-28 through `Client` in its default mode: list, call, and a tool list change received
     on a `subscriptions/listen` stream when a page registers tools late;
  7. WebMCP: a debugging tool listed and run as a third-party tool, the plain ones
     with --categoryExperimentalWebmcp.
Every step is timed. Run tests/acceptance/setup.sh first. Exit status 1 when any check failed.

Usage: $ACCEPT_DIR/venv/bin/python tests/acceptance/python_sdk.py [section ...]
       sections: basics discover expose modern prebid angular hostile webmcp (default: all)
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))
import acceptlib as A  # noqa: E402

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

R = A.Recorder("python SDK acceptance")
BASE = ""


def text_of(result: Any) -> str:
    return "\n".join(getattr(c, "text", f"<{getattr(c, 'type', '?')} content>") for c in result.content)


def short(s: str, n: int = 600) -> str:
    return s if len(s) <= n else s[:n] + f"... [{len(s)} chars]"


class Call:
    """One tools/call: result or error, and how long it took."""

    def __init__(self, name: str, args: dict, result: Any = None, error: BaseException | None = None,
                 seconds: float = 0.0) -> None:
        self.name, self.args, self.result, self.error, self.seconds = name, args, result, error, seconds

    @property
    def text(self) -> str:
        return text_of(self.result) if self.result is not None else ""

    @property
    def is_error(self) -> bool:
        return self.error is not None or bool(getattr(self.result, "is_error", False))

    def describe(self) -> str:
        req = json.dumps({"name": self.name, "arguments": self.args})
        if self.error is not None:
            err = self.error
            if isinstance(err, MCPError):
                got = f"JSON-RPC error {err.error.code}: {err.error.message}"
            else:
                got = f"{type(err).__name__}: {err}"
        else:
            got = f"isError={self.is_error} text={short(self.text)!r}"
        return f"request: {req}\nresponse: {got}"


async def call(session: ClientSession, name: str, args: dict | None = None, limit: float = 60.0) -> Call:
    args = args or {}
    t0 = time.perf_counter()
    try:
        with anyio.fail_after(limit):
            res = await session.call_tool(name, args)
        return Call(name, args, result=res, seconds=time.perf_counter() - t0)
    except BaseException as e:  # noqa: BLE001 -- report whatever the client raised
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        return Call(name, args, error=e, seconds=time.perf_counter() - t0)


def expect_ok(label: str, c: Call, *needles: str) -> bool:
    missing = [n for n in needles if n not in c.text]
    ok = not c.is_error and not missing
    detail = c.describe() + (f"\nmissing: {missing}" if missing else "")
    return R.check(label, ok, c.seconds, detail)


def kill_renderers(spids: list[int]) -> None:
    """Crashes the pages as an out-of-memory kill would: SIGKILL to the browser's renderers."""
    for s in spids:
        for k in A.descendants(s):
            try:
                with open(f"/proc/{k}/cmdline", "rb") as f:
                    if b"--type=renderer" in f.read():
                        os.kill(k, signal.SIGKILL)
            except OSError:
                pass


def expect_error(label: str, c: Call, *needles: str, max_seconds: float | None = None,
                 rpc_error: bool | None = None) -> bool:
    """A clear error: isError result (or JSON-RPC error when rpc_error) naming the problem."""
    msg = c.text
    if isinstance(c.error, MCPError):
        msg = c.error.error.message
    elif c.error is not None:
        msg = f"{type(c.error).__name__}: {c.error}"
    missing = [n for n in needles if n.lower() not in msg.lower()]
    ok = c.is_error and not missing and not (isinstance(c.error, TimeoutError))
    if rpc_error is True:
        ok = ok and isinstance(c.error, MCPError)
    if rpc_error is False:
        ok = ok and c.error is None
    if max_seconds is not None and c.seconds > max_seconds:
        ok = False
        msg += f" [took {c.seconds:.2f}s > {max_seconds}s]"
    detail = c.describe() + (f"\nmissing in message: {missing}" if missing else "")
    if max_seconds is not None and c.seconds > max_seconds:
        detail += f"\ntoo slow: {c.seconds:.2f}s > {max_seconds}s"
    return R.check(label, ok, c.seconds, detail)


async def timed_ping(session: ClientSession, label: str, max_seconds: float = 0.5) -> None:
    t0 = time.perf_counter()
    err = ""
    try:
        with anyio.fail_after(10):
            await session.send_ping()
    except BaseException as e:  # noqa: BLE001
        err = f"{type(e).__name__}: {e}"
    secs = time.perf_counter() - t0
    R.check(label, not err and secs <= max_seconds, secs, err or f"ping took {secs * 1000:.1f} ms")


def page_ids(text: str) -> dict[str, int]:
    """url -> page id from a '## Pages' section ('<id>: <title> (<url>) [selected]' or '<id>: <url>')."""
    out = {}
    for m in re.finditer(r"^(\d+): (.*?)(?: \[selected\])?$", text, re.M):
        rest = m.group(2)
        u = re.search(r"\((\S+)\)$", rest)
        out[u.group(1) if u else rest] = int(m.group(1))
    return out


def selected_page(text: str) -> int | None:
    m = re.search(r"^(\d+): \S+.*\[selected\]", text, re.M)
    return int(m.group(1)) if m else None


def find_uid(snapshot: str, role: str, name: str | None = None) -> str | None:
    for m in re.finditer(r'uid=(\S+) (\S+)(?: "([^"]*)")?', snapshot):
        if m.group(2) == role and (name is None or m.group(3) == name):
            return m.group(1)
    return None


def server_params(extra: list[str] | None = None) -> StdioServerParameters:
    if os.environ.get("ACCEPT_REFERENCE"):
        # The same checks against chrome-devtools-mcp 1.11 itself, for side-by-side timings
        # (some checks are expected to fail there: they test what the reference lacks).
        script = A.REPO.parent / "shared" / "bench" / "reference.sh"
        return StdioServerParameters(command="sh", args=[str(script), *(extra or [])])
    return StdioServerParameters(command=A.BINARY, args=A.REFERENCE_FLAGS + (extra or []))


# ---------------------------------------------------------------------------------------------
# 1. basics through the classic ClientSession


async def basics(session: ClientSession) -> None:
    c = await call(session, "list_pages")
    expect_ok("list_pages (browser launched lazily here)", c, "## Pages")

    url = f"{BASE}/pages/basic.html"
    c = await call(session, "new_page", {"url": url})
    expect_ok("new_page on a local page lists the page and its tools", c, url, "## Third-party developer tools",
              "Basic: Tools of the acceptance page")
    pid = page_ids(c.text).get(url)

    c = await call(session, "evaluate_script", {"function": "() => document.title"})
    expect_ok("evaluate_script returns the title", c, '"Acceptance: basic tools"')
    c = await call(session, "evaluate_script", {"function": "async () => ({n: 1, list: [1, 2], s: 'é✓'})"})
    expect_ok("evaluate_script async object", c, '"list"', "é✓")
    for _ in range(20):  # warm
        await call(session, "evaluate_script", {"function": "() => 1"})
    times = []
    for _ in range(50):
        c = await call(session, "evaluate_script", {"function": "() => 1 + 1"})
        times.append(c.seconds)
    times.sort()
    R.check(f"evaluate_script x50 through the SDK: p50 {times[25] * 1000:.2f} ms, p99 {times[-1] * 1000:.2f} ms",
            not c.is_error, sum(times), c.describe())

    c = await call(session, "evaluate_script", {"function": "() => { throw new Error('boom in page') }"})
    expect_error("evaluate_script: exception in the page -> isError with its message", c, "boom in page",
                 rpc_error=False)
    c = await call(session, "evaluate_script", {"function": "() => {"})
    expect_error("evaluate_script: syntax error -> isError", c, rpc_error=False)
    c = await call(session, "evaluate_script", {"function": "() => new Promise(() => {})", "timeout": 1000})
    expect_error("evaluate_script: never settles, timeout 1000 -> isError in ~1 s", c, max_seconds=3,
                 rpc_error=False)
    c = await call(session, "evaluate_script", {"function": "42"})
    expect_error("evaluate_script: not a function -> isError", c, rpc_error=False)

    c = await call(session, "list_3p_developer_tools")
    expect_ok("list_3p_developer_tools: reference text", c, "## Third-party developer tools",
              "Basic: Tools of the acceptance page", "Available tools:", 'name="add", description="Add two integers"',
              'inputSchema={"type":"object"')
    # As the reference: structuredContent only with --experimentalStructuredContent, which
    # the reference's flags do not give.
    sc = getattr(c.result, "structured_content", None) if c.result else None
    R.check("list_3p_developer_tools: no structuredContent without its flag", sc is None,
            0, f"structuredContent={short(json.dumps(sc))}")

    c = await call(session, "execute_3p_developer_tool", {"toolName": "add", "params": '{"a": 2, "b": 3}'})
    expect_ok("execute_3p_developer_tool add -> 5", c, "5")
    times = []
    for _ in range(30):
        c = await call(session, "execute_3p_developer_tool", {"toolName": "add", "params": '{"a": 2, "b": 3}'})
        times.append(c.seconds)
    times.sort()
    R.check(f"execute_3p_developer_tool x30 through the SDK: p50 {times[15] * 1000:.2f} ms, "
            f"p99 {times[-1] * 1000:.2f} ms", not c.is_error, sum(times), c.describe())
    c = await call(session, "execute_3p_developer_tool", {"toolName": "echo", "params": '{"text": "hi"}'})
    expect_ok("execute_3p_developer_tool echo (async)", c, '"hi"', "Acceptance: basic tools")
    c = await call(session, "execute_3p_developer_tool", {"toolName": "add", "params": '{"a": "two", "b": 3}'})
    expect_error("execute: schema violation (wrong type) names the path", c, "a", rpc_error=False)
    c = await call(session, "execute_3p_developer_tool", {"toolName": "add", "params": '{"a": 1}'})
    expect_error("execute: schema violation (missing required) names it", c, "b", rpc_error=False)
    c = await call(session, "execute_3p_developer_tool", {"toolName": "add", "params": '{"a": 1, "b": 2, "c": 3}'})
    expect_error("execute: schema violation (additionalProperties) names it", c, "c", rpc_error=False)
    c = await call(session, "execute_3p_developer_tool", {"toolName": "echo", "params": '{"text": ""}'})
    expect_error("execute: schema violation (minLength)", c, "text", rpc_error=False)
    c = await call(session, "execute_3p_developer_tool", {"toolName": "no_such_page_tool"})
    expect_error("execute: unknown page tool -> isError naming it", c, "no_such_page_tool", rpc_error=False)
    c = await call(session, "execute_3p_developer_tool", {"toolName": "add", "params": "{not json"})
    expect_error("execute: params not JSON -> isError", c, "json", rpc_error=False)
    c = await call(session, "execute_3p_developer_tool", {"toolName": "add", "params": "[1, 2]"})
    expect_error("execute: params not an object -> isError", c, "object", rpc_error=False)
    c = await call(session, "execute_3p_developer_tool", {"toolName": "add", "params": {"a": 1, "b": 2}})
    expect_error("execute: params given as an object, not a string -> clear error", c, "params")
    c = await call(session, "execute_3p_developer_tool", {"toolName": "fails"})
    expect_error("execute: tool throws -> isError with its message", c, "the basic tool failed on purpose",
                 rpc_error=False)
    c = await call(session, "execute_3p_developer_tool", {})
    expect_error("execute: toolName missing -> clear error", c, "toolName")

    c = await call(session, "take_snapshot")
    expect_ok("take_snapshot has uids", c, "uid=", "Basic page")
    snap = c.text
    button = find_uid(snap, "button", "Greet")
    R.check("take_snapshot lists the Greet button", button is not None, 0, short(snap, 1500))
    if button:
        c = await call(session, "execute_3p_developer_tool",
                       {"toolName": "text_of", "params": json.dumps({"el": {"uid": button}})})
        expect_ok("execute with an element {uid} from the snapshot", c, "BUTTON", "Greet")
        R.check("an element in a tool result comes back as a uid", button in c.text, 0, c.describe())
        c = await call(session, "evaluate_script",
                       {"function": "(el) => el.textContent", "args": [button]})
        expect_ok("evaluate_script with args [uid] (reference shape: uid strings)", c, "Greet")
        c = await call(session, "evaluate_script",
                       {"function": "() => window.__dtmcp.executeTool('add', {a: 40, b: 2})"})
        expect_ok("evaluate_script composes page tools via __dtmcp.executeTool", c, "42")
    c = await call(session, "execute_3p_developer_tool",
                   {"toolName": "text_of", "params": json.dumps({"el": {"uid": "99_999"}})})
    expect_error("execute with a bad uid -> error naming it", c, "99_999", rpc_error=False)
    c = await call(session, "execute_3p_developer_tool", {"toolName": "text_of", "params": '{"el": "nope"}'})
    expect_error("execute with an element given as a string -> clear error", c, "el", rpc_error=False)

    # bad inputs that the SDK lets us send
    c = await call(session, "no_such_tool", {})
    expect_error("unknown MCP tool -> JSON-RPC error (-32602) or isError", c, "no_such_tool")
    c = await call(session, "new_page", {})
    expect_error("new_page without url -> invalid arguments", c, "url")
    c = await call(session, "new_page", {"url": 123})
    expect_error("new_page url=123 -> invalid arguments", c, "url")
    c = await call(session, "new_page", {"url": "notaurl"})
    expect_error("new_page url='notaurl' -> clear error", c)
    c = await call(session, "new_page", {"url": "http://127.0.0.1:9/", "timeout": 3000})
    R.check("new_page to a closed port answers within the timeout (error page or isError)",
            c.error is None and c.seconds < 6, c.seconds, c.describe())
    c = await call(session, "select_page", {"pageId": 999})
    expect_error("select_page unknown id -> isError (reference wording)", c, "No page found")
    c = await call(session, "select_page", {"pageId": "one"})
    expect_error("select_page pageId='one' -> invalid arguments", c, "pageId")
    c = await call(session, "navigate_page", {"type": "sideways"})
    expect_error("navigate_page type='sideways' -> invalid arguments", c, "type")
    c = await call(session, "navigate_page", {"type": "url"})
    expect_error("navigate_page type=url without url -> clear error", c, "url")
    c = await call(session, "wait_for", {"text": ["never-there-zzz"], "timeout": 500})
    expect_error("wait_for missing text, timeout 500 -> isError in time", c, max_seconds=3)
    c = await call(session, "wait_for", {"text": "Basic page"})
    expect_error("wait_for text as a string, not an array -> invalid arguments", c, "text")
    c = await call(session, "evaluate_script", {})
    expect_error("evaluate_script without function -> invalid arguments", c, "function")
    c = await call(session, "list_pages", {"pageId": 424242})
    R.check("list_pages with a stray unknown pageId does not wedge", c.seconds < 5, c.seconds, c.describe())
    c = await call(session, "evaluate_script", {"function": "() => 1", "pageId": 424242})
    expect_error("evaluate_script pageId=424242 -> isError (reference wording)", c, "No page found")

    # cancellation: the SDK sends notifications/cancelled when the caller gives up
    t0 = time.perf_counter()
    with anyio.move_on_after(0.5):
        await session.call_tool("evaluate_script", {"function": "() => new Promise(() => {})", "timeout": 60000})
    waited = time.perf_counter() - t0
    await timed_ping(session, "ping right after a cancelled call")
    c = await call(session, "evaluate_script", {"function": "() => 'alive'"})
    expect_ok(f"the page answers after the cancelled call (cancel at {waited:.2f}s)", c, "alive")

    if pid is not None:
        c = await call(session, "new_page", {"url": f"{BASE}/pages/two-tabs.html"})
        expect_ok("second tab opens with its own tools", c, "TabB")
        c = await call(session, "execute_3p_developer_tool", {"toolName": "add", "params": '{"a":1,"b":1}'})
        expect_error("tab B does not run tab A's tools", c, "add", rpc_error=False)
        c = await call(session, "execute_3p_developer_tool", {"toolName": "add", "params": '{"a":1,"b":1}',
                                                              "pageId": pid})
        expect_ok("pageId routes a page tool to tab A", c, "2")
        pids = page_ids(c.text) or page_ids((await call(session, "list_pages")).text)
        tab_b = pids.get(f"{BASE}/pages/two-tabs.html")
        if tab_b is not None:
            c = await call(session, "close_page", {"pageId": tab_b})
            expect_ok("close_page tab B", c, "## Pages")
        c = await call(session, "select_page", {"pageId": pid})
        expect_ok("select_page A shows its tools again", c, "Basic: Tools of the acceptance page")


# ---------------------------------------------------------------------------------------------
# 2. newer SDK client: server/discover first


async def discover_client() -> None:
    from mcp.client.client import Client

    for mode in ("auto", "legacy"):
        t0 = time.perf_counter()
        err = ""
        version = ""
        try:
            with anyio.fail_after(20):
                async with Client(server_params(), mode=mode) as client:
                    connected = time.perf_counter() - t0
                    version = client.protocol_version
                    tools = await client.list_tools()
                    names = {t.name for t in tools.tools}
                    if "execute_3p_developer_tool" not in names:
                        err = f"tools/list lacks execute_3p_developer_tool: {sorted(names)}"
                    expected = "2026-07-28" if mode == "auto" else "2025-11-25"
                    if version != expected and not os.environ.get("ACCEPT_REFERENCE"):
                        err = f"negotiated {version}, expected {expected}"
        except BaseException as e:  # noqa: BLE001
            connected = time.perf_counter() - t0
            err = f"{type(e).__name__}: {e}"
        R.check(f"mcp.client.Client(mode={mode!r}) connects fast (protocol {version})",
                not err and connected < 1.0, connected,
                err or f"connected in {connected * 1000:.1f} ms")


# ---------------------------------------------------------------------------------------------
# 3. published libraries


async def prebid(session: ClientSession) -> None:
    url = f"{BASE}/pages/prebid.html"
    c = await call(session, "new_page", {"url": url})
    expect_ok("Prebid.js 11 page: new_page shows the group", c, "Prebid.js DevTools")
    c = await call(session, "wait_for", {"text": ["Prebid.js page"], "timeout": 5000})
    c = await call(session, "evaluate_script",
                   {"function": "() => ({version: pbjs.version, hasDevtools: Array.isArray(window.__prebidDevToolsMcp),"
                                " auction: document.body.dataset.auction || null})"})
    expect_ok("Prebid.js loaded from the npm bundle (version, devtools module)", c, "v11.36.0", '"hasDevtools":true')
    c = await call(session, "list_3p_developer_tools")
    expect_ok("Prebid: list_3p_developer_tools", c, "Prebid.js DevTools: Inspect Prebid.js auctions",
              'name="summary"', 'name="auctions"', 'name="events"')
    c = await call(session, "execute_3p_developer_tool", {"toolName": "summary"})
    expect_ok("Prebid: summary", c, "v11.36.0", "installedModules", "devtoolsMcp")
    c = await call(session, "execute_3p_developer_tool", {"toolName": "auctions", "params": "{}"})
    expect_ok("Prebid: auctions", c, "auctionId")
    c = await call(session, "execute_3p_developer_tool", {"toolName": "events", "params": '{"limit": 3}'})
    expect_ok("Prebid: events {limit: 3}", c, "eventType")
    c = await call(session, "execute_3p_developer_tool", {"toolName": "events", "params": '{"limit": -1}'})
    expect_error("Prebid: events {limit: -1} violates minimum", c, "limit", rpc_error=False)
    c = await call(session, "execute_3p_developer_tool", {"toolName": "summary", "params": '{"bogus": 1}'})
    expect_error("Prebid: summary {bogus} violates additionalProperties", c, "bogus", rpc_error=False)
    c = await call(session, "execute_3p_developer_tool", {"toolName": "summary", "params": '{"instance": "nope"}'})
    expect_ok("Prebid: summary {instance: 'nope'} -> empty list", c, "[]")


async def angular(session: ClientSession) -> None:
    url = f"{BASE}/pages/angular.html"
    c = await call(session, "new_page", {"url": url})
    R.check("Angular 22 page opens", not c.is_error, c.seconds, c.describe())
    c = await call(session, "wait_for", {"text": ["Angular acceptance"], "timeout": 15000})
    expect_ok("Angular app bootstrapped (JIT, zoneless)", c, "Angular acceptance")
    c = await call(session, "evaluate_script",
                   {"function": "() => ({ng: document.querySelector('[ng-version]')?.getAttribute('ng-version'),"
                                " boot: document.body.dataset.bootstrapped, dev: typeof ngDevMode})"})
    expect_ok("Angular dev mode, version 22.2.6", c, "22.2.6", '"yes"')
    c = await call(session, "list_3p_developer_tools")
    expect_ok("Angular: list shows group and both tools", c, "Angular", 'name="angular:di_graph"',
              'name="angular:signal_graph"')
    R.check("Angular: a group without description is not printed as 'undefined'",
            "undefined" not in c.text, 0, short(c.text, 3000))
    R.check("Angular: signal_graph's element param shown as {uid}", '"uid"' in c.text, 0, short(c.text, 4000))
    c = await call(session, "execute_3p_developer_tool", {"toolName": "angular:di_graph"})
    expect_ok("Angular: angular:di_graph", c, "elementInjectorRoots", "environmentInjectorRoot", "CounterStore")
    di_len = len(c.text)

    c = await call(session, "take_snapshot", {"verbose": True})
    expect_ok("Angular: take_snapshot verbose", c, "uid=")
    snap = c.text
    inc = find_uid(snap, "button", "Increment")
    host = find_uid(snap, "region", "Counter")  # <app-counter>, given a role by the page
    R.check("Angular: snapshot has the Increment button and the <app-counter> host",
            inc is not None and host is not None, 0, short(snap, 3000))
    if inc:
        c = await call(session, "click", {"uid": inc})
        R.check("Angular: click Increment", not c.is_error, c.seconds, c.describe())
        c = await call(session, "evaluate_script", {"function": "() => document.getElementById('count').textContent"})
        expect_ok("Angular: the signal changed the view (zoneless change detection)", c, '"1"')
        c = await call(session, "execute_3p_developer_tool",
                       {"toolName": "angular:signal_graph", "params": json.dumps({"target": {"uid": inc}})})
        expect_ok("Angular: signal_graph on a plain element inside the component (Angular answers an empty graph)",
                  c, '"nodes"')
    if host:
        c = await call(session, "execute_3p_developer_tool",
                       {"toolName": "angular:signal_graph", "params": json.dumps({"target": {"uid": host}})})
        expect_ok("Angular: signal_graph {target: {uid}} of <app-counter>", c, '"nodes"', '"edges"',
                  '"label": "count"', '"kind": "signal"', '"kind": "effect"', '"consumer"')
        R.check("Angular: signal_graph shows the clicked value (count 1)",
                re.search(r'"value": 1\b', c.text) is not None, 0, short(c.text, 3000))
    c = await call(session, "take_snapshot")
    root = find_uid(c.text, "RootWebArea")
    if root:
        c = await call(session, "execute_3p_developer_tool",
                       {"toolName": "angular:signal_graph", "params": json.dumps({"target": {"uid": root}})})
        expect_error("Angular: signal_graph on the document root -> the tool's own error", c, "HTMLElement",
                     rpc_error=False)
    c = await call(session, "execute_3p_developer_tool",
                   {"toolName": "angular:signal_graph", "params": "{}"})
    expect_error("Angular: signal_graph without target -> schema error", c, "target", rpc_error=False)
    c = await call(session, "execute_3p_developer_tool",
                   {"toolName": "angular:signal_graph", "params": '{"target": {"uid": "1_424242"}}'})
    expect_error("Angular: signal_graph with a stale uid -> error naming it", c, "1_424242", rpc_error=False)
    c = await call(session, "evaluate_script",
                   {"function": "async () => { const g = await window.__dtmcp.executeTool('angular:signal_graph',"
                                " {target: document.querySelector('app-counter')}); return g.nodes.map(n => n.label) }"})
    expect_ok("Angular: composition from evaluate_script with a live element", c, "count")
    R.check(f"Angular: di_graph result size {di_len} chars", di_len > 100, 0, "")


# ---------------------------------------------------------------------------------------------
# 4. hostile pages


async def hostile(session: ClientSession) -> None:
    spids = A.server_pids()
    url = f"{BASE}/pages/hostile-globals.html"
    c = await call(session, "new_page", {"url": url})
    expect_ok("hostile globals: new_page answers and shows the tools", c, "Hostile")
    await timed_ping(session, "hostile globals: ping during the console flood")
    c = await call(session, "list_3p_developer_tools")
    expect_ok("hostile globals: list despite sabotaged JSON/Promise/addEventListener", c,
              "Hostile: Registered before the page broke its built-ins", 'name="still_works"')
    R.check("hostile globals: the page's own __dtmcp did not replace the shim",
            "page-owned fake" not in c.text, 0, "")
    c = await call(session, "execute_3p_developer_tool", {"toolName": "still_works", "params": '{"n": 7}'})
    expect_ok("hostile globals: execute", c, '"n": 7', '"list"')
    R.check("hostile globals: result not mangled by Object.prototype.toJSON", "sabotaged" not in c.text,
            0, c.describe())
    c = await call(session, "evaluate_script", {"function": "() => ({a: [1, 2], t: document.title})"})
    expect_ok("hostile globals: evaluate_script on a page that replaced Promise/JSON (the reference answers "
              "the page's fake JSON)", c, "Acceptance: hostile globals")
    R.check("hostile globals: evaluate_script result not mangled", "sabotaged" not in c.text, 0, c.describe())
    c = await call(session, "evaluate_script", {"function": "() => window.__dtmcp.executeTool('still_works', {n: 1})"})
    expect_ok("hostile globals: __dtmcp.executeTool is the shim's", c, '"n":1')
    c = await call(session, "list_console_messages", {"pageSize": 3})
    R.check("hostile globals: list_console_messages answers under a flood", not c.is_error and c.seconds < 5,
            c.seconds, c.describe())
    c = await call(session, "navigate_page", {"type": "url", "url": f"{BASE}/pages/hostile-tools.html"})
    expect_ok("hostile tools: navigate_page shows the group (no description)", c, "Hostile tools")
    R.check("hostile tools: missing group description not printed as 'undefined'", "undefined" not in c.text,
            0, short(c.text, 2000))

    c = await call(session, "execute_3p_developer_tool", {"toolName": "ok"})
    expect_ok("hostile tools: control", c, "ok")
    c = await call(session, "execute_3p_developer_tool", {"toolName": "alert"})
    R.check("hostile tools: alert() in a tool -> handled and reported, no stall",
            c.seconds < 5 and "alert" in c.text.lower(), c.seconds, c.describe())
    c = await call(session, "execute_3p_developer_tool", {"toolName": "confirm"})
    R.check("hostile tools: confirm() in a tool -> handled and reported", c.seconds < 5 and "confirm" in c.text.lower(),
            c.seconds, c.describe())
    await timed_ping(session, "hostile tools: ping after dialogs")

    for s in spids:
        rss0 = A.rss_kb(s)
    c = await call(session, "execute_3p_developer_tool", {"toolName": "huge"}, limit=120)
    marker = c.text[-400:]
    R.check(f"hostile tools: 100 MB result -> truncated with a marker ({len(c.text)} chars back)",
            not c.is_error and len(c.text) < 2_000_000 and ("trunc" in c.text.lower()), c.seconds,
            f"tail: {marker!r}\n" + (c.describe() if c.is_error else ""))
    for s in spids:
        rss1 = A.rss_kb(s)
        R.check(f"hostile tools: server RSS after 100 MB result: {rss1[0] // 1024} MB now, peak {rss1[1] // 1024} MB "
                f"(before {rss0[0] // 1024} MB)", True, 0, "")
    with tempfile.TemporaryDirectory() as d:
        fp = os.path.join(d, "huge.json")
        c = await call(session, "execute_3p_developer_tool", {"toolName": "huge", "params": '{"mb": 100}',
                                                              "filePath": fp}, limit=120)
        size = os.path.getsize(fp) if os.path.exists(fp) else -1
        R.check(f"hostile tools: 100 MB result with filePath written whole ({size} bytes)",
                not c.is_error and size >= 100 * 1024 * 1024, c.seconds, c.describe())
    await timed_ping(session, "hostile tools: ping after 100 MB")
    c = await call(session, "execute_3p_developer_tool", {"toolName": "huge_object", "params": '{"n": 1000000}'},
                   limit=120)
    R.check("hostile tools: ~100 MB object -> truncated or clear error, server alive",
            c.error is None and c.seconds < 60, c.seconds, c.describe())
    await timed_ping(session, "hostile tools: ping after the big object")

    c = await call(session, "execute_3p_developer_tool", {"toolName": "never", "timeout": 1000})
    expect_error("hostile tools: never settles, timeout 1000 -> isError in ~1 s", c, "timed out", max_seconds=3,
                 rpc_error=False)

    # while one call hangs, the server keeps answering
    results: dict[str, Call] = {}

    async def hang() -> None:
        results["never"] = await call(session, "execute_3p_developer_tool", {"toolName": "never", "timeout": 4000})

    async with anyio.create_task_group() as tg:
        tg.start_soon(hang)
        await anyio.sleep(0.3)
        await timed_ping(session, "hostile tools: ping while a tool hangs")
        c = await call(session, "list_pages")
        R.check("hostile tools: list_pages while a tool hangs", not c.is_error and c.seconds < 0.5, c.seconds,
                c.describe())
    expect_error("hostile tools: the hanging call ends at its 4 s timeout", results["never"], "timed out",
                 max_seconds=6, rpc_error=False)

    c = await call(session, "execute_3p_developer_tool", {"toolName": "busy", "timeout": 1500})
    expect_error("hostile tools: busy loop, timeout 1500 -> isError", c, max_seconds=5, rpc_error=False)
    await timed_ping(session, "hostile tools: ping after the busy loop")
    c = await call(session, "execute_3p_developer_tool", {"toolName": "ok"})
    expect_ok("hostile tools: the page works again after the busy loop", c, "ok")

    c = await call(session, "execute_3p_developer_tool", {"toolName": "throw_string"})
    expect_error("hostile tools: thrown string keeps its text", c, "a thrown string", rpc_error=False)
    c = await call(session, "execute_3p_developer_tool", {"toolName": "reject"})
    expect_error("hostile tools: rejected promise -> isError with message", c, "rejected on purpose", rpc_error=False)
    c = await call(session, "execute_3p_developer_tool",
                   {"toolName": "strict", "params": '{"count": 0, "mode": "c", "extra": 1, "nested": {"deep": [1]}}'})
    missing = [p for p in ("count", "mode", "extra", "deep") if p not in c.text]
    R.check("hostile tools: every schema violation named with its path", c.is_error and not missing, c.seconds,
            c.describe() + (f"\nnot named: {missing}" if missing else ""))
    c = await call(session, "execute_3p_developer_tool", {"toolName": "flood"})
    expect_ok("hostile tools: 50,000 console messages in a tool", c, "flooded")
    await timed_ping(session, "hostile tools: ping after the flood")

    c = await call(session, "execute_3p_developer_tool", {"toolName": "navigate_away", "timeout": 20000})
    expect_error("hostile tools: navigation away mid-call -> isError within a second or so", c, max_seconds=2.5,
                 rpc_error=False)
    c = await call(session, "execute_3p_developer_tool", {"toolName": "add", "params": '{"a": 1, "b": 2}'})
    expect_ok("hostile tools: the new document's tools run without an explicit list", c, "3")
    c = await call(session, "execute_3p_developer_tool", {"toolName": "ok"})
    expect_error("hostile tools: the old document's tool is gone -> not found", c, "ok", rpc_error=False)

    c = await call(session, "navigate_page", {"type": "url", "url": f"{BASE}/pages/hostile-tools.html"})
    c = await call(session, "execute_3p_developer_tool", {"toolName": "reload", "timeout": 20000})
    expect_error("hostile tools: reload mid-call -> isError within a second or so", c, max_seconds=2.5,
                 rpc_error=False)
    c = await call(session, "execute_3p_developer_tool", {"toolName": "ok"})
    expect_ok("hostile tools: after the reload the tools are back", c, "ok")

    # page crash mid-call
    c = await call(session, "navigate_page", {"type": "url", "url": "chrome://crash", "timeout": 5000})
    expect_error("chrome: URLs are refused as the reference refuses them", c,
                 "Navigating to chrome: URLs is not allowed.", rpc_error=False)
    kill_renderers(spids)
    await anyio.sleep(0.5)
    c = await call(session, "evaluate_script", {"function": "() => 1"})
    R.check("renderer crash: a call on the crashed page answers at once", c.seconds < 3, c.seconds, c.describe())
    c = await call(session, "navigate_page", {"type": "url", "url": f"{BASE}/pages/basic.html"})
    expect_ok("renderer crash: the page can be navigated afterwards", c, "Basic")
    # renderer crash while a page tool is pending on that page
    c = await call(session, "navigate_page", {"type": "url", "url": f"{BASE}/pages/hostile-tools.html"})
    pending: dict[str, Call] = {}

    async def hang_then_crash() -> None:
        pending["never"] = await call(session, "execute_3p_developer_tool", {"toolName": "never", "timeout": 20000})

    async with anyio.create_task_group() as tg:
        tg.start_soon(hang_then_crash)
        await anyio.sleep(0.3)
        t_crash = time.perf_counter()
        kill_renderers(spids)
    c = pending["never"]
    after = time.perf_counter() - t_crash
    R.check(f"renderer crash mid-call: the pending tool call ends {after:.2f}s after the crash with isError",
            c.is_error and after < 2, c.seconds, c.describe())
    c = await call(session, "navigate_page", {"type": "url", "url": f"{BASE}/pages/basic.html"})
    expect_ok("renderer crash mid-call: the page is usable again", c, "Basic")

    # the browser process dies while a call is pending: the call fails at once, the next call relaunches
    c = await call(session, "navigate_page", {"type": "url", "url": f"{BASE}/pages/hostile-tools.html"})
    browser_pid = None
    for s in spids:
        for k in A.descendants(s):
            try:
                with open(f"/proc/{k}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == s:
                        browser_pid = k
            except (OSError, ValueError, IndexError):
                pass
    if browser_pid:
        async with anyio.create_task_group() as tg:
            tg.start_soon(hang_then_crash)
            await anyio.sleep(0.3)
            t_kill = time.perf_counter()
            os.kill(browser_pid, 9)  # the Chromium this test's server launched
        c = pending["never"]
        after = time.perf_counter() - t_kill
        R.check(f"browser killed mid-call: the pending call ends {after:.2f}s later with isError",
                c.is_error and after < 2, c.seconds, c.describe())
        await timed_ping(session, "ping after the browser died")
        c = await call(session, "new_page", {"url": f"{BASE}/pages/basic.html"})
        expect_ok("after the browser died, new_page relaunches it (with a note on page ids)", c, "Basic")
        R.check("the relaunch answer says page ids changed", "page" in c.text.lower() and (
            "relaunch" in c.text.lower() or "restart" in c.text.lower() or "changed" in c.text.lower()),
            0, short(c.text, 800))
    await timed_ping(session, "ping at the end of the hostile section")
    for s in spids:
        rss = A.rss_kb(s)
        R.check(f"server peak RSS over the session: {rss[1] / 1024:.1f} MB", True, 0, "")


# ---------------------------------------------------------------------------------------------
# 5. late registration, notifications/tools/list_changed, and --exposePageTools


async def expose() -> None:
    changes: list[float] = []

    async def on_message(message: Any) -> None:
        if getattr(message, "method", "") == "notifications/tools/list_changed":
            changes.append(time.perf_counter())

    async with stdio_client(server_params(["--exposePageTools"]), errlog=open(os.devnull, "w")) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            await session.initialize()
            c = await call(session, "new_page", {"url": f"{BASE}/pages/late.html"})
            expect_ok("late page: new_page lists the first group", c, "Shell: Present from the start")
            t_open = time.perf_counter()
            with anyio.move_on_after(5):
                while not [t for t in changes if t > t_open + 0.5]:
                    await anyio.sleep(0.05)
            late = [t for t in changes if t > t_open + 0.5]
            R.check("late page: notifications/tools/list_changed when the route registers its tools "
                    f"({(late[0] - t_open) if late else -1:.2f}s after new_page)", bool(late),
                    (late[0] - t_open) if late else 0, f"notifications at {[round(t - t_open, 2) for t in changes]}")
            c = await call(session, "execute_3p_developer_tool",
                           {"toolName": "cart:total", "params": '{"currency": "EUR"}'})
            expect_ok("late page: the late tool runs without an explicit list", c, "42.5")
            tools = await session.list_tools()
            names = [t.name for t in tools.tools]
            exposed = [n for n in names if "cart" in n or "version" in n]
            R.check(f"--exposePageTools: page tools are MCP tools ({exposed})", len(exposed) == 2, 0,
                    f"all names: {names}")
            cart = next((t for t in tools.tools if "cart" in t.name), None)
            if cart:
                R.check("--exposePageTools: the MCP tool carries the page tool's schema",
                        "currency" in json.dumps(cart.input_schema), 0, json.dumps(cart.input_schema))
                c = await call(session, cart.name, {"currency": "USD"})
                expect_ok(f"--exposePageTools: call {cart.name} directly", c, "USD", "42.5")
                c = await call(session, cart.name, {"currency": "GBP"})
                expect_error(f"--exposePageTools: {cart.name} with a bad enum value", c, "currency")
            n_before = len(changes)
            c = await call(session, "navigate_page", {"type": "url", "url": f"{BASE}/pages/basic.html"})
            with anyio.move_on_after(3):
                while len(changes) == n_before:
                    await anyio.sleep(0.05)
            tools = await session.list_tools()
            names = [t.name for t in tools.tools]
            R.check("--exposePageTools: after navigating, the old page's tools are gone and the new ones listed",
                    not any("cart" in n for n in names) and any("add" in n and "Basic" in n for n in names),
                    0, f"names: {names}; notifications: {len(changes) - n_before}")


# ---------------------------------------------------------------------------------------------
# 6. MCP 2026-07-28: the SDK's default mode, list, call, and a list change on a listen stream


async def modern() -> None:
    import mcp_types as types
    from mcp.client.client import Client
    from mcp.client.subscriptions import ToolsListChanged

    async with Client(server_params(), mode="auto") as client:
        version = client.protocol_version
        R.check(f"Client() default mode negotiates 2026-07-28 (got {version}, server "
                f"{client.server_info.name if client.server_info else None})", version == "2026-07-28", 0, "")
        with A.Timer() as t:
            tools = await client.list_tools()
        names = [x.name for x in tools.tools]
        R.check(f"2026-07-28 tools/list: {len(names)} tools", "new_page" in names, t.seconds, f"{names}")
        with A.Timer() as t:
            res = await client.call_tool("list_pages", {})
        R.check("2026-07-28 tools/call list_pages", not res.is_error and "## Pages" in text_of(res),
                t.seconds, short(text_of(res)))
        events: list[float] = []
        async with client.listen(tools_list_changed=True) as sub:
            R.check(f"subscriptions/listen acknowledged ({sub.honored})", bool(sub.honored.tools_list_changed),
                    0, f"{sub.honored}")
            t_open = time.perf_counter()
            res = await client.call_tool("new_page", {"url": f"{BASE}/pages/late.html"})
            ok = not res.is_error and "Shell: Present from the start" in text_of(res)
            R.check("2026-07-28 tools/call new_page late.html", ok, time.perf_counter() - t_open,
                    short(text_of(res)))
            # Each change is followed by a try of the late route's tool: the change that
            # announces it is the one after which it runs.
            ran = ""
            with anyio.move_on_after(8):
                async for event in sub:
                    if not isinstance(event, ToolsListChanged):
                        continue
                    events.append(time.perf_counter())
                    res = await client.call_tool("execute_3p_developer_tool",
                                                 {"toolName": "cart:total", "params": '{"currency": "EUR"}'})
                    if not res.is_error and "42.5" in text_of(res):
                        ran = text_of(res)
                        break
            R.check(f"tools list changes on the listen stream ({len(events)}, the last "
                    f"{(events[-1] - t_open) if events else -1:.2f}s after new_page); the late tool runs after one",
                    bool(ran), (events[-1] - t_open) if events else 0,
                    f"events at {[round(e - t_open, 2) for e in events]}; {short(ran)}")
        # ping does not exist at 2026-07-28: the SDK refuses it itself, the server answers -32601.
        try:
            await client.session.send_request(types.PingRequest(), types.EmptyResult)
            R.check("ping at 2026-07-28 is method-not-found", False, 0, "ping answered")
        except MCPError as e:
            # The server's own words ("Method not found: ping"), not an SDK-side refusal.
            R.check(f"ping at 2026-07-28 is method-not-found ({e.error.code}: {e.error.message})",
                    e.error.code == -32601 and e.error.message == "Method not found: ping", 0, e.error.message)


# ---------------------------------------------------------------------------------------------
# 7. WebMCP: document.modelContext tools (the browser gets --enable-features=WebMCP)


async def webmcp() -> None:
    def show(c: Call) -> None:
        print(f">>> {c.name} {json.dumps(c.args)}\n{c.text}\n", flush=True)

    args = ["--categoryExperimentalWebmcp"]
    async with stdio_client(server_params(args), errlog=open(os.devnull, "w")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            c = await call(session, "new_page", {"url": f"{BASE}/pages/webmcp.html"})
            c = await call(session, "list_3p_developer_tools")
            show(c)
            expect_ok("webmcp: the debugging tool is listed first, as group 'WebMCP Tools'", c,
                      "## Third-party developer tools\nWebMCP Tools: Tools exposed via WebMCP\nAvailable tools:\n"
                      "name=\"app_state\"", "\nShop: Event tools")
            c = await call(session, "execute_3p_developer_tool",
                           {"toolName": "app_state", "params": '{"key": "cart"}'})
            show(c)
            expect_ok("webmcp: execute_3p_developer_tool runs it", c, '"key": "cart"', '"value": 4')
            c = await call(session, "execute_3p_developer_tool", {"toolName": "app_state", "params": "{}"})
            show(c)
            expect_error("webmcp: its params are checked against its inputSchema", c,
                         "Invalid parameters for tool app_state")
            c = await call(session, "list_webmcp_tools")
            show(c)
            expect_ok("webmcp: list_webmcp_tools lists the plain tool with its annotations", c,
                      "## WebMCP tools\nname=\"search_products\"", '"untrustedContent":true')
            c = await call(session, "execute_webmcp_tool", {"toolName": "search_products", "input": '{"q": "tea"}'})
            show(c)
            expect_ok("webmcp: execute_webmcp_tool answers {status, output}", c,
                      '"status": "Completed"', "result for tea")


async def main(sections: list[str]) -> int:
    global BASE
    if not os.environ.get("ACCEPT_REFERENCE"):
        A.need_binary()
    BASE, httpd = A.serve_pages()
    print(f"binary: {A.BINARY}\npages:  {BASE}/pages/\nflags:  {' '.join(A.REFERENCE_FLAGS)}\n", flush=True)
    if "discover" in sections:
        await discover_client()
    if "expose" in sections:
        await expose()
    if "modern" in sections:
        await modern()
    if "webmcp" in sections:
        await webmcp()
    rest = [s for s in sections if s not in ("discover", "expose", "modern", "webmcp")]
    if rest:
        t0 = time.perf_counter()
        errlog = open(os.environ.get("SERVER_STDERR", os.devnull), "w")
        async with stdio_client(server_params(), errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                with A.Timer() as t:
                    init = await session.initialize()
                R.check(f"spawn + initialize (protocol {init.protocol_version}, server "
                        f"{init.server_info.name} {init.server_info.version})",
                        t.seconds < 1.0, time.perf_counter() - t0, "")
                with A.Timer() as t:
                    tools = await session.list_tools()
                names = [x.name for x in tools.tools]
                needed = ["list_pages", "new_page", "select_page", "close_page", "navigate_page", "wait_for",
                          "evaluate_script", "take_snapshot", "list_3p_developer_tools", "execute_3p_developer_tool"]
                missing = [n for n in needed if n not in names]
                R.check(f"tools/list: {len(names)} tools", not missing, t.seconds, f"missing: {missing}")
                ann = {x.name: x.annotations for x in tools.tools}
                R.check("tools/list: annotations present (readOnlyHint)",
                        ann.get("list_pages") is not None and ann["list_pages"].read_only_hint is True, 0,
                        f"list_pages annotations: {ann.get('list_pages')}")
                await timed_ping(session, "ping before any browser")
                if "basics" in rest:
                    await basics(session)
                if "prebid" in rest:
                    await prebid(session)
                if "angular" in rest:
                    await angular(session)
                if "hostile" in rest:
                    await hostile(session)
                pids = A.server_pids()
                kids = [k for p in pids for k in A.descendants(p)]
            t_close = time.perf_counter()
        # stdin closed by the SDK: the browser must be gone within a second
        deadline = time.perf_counter() + 3
        alive = kids
        while time.perf_counter() < deadline:
            alive = [k for k in kids if os.path.exists(f"/proc/{k}") and
                     not open(f"/proc/{k}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"]
            if not alive and not [p for p in pids if os.path.exists(f"/proc/{p}")]:
                break
            await anyio.sleep(0.05)
        R.check(f"after the client closes: server and {len(kids)} browser processes gone",
                not alive, time.perf_counter() - t_close, f"still alive: {alive}")
        httpd.shutdown()
    return R.finish()


if __name__ == "__main__":
    wanted = sys.argv[1:] or ["basics", "discover", "expose", "modern", "prebid", "angular", "hostile", "webmcp"]
    sys.exit(anyio.run(main, wanted))
