"""Acceptance of the MCP framing with a raw subprocess: what no SDK will send.

Malformed lines, non-object JSON, batches, unknown methods (server/discover without the
2026-07-28 envelope among them), version negotiation, MCP 2026-07-28 by hand (envelope errors,
the listen stream ended on EOF), huge and non-UTF-8 lines, cancellation, requests before
initialize, and shutdown on EOF and on SIGTERM (the browser and profile gone within a second).
Runs the release binary with the reference's flags. Prints each exchange and its time.

Usage: python3 tests/acceptance/raw_stdio.py      (no third-party packages needed)
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import acceptlib as A  # noqa: E402

R = A.Recorder("raw stdio acceptance")


class Server:
    def __init__(self, extra: list[str] | None = None) -> None:
        self.proc = subprocess.Popen([A.BINARY, *A.REFERENCE_FLAGS, *(extra or [])], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stderr: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _read_err(self) -> None:
        assert self.proc.stderr
        for line in self.proc.stderr:
            self.stderr.append(line)

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, msg: dict) -> None:
        self.send_raw(json.dumps(msg).encode() + b"\n")

    def recv(self, timeout: float = 10.0) -> dict | None:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            return None
        if line is None:
            return None
        try:
            return json.loads(line)
        except ValueError:
            return {"__not_json__": line.decode(errors="replace")}

    def recv_id(self, want, timeout: float = 10.0) -> tuple[dict | None, list[dict]]:
        """The response with id == want; other messages seen meanwhile are returned too."""
        deadline = time.perf_counter() + timeout
        others = []
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                return None, others
            m = self.recv(left)
            if m is None:
                return None, others
            if m.get("id") == want and ("result" in m or "error" in m):
                return m, others
            others.append(m)

    def exchange(self, label: str, payload: bytes | dict, want_id, check, timeout: float = 10.0,
                 max_seconds: float | None = None) -> dict | None:
        raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode() + b"\n"
        t0 = time.perf_counter()
        self.send_raw(raw)
        resp, _ = self.recv_id(want_id, timeout)
        secs = time.perf_counter() - t0
        ok = resp is not None and bool(check(resp))
        if max_seconds is not None and secs > max_seconds:
            ok = False
        shown = raw if len(raw) < 300 else raw[:300] + b"... [%d bytes]" % len(raw)
        R.check(label, ok, secs, f"request: {shown!r}\nresponse: {json.dumps(resp)[:800] if resp else resp}")
        return resp

    def init(self, version: str = "2025-06-18") -> dict | None:
        return self.exchange(f"initialize {version}", {"jsonrpc": "2.0", "id": "init", "method": "initialize",
                             "params": {"protocolVersion": version, "capabilities": {},
                                        "clientInfo": {"name": "raw", "version": "0"}}},
                             "init", lambda r: "result" in r, max_seconds=1)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def err_code(code: int):
    return lambda r: r.get("error", {}).get("code") == code


def ping(s: Server, label: str, i: int) -> None:
    s.exchange(label, {"jsonrpc": "2.0", "id": f"ping{i}", "method": "ping"}, f"ping{i}",
               lambda r: r.get("result") == {}, max_seconds=0.5)


def framing() -> None:
    s = Server()
    try:
        # requests before initialize
        s.exchange("ping before initialize answered", {"jsonrpc": "2.0", "id": 0, "method": "ping"}, 0,
                   lambda r: "result" in r or "error" in r, max_seconds=0.5)
        s.exchange("server/discover -> -32601 at once (SDKs wait 10 s otherwise)",
                   {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}}, 1, err_code(-32601),
                   max_seconds=0.2)
        s.init("1999-01-01")
        s.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        ping(s, "ping after initialize", 1)
        s.exchange("malformed line -> -32700 with id null", b"{this is not json\n", None, err_code(-32700),
                   max_seconds=0.5)
        ping(s, "server carries on after a malformed line", 2)
        s.exchange("truncated JSON object -> -32700", b'{"jsonrpc":"2.0","id":5,"method":\n', None,
                   err_code(-32700), max_seconds=0.5)
        s.exchange("invalid UTF-8 -> -32700", b'{"jsonrpc":"2.0","id":6,"method":"ping\xff\xfe"}\n', None,
                   lambda r: r.get("error", {}).get("code") in (-32700, -32600), max_seconds=0.5)
        ping(s, "server carries on after invalid UTF-8", 3)
        s.exchange("JSON that is not an object (42) -> -32600", b"42\n", None,
                   lambda r: r.get("error", {}).get("code") in (-32600, -32700), max_seconds=0.5)
        s.exchange("empty batch [] -> -32600", b"[]\n", None,
                   lambda r: r.get("error", {}).get("code") in (-32600, -32700), max_seconds=0.5)
        s.exchange("batch with a ping -> an error, or an answer to the ping",
                   b'[{"jsonrpc":"2.0","id":"b1","method":"ping"}]\n', None,
                   lambda r: "error" in r, timeout=2, max_seconds=0.5)
        ping(s, "server carries on after batches", 4)
        s.exchange("request without jsonrpc field -> -32600 (or answered)", {"id": 7, "method": "ping"}, 7,
                   lambda r: "error" in r or "result" in r, max_seconds=0.5)
        s.exchange("method not a string -> -32600", {"jsonrpc": "2.0", "id": 8, "method": 12}, 8,
                   lambda r: r.get("error", {}).get("code") in (-32600, -32601), max_seconds=0.5)
        s.exchange("unknown method -> -32601", {"jsonrpc": "2.0", "id": 9, "method": "tools/frobnicate"}, 9,
                   err_code(-32601), max_seconds=0.5)
        s.exchange("resources/list (no such capability) -> -32601",
                   {"jsonrpc": "2.0", "id": 10, "method": "resources/list"}, 10, err_code(-32601), max_seconds=0.5)
        s.exchange("tools/call without params -> -32602", {"jsonrpc": "2.0", "id": 11, "method": "tools/call"}, 11,
                   err_code(-32602), max_seconds=0.5)
        s.exchange("tools/call with name 42 -> -32602",
                   {"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": {"name": 42}}, 12,
                   err_code(-32602), max_seconds=0.5)
        s.exchange("tools/call unknown tool -> -32602 (as the reference)",
                   {"jsonrpc": "2.0", "id": 13, "method": "tools/call", "params": {"name": "nope", "arguments": {}}},
                   13, lambda r: r.get("error", {}).get("code") == -32602 or r.get("result", {}).get("isError"),
                   max_seconds=0.5)
        s.exchange("tools/call arguments not an object -> invalid params",
                   {"jsonrpc": "2.0", "id": 14, "method": "tools/call",
                    "params": {"name": "list_pages", "arguments": [1]}},
                   14, lambda r: "error" in r or r.get("result", {}).get("isError"), max_seconds=0.5)
        s.exchange("a notification with an unknown method gets no answer (next ping is first)",
                   b'{"jsonrpc":"2.0","method":"notifications/whatever"}\n{"jsonrpc":"2.0","id":"p5","method":"ping"}\n',
                   "p5", lambda r: True, max_seconds=0.5)
        s.exchange("response from the client to nothing is ignored",
                   b'{"jsonrpc":"2.0","id":"zzz","result":{}}\n{"jsonrpc":"2.0","id":"p6","method":"ping"}\n',
                   "p6", lambda r: True, max_seconds=0.5)
        big = json.dumps({"jsonrpc": "2.0", "id": 15, "method": "ping", "params": {"pad": "x" * 10_000_000}})
        s.exchange("a 10 MB line is read and answered", big.encode() + b"\n", 15, lambda r: "result" in r,
                   timeout=20, max_seconds=2)
        s.exchange("CRLF line ending accepted", b'{"jsonrpc":"2.0","id":16,"method":"ping"}\r\n', 16,
                   lambda r: "result" in r, max_seconds=0.5)
        s.exchange("blank lines are ignored", b'\n\n   \n{"jsonrpc":"2.0","id":17,"method":"ping"}\n', 17,
                   lambda r: "result" in r, max_seconds=0.5)
        s.exchange("duplicate initialize -> answered or clear error",
                   {"jsonrpc": "2.0", "id": 18, "method": "initialize",
                    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "raw", "version": "0"}}},
                   18, lambda r: "result" in r or "error" in r, max_seconds=0.5)

        # a call in flight, then cancelled
        s.send({"jsonrpc": "2.0", "id": 20, "method": "tools/call",
                "params": {"name": "new_page", "arguments": {"url": "about:blank"}}})
        resp, _ = s.recv_id(20, 30)
        R.check("new_page about:blank (browser launch) answered", resp is not None and "result" in resp, 0,
                json.dumps(resp)[:500])
        t0 = time.perf_counter()
        s.send({"jsonrpc": "2.0", "id": 21, "method": "tools/call",
                "params": {"name": "evaluate_script",
                           "arguments": {"function": "() => new Promise(() => {})", "timeout": 60000}}})
        time.sleep(0.3)
        t0 = time.perf_counter()
        s.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 21,
                                                                                 "reason": "user gave up"}})
        s.send({"jsonrpc": "2.0", "id": 22, "method": "ping"})
        resp, others = s.recv_id(22, 5)
        R.check("ping answered right after notifications/cancelled", resp is not None, time.perf_counter() - t0,
                json.dumps(others)[:400])
        late, _ = s.recv_id(21, 1.5)
        R.check("the cancelled call gets no response (MCP spec: SHOULD NOT respond)", late is None, 0,
                json.dumps(late)[:400] if late else "")
        s.send({"jsonrpc": "2.0", "id": 23, "method": "tools/call",
                "params": {"name": "evaluate_script", "arguments": {"function": "() => 'after cancel'"}}})
        resp, _ = s.recv_id(23, 10)
        R.check("the page works after the cancellation", resp is not None and "after cancel" in json.dumps(resp), 0,
                json.dumps(resp)[:400])
        s.exchange("cancel of an unknown id is ignored",
                   b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"ghost"}}\n'
                   b'{"jsonrpc":"2.0","id":"p7","method":"ping"}\n', "p7", lambda r: True, max_seconds=0.5)

        # many requests in flight at once
        t0 = time.perf_counter()
        for i in range(100):
            s.send({"jsonrpc": "2.0", "id": 1000 + i, "method": "tools/call",
                    "params": {"name": "evaluate_script", "arguments": {"function": f"() => {i}"}}})
        got = set()
        deadline = time.perf_counter() + 30
        while len(got) < 100 and time.perf_counter() < deadline:
            m = s.recv(deadline - time.perf_counter())
            if m and isinstance(m.get("id"), int) and 1000 <= m["id"] < 1100:
                got.add(m["id"])
        R.check(f"100 evaluate_script calls pipelined: {len(got)} answered", len(got) == 100,
                time.perf_counter() - t0, "")

        # EOF: the server exits, the browser and its profile are gone within a second
        kids = A.descendants(s.proc.pid)
        profiles = profile_dirs(kids)
        t0 = time.perf_counter()
        assert s.proc.stdin
        s.proc.stdin.close()
        gone = wait_gone(s.proc, kids, 3)
        secs = time.perf_counter() - t0
        left = [p for p in profiles if os.path.exists(p)]
        R.check(f"stdin EOF: server exit {s.proc.returncode}, {len(kids)} children gone, profile removed",
                gone and not left and secs < 1.0, secs, f"children alive: {[k for k in kids if alive(k)]}, "
                f"profiles left: {left}")
    finally:
        s.close()
    sys.stderr.write(b"".join(s.stderr[-20:]).decode(errors="replace"))


def versions() -> None:
    for v in ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"):
        s = Server()
        try:
            r = s.init(v)
            got = (r or {}).get("result", {}).get("protocolVersion")
            R.check(f"version {v} negotiated as itself (got {got})", got == v, 0, "")
        finally:
            s.close()
    s = Server()
    try:
        r = s.init("2099-12-31")
        got = (r or {}).get("result", {}).get("protocolVersion")
        R.check(f"unknown version -> our latest (got {got})", got == "2025-11-25", 0, "")
    finally:
        s.close()


MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}}


def modern() -> None:
    """MCP 2026-07-28 by hand: what no SDK sends (broken envelopes), and the listen stream's end."""
    s = Server()
    try:
        def req(i: str, method: str, meta: dict | None, **params) -> dict:
            if meta is not None:
                params["_meta"] = meta
            return {"jsonrpc": "2.0", "id": i, "method": method, "params": params}

        s.exchange("2026-07-28: server/discover with no handshake", req("d", "server/discover", MODERN), "d",
                   lambda r: r.get("result", {}).get("supportedVersions") == ["2026-07-28"]
                   and r["result"].get("resultType") == "complete", max_seconds=1)
        s.exchange("2026-07-28: no clientCapabilities -> -32602",
                   req("c", "tools/list", {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}), "c",
                   err_code(-32602))
        s.exchange("2026-07-28: an unknown version -> -32022 with data.supported and data.requested",
                   req("v", "tools/list", {**MODERN, "io.modelcontextprotocol/protocolVersion": "1900-01-01"}), "v",
                   lambda r: r.get("error", {}).get("code") == -32022
                   and r["error"].get("data", {}).get("requested") == "1900-01-01"
                   and "2026-07-28" in r["error"]["data"].get("supported", []))
        s.exchange("2026-07-28: a request without the envelope -> -32602", req("n", "tools/list", None), "n",
                   err_code(-32602))
        s.exchange("2026-07-28: ping does not exist -> -32601", req("p", "ping", MODERN), "p", err_code(-32601))
        s.exchange("2026-07-28: tools/list has resultType, ttlMs, cacheScope", req("l", "tools/list", MODERN), "l",
                   lambda r: {"resultType", "ttlMs", "cacheScope", "tools"} <= set(r.get("result", {})))
        s.send(req("sub", "subscriptions/listen", MODERN, notifications={"toolsListChanged": True}))
        ack = s.recv(5)
        R.check("2026-07-28: subscriptions/listen acknowledged with its id",
                (ack or {}).get("method") == "notifications/subscriptions/acknowledged"
                and ack["params"]["_meta"].get("io.modelcontextprotocol/subscriptionId") == "sub", 0, json.dumps(ack))
        s.proc.stdin.close()
        closed, _ = s.recv_id("sub", 10)
        R.check("2026-07-28: stdin closed -> the listen request is answered (graceful end)",
                (closed or {}).get("result", {}).get("_meta", {}).get("io.modelcontextprotocol/subscriptionId")
                == "sub", 0, json.dumps(closed))
    finally:
        s.close()


def sigterm() -> None:
    s = Server()
    try:
        s.init()
        s.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "new_page", "arguments": {"url": "about:blank"}}})
        s.recv_id(2, 30)
        kids = A.descendants(s.proc.pid)
        profiles = profile_dirs(kids)
        t0 = time.perf_counter()
        s.proc.send_signal(signal.SIGTERM)
        gone = wait_gone(s.proc, kids, 3)
        secs = time.perf_counter() - t0
        left = [p for p in profiles if os.path.exists(p)]
        R.check(f"SIGTERM: server exit {s.proc.returncode}, {len(kids)} children gone, profile removed",
                gone and not left and secs < 1.0, secs, f"profiles left: {left}")
    finally:
        s.close()


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(proc: subprocess.Popen, kids: list[int], limit: float) -> bool:
    deadline = time.perf_counter() + limit
    while time.perf_counter() < deadline:
        if proc.poll() is not None and not any(alive(k) for k in kids):
            return True
        time.sleep(0.02)
    return False


def profile_dirs(pids: list[int]) -> list[str]:
    out = set()
    for p in pids:
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                for arg in f.read().split(b"\0"):
                    if arg.startswith(b"--user-data-dir="):
                        out.add(arg.split(b"=", 1)[1].decode())
        except OSError:
            pass
    return sorted(out)


if __name__ == "__main__":
    A.need_binary()
    print(f"binary: {A.BINARY}\n", flush=True)
    framing()
    versions()
    modern()
    sigterm()
    sys.exit(R.finish())
