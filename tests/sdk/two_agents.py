"""Two clients of the official MCP Python SDK at once against one `devtools-mcp --port` server:
each gets an agent of its own (its own browser context), and neither sees the other's page or
cookie. With SDK 1.x the clients use `streamablehttp_client` and the handshake; with 2.x,
`Client(url)`, which negotiates MCP 2026-07-28 (stateless requests, so each client names its
agent in the URL: `/mcp/<name>`).

    python3 tests/sdk/two_agents.py target/debug/devtools-mcp [extra server flags...]

Exits 0 when every check holds; prints what each client saw.
"""

import asyncio
import http.server
import re
import subprocess
import sys
import threading
import time
from importlib.metadata import version

PAGE = b"<title>sdk</title><p>two agents</p>"
SET = "() => { document.cookie = 'who=%s; path=/'; return document.cookie }"
READ = "() => document.cookie"


def text(result):
    return "\n".join(c.text for c in result.content if getattr(c, "text", None))


def serve_page():
    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(PAGE)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{httpd.server_address[1]}/page.html"


def start_server(binary, extra):
    proc = subprocess.Popen([binary, "--port", "0", *extra], stderr=subprocess.PIPE, text=True)
    for line in proc.stderr:
        found = re.search(r"listening on (http://\S+/mcp)", line)
        if found:
            threading.Thread(target=lambda: proc.stderr.read(), daemon=True).start()
            return proc, found.group(1)
    raise SystemExit("the server did not start")


async def agent_v1(url, name, page, both_set):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamablehttp_client

    async with streamablehttp_client(url) as (read, write, session_id):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            await session.call_tool("navigate_page", {"url": page})
            await session.call_tool("evaluate_script", {"function": SET % name})
            await both_set.wait()
            seen = text(await session.call_tool("evaluate_script", {"function": READ}))
            pages = text(await session.call_tool("list_pages", {}))
            return dict(name=name, protocol=init.protocolVersion, session=session_id(), seen=seen, pages=pages)


async def agent_v2(url, name, page, both_set):
    from mcp import Client

    async with Client(f"{url}/{name}") as client:
        await client.call_tool("navigate_page", {"url": page})
        await client.call_tool("evaluate_script", {"function": SET % name})
        await both_set.wait()
        seen = text(await client.call_tool("evaluate_script", {"function": READ}))
        pages = text(await client.call_tool("list_pages", {}))
        return dict(name=name, protocol=client.protocol_version, session=None, seen=seen, pages=pages)


async def main():
    binary, extra = sys.argv[1], sys.argv[2:]
    sdk = version("mcp")
    agent = agent_v1 if sdk.startswith("1.") else agent_v2
    page = serve_page()
    proc, url = start_server(binary, extra)
    try:
        started = time.monotonic()
        # Each looks only once both have set their cookies.
        both_set = asyncio.Barrier(2)
        a, b = await asyncio.gather(agent(url, "a", page, both_set), agent(url, "b", page, both_set))
        print(f"mcp {sdk}: two clients in {time.monotonic() - started:.2f}s")
        for r in (a, b):
            print(r)
        assert "who=a" in a["seen"] and "who=b" not in a["seen"], a
        assert "who=b" in b["seen"] and "who=a" not in b["seen"], b
        ids = lambda r: set(re.findall(r"^(\d+): ", r["pages"], re.M))
        assert ids(a) and ids(b) and not ids(a) & ids(b), (a["pages"], b["pages"])
        if agent is agent_v1:
            assert a["session"] and a["session"] != b["session"], (a["session"], b["session"])
        else:
            assert a["protocol"] == b["protocol"] == "2026-07-28", a["protocol"]
        print("ok: isolated")
    finally:
        proc.terminate()
        proc.wait(10)


asyncio.run(main())
