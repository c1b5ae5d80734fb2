"""`devtools-mcp check` on pages built from published libraries: the Prebid.js 11 bundle (its
devtoolsMcp module's group passes, tools run) and Angular 22 in dev mode (a group without a
description, names with a colon, and a result holding functions and class instances: warnings,
exit 0). Standard library only; run tests/acceptance/setup.sh first.

Usage: python3 tests/acceptance/check_cli.py
"""

from __future__ import annotations

import json
import subprocess
import sys

from acceptlib import BINARY, REFERENCE_FLAGS, Recorder, Timer, need_binary, serve_pages


def check(url: str, *extra: str) -> subprocess.CompletedProcess:
    args = [BINARY, "check", "--url", url, *extra]
    for flag in REFERENCE_FLAGS:
        args += ["--server-arg", flag]
    return subprocess.run(args, capture_output=True, text=True, timeout=300)


def report_of(out: subprocess.CompletedProcess) -> dict:
    try:
        return json.loads(out.stdout)
    except ValueError:
        return {"stdout": out.stdout, "stderr": out.stderr[-2000:]}


def main() -> int:
    need_binary()
    base, _server = serve_pages()
    rec = Recorder("devtools-mcp check on published libraries")

    with Timer() as t:
        out = check(f"{base}/pages/prebid.html", "--exercise", "--json")
    report = report_of(out)
    rec.check("Prebid.js 11: 3 tools, run once each, no problems, exit 0",
              out.returncode == 0 and report == {"ok": True, "tools": 3, "problems": []},
              t.seconds, f"exit {out.returncode}: {report}")

    with Timer() as t:
        out = check(f"{base}/pages/angular.html", "--exercise", "--json")
    report = report_of(out)
    problems = report.get("problems", [])

    def has(group, tool, prefix):
        return any(p.get("group") == group and p.get("tool") == tool and p.get("severity") == "warning"
                   and p.get("message", "").startswith(prefix) for p in problems)

    wanted = [
        ("Angular", None, "the group has no description"),
        ("Angular", "angular:di_graph", "MCP clients refuse 'angular:di_graph'"),
        ("Angular", "angular:signal_graph", "MCP clients refuse 'angular:signal_graph'"),
        ("Angular", "angular:di_graph", "its result holds "),
    ]
    rec.check("Angular 22: warnings only (no description, names with ':', values lost), exit 0",
              out.returncode == 0 and report.get("ok") is True and report.get("tools") == 2
              and all(has(*w) for w in wanted),
              t.seconds, f"exit {out.returncode}: {json.dumps(report, indent=1)}")
    return rec.finish()


if __name__ == "__main__":
    sys.exit(main())
