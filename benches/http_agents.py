"""Many agents over HTTP against the same over stdio, side by side, from one client in Python
(standard library only), printing percentiles and asserting nothing:

1. latency: `execute_3p_developer_tool` (the bench page's `add`) over one stdio server, and over
   one keep-alive HTTP connection to a `--port` server (a handshake session), alternating in
   rounds so that both sides see the same machine load;
2. memory: N agents with one page each — N stdio servers (N browsers) against one `--port`
   server with N sessions (one browser, N contexts) — as the PSS of every browser process
   (with its anonymous, file-backed and shared-memory parts), and as the memory they hold with
   each physical page counted once, which other processes mapping the same files do not move.

    python3 benches/http_agents.py target/release/devtools-mcp [--agents 8] [--calls 400]

Both sides pay the same client: JSON encoding and decoding in Python, a pipe line read against
an HTTP response read; the figures are end to end as an agent's client would see them.
"""

import argparse
import array
import http.client
import http.server
import json
import os
import re
import statistics
import subprocess
import threading
import time

PAGE = b"""<!doctype html><meta charset="utf-8"><title>Bench tools</title><script>
window.addEventListener('devtoolstooldiscovery', (event) => event.respondWith({
  name: 'bench', description: 'Bench fixture tools', tools: [{name: 'add',
    description: 'Returns {sum: a + b}', inputSchema: {type: 'object', properties:
    {a: {type: 'number'}, b: {type: 'number'}}, required: ['a', 'b']},
    execute: ({a, b}) => ({sum: a + b})}]}));
</script><h1>Bench tools</h1>"""

INIT = {"protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"}}


def serve_page():
    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{httpd.server_address[1]}/tools.html"


class Stdio:
    def __init__(self, binary):
        self.proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.next = 0
        self.request("initialize", INIT)
        self.notify("notifications/initialized")

    def notify(self, method):
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next += 1
        line = {"jsonrpc": "2.0", "id": self.next, "method": method, "params": params}
        self.proc.stdin.write(json.dumps(line).encode() + b"\n")
        self.proc.stdin.flush()
        while True:
            answer = json.loads(self.proc.stdout.readline())
            if answer.get("id") == self.next:
                return answer

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(10)


class HttpSession:
    def __init__(self, addr):
        host, port = addr.split(":")
        self.conn = http.client.HTTPConnection(host, int(port))
        self.session = None
        self.next = 0
        self.request("initialize", INIT)
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def post(self, message):
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        self.conn.request("POST", "/mcp", json.dumps(message), headers)
        response = self.conn.getresponse()
        body = response.read()
        self.session = self.session or response.getheader("Mcp-Session-Id")
        return body

    def request(self, method, params):
        self.next += 1
        body = self.post({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params})
        return json.loads(body)

    def close(self):
        self.conn.request("DELETE", "/mcp", headers={"Mcp-Session-Id": self.session})
        self.conn.getresponse().read()


def start_http(binary):
    proc = subprocess.Popen([binary, "--port", "0"], stderr=subprocess.PIPE, text=True)
    for line in proc.stderr:
        found = re.search(r"listening on http://(\S+)/mcp", line)
        if found:
            threading.Thread(target=proc.stderr.read, daemon=True).start()
            return proc, found.group(1)
    raise SystemExit("the HTTP server did not start")


def call(client, tool, args):
    answer = client.request("tools/call", {"name": tool, "arguments": args})
    assert not answer["result"].get("isError"), answer
    return answer


def timed_add(client, i):
    params = json.dumps({"a": i, "b": 2 * i})
    started = time.perf_counter()
    answer = call(client, "execute_3p_developer_tool", {"toolName": "add", "params": params})
    took = time.perf_counter() - started
    assert str(3 * i) in answer["result"]["content"][0]["text"], answer
    return took * 1000


def percentiles(samples):
    q = statistics.quantiles(samples, n=100)
    return f"p50 {statistics.median(samples):.3f} ms  p90 {q[89]:.3f}  p99 {q[98]:.3f}"


def latency(binary, page, calls):
    stdio = Stdio(binary)
    proc, addr = start_http(binary)
    http_session = HttpSession(addr)
    for client in (stdio, http_session):
        call(client, "new_page", {"url": page})
        call(client, "list_3p_developer_tools", {})
        for i in range(20):
            timed_add(client, i)
    sides = {"stdio": [], "http": []}
    for r in range(calls // 20):
        for name, client in (("stdio", stdio), ("http", http_session))[:: 1 if r % 2 else -1]:
            sides[name] += [timed_add(client, r * 20 + i) for i in range(20)]
    for name, samples in sides.items():
        print(f"execute_3p_developer_tool over {name:5}: {percentiles(samples)}  (n={len(samples)})")
    p50 = {k: statistics.median(v) for k, v in sides.items()}
    print(f"  http - stdio at p50: {p50['http'] - p50['stdio']:+.3f} ms")
    http_session.close()
    stdio.close()
    proc.terminate()
    proc.wait(10)


def descendants(pid):
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for c in children.get(p, []):
            out.append(c)
            todo.append(c)
    return out


def browser_pss_mb(server_pids):
    """The PSS of every process below the servers (the browsers), in MB, with its anonymous,
    file-backed and shared-memory parts; and how many processes."""
    parts, count = {"Pss": 0, "Pss_Anon": 0, "Pss_File": 0, "Pss_Shmem": 0}, 0
    for pid in server_pids:
        for p in descendants(pid):
            try:
                with open(f"/proc/{p}/smaps_rollup") as f:
                    rollup = f.read()
            except OSError:
                continue
            for key in parts:
                found = re.search(rf"^{key}:\s+(\d+) kB", rollup, re.M)
                parts[key] += int(found.group(1)) / 1024 if found else 0
            count += 1
    return parts, count


def resident_ranges(pid):
    """The address ranges of a process that have resident pages."""
    ranges, current = [], None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            first = line.split(None, 1)[0]
            if "-" in first and not first.endswith(":"):
                current = tuple(int(x, 16) for x in first.split("-"))
            elif first == "Rss:" and current and int(line.split()[1]) > 0:
                ranges.append(current)
    return ranges


def held_once_mb(server_pids):
    """The memory the browsers hold, each physical page counted once however many of their
    processes map it (page frame numbers from /proc/PID/pagemap; root only, else None). PSS
    also splits a page with processes outside the set, such as other browsers of the same
    executable running on the machine: its file-backed part falls when they run; this does not."""
    frames, mask = set(), (1 << 55) - 1
    for pid in server_pids:
        for p in descendants(pid):
            try:
                ranges = resident_ranges(p)
                fd = os.open(f"/proc/{p}/pagemap", os.O_RDONLY)
            except OSError:
                continue
            try:
                for lo, hi in ranges:
                    entries = array.array("Q")
                    entries.frombytes(os.pread(fd, ((hi - lo) >> 12) * 8, (lo >> 12) * 8))
                    frames.update(e & mask for e in entries if e >> 63)
            except OSError:
                pass  # the process ended meanwhile
            finally:
                os.close(fd)
    if frames <= {0}:
        return None  # frame numbers are hidden from this user
    return len(frames) * 4096 / 1048576


def held(server_pids):
    """PSS with its parts, the memory held counted once, and the process count."""
    parts, count = browser_pss_mb(server_pids)
    return parts, held_once_mb(server_pids), count


def describe(parts, once, count):
    once_text = f", {once:.0f} MB counted once" if once else ""
    return (f"{parts['Pss']:.0f} MB PSS (anon {parts['Pss_Anon']:.0f}, file {parts['Pss_File']:.0f}, "
            f"shmem {parts['Pss_Shmem']:.0f}){once_text} in {count} processes")


def settle():
    time.sleep(3)  # the pages' renderers finish their start-up work before PSS is read


def memory(binary, page, agents):
    servers = [Stdio(binary) for _ in range(agents)]
    for s in servers:
        call(s, "navigate_page", {"url": page})
    settle()
    stdio = held([s.proc.pid for s in servers])
    for s in servers:
        s.close()
    proc, addr = start_http(binary)
    sessions = [HttpSession(addr) for _ in range(agents)]
    for s in sessions:
        call(s, "navigate_page", {"url": page})
    settle()
    http = held([proc.pid])
    print(f"{agents} agents, a page each: {agents} stdio servers' browsers {describe(*stdio)}")
    print(f"  one --port server's browser {describe(*http)}")
    ratio = f"{http[0]['Pss'] / stdio[0]['Pss']:.3f}x PSS"
    if http[1] and stdio[1]:
        ratio += f", {http[1] / stdio[1]:.3f}x counted once"
    print(f"  --port / stdio: {ratio}")
    for s in sessions:
        s.close()
    proc.terminate()
    proc.wait(10)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--agents", type=int, default=8)
    parser.add_argument("--calls", type=int, default=400)
    args = parser.parse_args()
    page = serve_page()
    latency(args.binary, page, args.calls)
    memory(args.binary, page, args.agents)


main()
