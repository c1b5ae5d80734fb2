"""Acceptance through the official MCP Python SDK 1.x (`pip install "mcp<2"`), which knows only the
handshake versions: it must negotiate 2025-11-25 through `initialize` and work as before next to
MCP 2026-07-28 -- list, call, ping, and `notifications/tools/list_changed` when a page registers
tools late (no `subscriptions/listen` needed in this era).

Usage: python3 -m venv /tmp/sdk1 && /tmp/sdk1/bin/pip install "mcp<2"
       /tmp/sdk1/bin/python tests/acceptance/python_sdk1.py
Exit status 1 when any check failed.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))
import acceptlib as A  # noqa: E402

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

R = A.Recorder("python SDK 1.x acceptance")


def text_of(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


async def main() -> int:
    A.need_binary()
    base, httpd = A.serve_pages()
    from importlib.metadata import version

    print(f"mcp {version('mcp')}; binary: {A.BINARY}\n", flush=True)
    changes: list[float] = []

    async def on_message(message: Any) -> None:
        if getattr(getattr(message, "root", message), "method", "") == "notifications/tools/list_changed":
            changes.append(time.perf_counter())

    params = StdioServerParameters(command=A.BINARY, args=A.REFERENCE_FLAGS)
    async with stdio_client(params, errlog=open(os.devnull, "w")) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            with A.Timer() as t:
                init = await session.initialize()
            R.check(f"initialize negotiates {init.protocolVersion} ({init.serverInfo.name})",
                    init.protocolVersion == "2025-11-25", t.seconds, "")
            with A.Timer() as t:
                tools = await session.list_tools()
            names = [x.name for x in tools.tools]
            R.check(f"tools/list: {len(names)} tools", "new_page" in names, t.seconds, f"{names}")
            with A.Timer() as t:
                await session.send_ping()
            R.check("ping", True, t.seconds, "")
            with A.Timer() as t:
                res = await session.call_tool("new_page", {"url": f"{base}/pages/late.html"})
            R.check("new_page late.html", not res.isError and "Shell" in text_of(res), t.seconds, text_of(res)[:300])
            t_open = time.perf_counter()
            ran = ""
            with anyio.move_on_after(8):
                while not ran:
                    seen = len(changes)
                    while len(changes) == seen:
                        await anyio.sleep(0.05)
                    res = await session.call_tool("execute_3p_developer_tool",
                                                  {"toolName": "cart:total", "params": '{"currency": "EUR"}'})
                    if not res.isError:
                        ran = text_of(res)
            R.check(f"notifications/tools/list_changed ({len(changes)}), then the late tool runs",
                    "42.5" in ran, time.perf_counter() - t_open, ran[:300])
    httpd.shutdown()
    return R.finish()


if __name__ == "__main__":
    sys.exit(anyio.run(main))
