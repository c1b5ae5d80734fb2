#!/bin/bash
# Acceptance through the MCP Inspector CLI (npm: @modelcontextprotocol/inspector), as a judge would
# run it: one `npx @modelcontextprotocol/inspector --cli <binary> <flags> --method ...` per call.
#
#   A. the reference's launch flags: tools/list, tools/list with the server/discover probe
#      (--protocol-era auto) and at MCP 2026-07-28 (--protocol-era modern), new_page on a local
#      page, evaluate_script, and the bad inputs;
#   B. one shared Chromium reached with --browserUrl, so pages survive between CLI calls: page
#      tools on the basic page, Prebid.js 11 and Angular 22;
#   C. the Inspector's own load test on evaluate_script and execute_3p_developer_tool.
#
# Needs: tests/acceptance/setup.sh run once; the release binary (cargo build --release).
# Prints every command, its exit status, time and (shortened) output. Exit status 1 if a check failed.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BIN=${DEVTOOLS_MCP:-${CARGO_TARGET_DIR:-$REPO/target}/release/devtools-mcp}
INSPECTOR_DIR=${INSPECTOR_DIR:-/tmp/inspector}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
PORT=${PAGES_PORT:-8719}
CDP_PORT=${CDP_PORT:-9339}
BASE="http://127.0.0.1:$PORT/pages"
REF_FLAGS=(--executablePath=$CHROMIUM --headless --isolated --categoryExperimentalThirdParty=true
  --no-page-id-routing --no-usage-statistics --no-performance-crux
  --chromeArg=--no-sandbox --chromeArg=--disable-gpu --chromeArg=--disable-quic --chromeArg=--no-first-run
  --chromeArg=--disable-background-networking --chromeArg=--disable-component-update --chromeArg=--disable-sync)
SHARED_FLAGS=(--browserUrl=http://127.0.0.1:$CDP_PORT --categoryExperimentalThirdParty=true
  --no-page-id-routing --no-usage-statistics --no-performance-crux)
[ -x "$BIN" ] || { echo "no binary at $BIN (cargo build --release)"; exit 2; }
[ -x "$INSPECTOR_DIR/node_modules/.bin/mcp-inspector" ] || { echo "run tests/acceptance/setup.sh first"; exit 2; }

passed=0; failed=0
pids=()
cleanup() {
  [ -n "${MCP_INSPECTOR_DAEMON_DIR:-}" ] && (cd "$INSPECTOR_DIR" && npx mcpdo daemon stop >/dev/null 2>&1)
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done  # Chromium writes its profile until it exits
  rm -rf "$PROFILE" "$LAST"
}
PROFILE=$(mktemp -d)
LAST=$(mktemp)
trap cleanup EXIT
# The id of the selected page in the last answer ('<id>: <title> (<url>) [selected]'). Each CLI call is
# a new server process, and a new process selects the first page (as the reference does), so calls
# after new_page name their page with pageId.
selected_id() { sed -n 's/^\([0-9]*\): .*\[selected\]$/\1/p' "$LAST" | head -1; }

python3 -c "
import sys, http.server
sys.path.insert(0, '$HERE')
import acceptlib as A
http.server.ThreadingHTTPServer(('127.0.0.1', $PORT), A._Handler).serve_forever()
" &
pids+=($!)
sleep 0.5

# run <expect: ok|error|fail> <label> <grep-needle> <flags-array-name> args...
run() {
  local expect=$1 label=$2 needle=$3 flagsname=$4; shift 4
  local -n flags=$flagsname
  local out err rc t0 t1
  out=$(mktemp); err=$(mktemp)
  t0=$(date +%s%N)
  (cd "$INSPECTOR_DIR" && timeout 120 npx @modelcontextprotocol/inspector --cli "$BIN" "${flags[@]}" "$@") >"$out" 2>"$err"
  rc=$?
  t1=$(date +%s%N)
  local ms=$(( (t1 - t0) / 1000000 ))
  local ok=1
  case $expect in
    ok) [ $rc -eq 0 ] || ok=0 ;;
    error) [ $rc -ne 0 ] || ok=0 ;;
  esac
  if [ -n "$needle" ] && ! grep -qF -- "$needle" "$out" "$err"; then ok=0; fi
  if [ $ok -eq 1 ]; then passed=$((passed + 1)); mark=PASS; else failed=$((failed + 1)); mark=FAIL; fi
  echo "[$mark] $label  (exit $rc, ${ms} ms)"
  printf '  $ npx @modelcontextprotocol/inspector --cli %s %s' "$BIN" "$flagsname"
  printf ' %q' "$@"; echo
  python3 - "$out" "$LAST" <<'EOF'
import json, sys
raw = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(raw)
try:
    j = json.loads(raw)
except ValueError:
    print("  " + raw[:1200].replace("\n", "\n  "))
    sys.exit()
if "tools" in j:
    print(f"  -> {len(j['tools'])} tools: " + ", ".join(t["name"] for t in j["tools"]))
elif "content" in j:
    text = "\n".join(c.get("text", f"<{c.get('type')}>") for c in j["content"])
    open(sys.argv[2], "w").write(text)
    if len(text) > 1500:
        text = text[:1500] + f"... [{len(text)} chars]"
    print(f"  -> isError={j.get('isError', False)}\n  " + text.replace("\n", "\n  "))
else:
    print("  -> " + json.dumps(j)[:1500])
EOF
  grep -v "has no effect in devtools-mcp" "$err" | grep -v "^devtools-mcp: started" | head -c 800 | sed 's/^/  stderr: /'
  rm -f "$out" "$err"
}

echo "== A. launched browser, the reference's flags (REF_FLAGS = ${REF_FLAGS[*]})"
run ok "tools/list" '"execute_3p_developer_tool"' REF_FLAGS --method tools/list
run ok "tools/list after the server/discover probe (--protocol-era auto)" '"list_pages"' REF_FLAGS --method tools/list --protocol-era auto
# MCP 2026-07-28 pinned: no handshake, the per-request _meta envelope on every request.
run ok "tools/list at 2026-07-28 (--protocol-era modern)" '"list_pages"' REF_FLAGS --method tools/list --protocol-era modern
# The needle is in the result's _meta: only a 2026-07-28 result names the server there.
run ok "evaluate_script at 2026-07-28 (--protocol-era modern), the result signed in _meta" \
  'io.modelcontextprotocol/serverInfo' REF_FLAGS --protocol-era modern \
  --method tools/call --tool-name evaluate_script --tool-arg 'function=() => navigator.userAgent'
run ok "tools/list --strict (schema portability)" '"new_page"' REF_FLAGS --method tools/list --strict
run ok "new_page on a local page shows its tools" 'Basic: Tools of the acceptance page' REF_FLAGS \
  --method tools/call --tool-name new_page --tool-arg "url=$BASE/basic.html"
run ok "evaluate_script" 'HeadlessChrome' REF_FLAGS \
  --method tools/call --tool-name evaluate_script --tool-arg 'function=() => navigator.userAgent'
run error "unknown tool" 'no_such_tool' REF_FLAGS --method tools/call --tool-name no_such_tool
run error "new_page without url" 'is a required property' REF_FLAGS --method tools/call --tool-name new_page
run error "new_page url=123 (a number)" 'url' REF_FLAGS --method tools/call --tool-name new_page --tool-arg url=123
run error "evaluate_script with a syntax error" 'isError' REF_FLAGS \
  --method tools/call --tool-name evaluate_script --tool-arg 'function=() => {'
run error "evaluate_script that throws" 'boom' REF_FLAGS \
  --method tools/call --tool-name evaluate_script --tool-arg "function=() => { throw new Error('boom') }"
run error "execute_3p_developer_tool on about:blank" 'not found' REF_FLAGS \
  --method tools/call --tool-name execute_3p_developer_tool --tool-arg toolName=add

echo
echo "== B. one shared Chromium (--remote-debugging-port=$CDP_PORT), reached with SHARED_FLAGS = ${SHARED_FLAGS[*]}"
"$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --remote-debugging-port=$CDP_PORT --user-data-dir="$PROFILE" \
  about:blank >/dev/null 2>&1 &
SHARED_CHROMIUM=$!
pids+=($SHARED_CHROMIUM)
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$CDP_PORT/json/version" >/dev/null && break; sleep 0.2; done
# Every CLI call is a new server process, and a new process selects the first page in Chromium's
# target order, which changes as tabs are activated (the reference behaves the same). So this
# section keeps one tab and navigates it: every process then works on that tab.
run ok "navigate_page to basic.html (shared browser)" 'Basic: Tools of the acceptance page' SHARED_FLAGS \
  --method tools/call --tool-name navigate_page --tool-arg type=url --tool-arg "url=$BASE/basic.html"
run ok "list_3p_developer_tools in a later process" '## Third-party developer tools' SHARED_FLAGS \
  --method tools/call --tool-name list_3p_developer_tools
run ok "execute_3p_developer_tool add {a:2,b:3}" '5' SHARED_FLAGS \
  --method tools/call --tool-name execute_3p_developer_tool --tool-args-json '{"toolName":"add","params":"{\"a\":2,\"b\":3}"}'
run error "execute_3p_developer_tool schema violation" 'Invalid parameters for tool add' SHARED_FLAGS \
  --method tools/call --tool-name execute_3p_developer_tool --tool-args-json '{"toolName":"add","params":"{\"a\":\"two\"}"}'
run error "execute_3p_developer_tool params not JSON" 'Failed to parse params as JSON' SHARED_FLAGS \
  --method tools/call --tool-name execute_3p_developer_tool --tool-args-json '{"toolName":"add","params":"{oops"}'
run error "execute_3p_developer_tool params given as an object (Inspector's key=value coercion)" 'params' SHARED_FLAGS \
  --method tools/call --tool-name execute_3p_developer_tool --tool-arg toolName=add --tool-arg 'params={"a":2,"b":3}'
run error "execute_3p_developer_tool unknown page tool" 'Tool nope not found' SHARED_FLAGS \
  --method tools/call --tool-name execute_3p_developer_tool --tool-arg toolName=nope
run ok "take_snapshot" 'uid=' SHARED_FLAGS --method tools/call --tool-name take_snapshot
run error "execute with an element uid in a process that took no snapshot" 'take_snapshot' SHARED_FLAGS \
  --method tools/call --tool-name execute_3p_developer_tool --tool-args-json '{"toolName":"text_of","params":"{\"el\":{\"uid\":\"1_2\"}}"}'
run ok "navigate_page to Prebid.js 11" 'Prebid.js DevTools' SHARED_FLAGS \
  --method tools/call --tool-name navigate_page --tool-arg type=url --tool-arg "url=$BASE/prebid.html"
run ok "Prebid.js summary" 'v11.36.0' SHARED_FLAGS \
  --method tools/call --tool-name execute_3p_developer_tool --tool-arg toolName=summary
run ok "Prebid.js events {limit:2}" 'eventType' SHARED_FLAGS \
  --method tools/call --tool-name execute_3p_developer_tool --tool-args-json '{"toolName":"events","params":"{\"limit\":2}"}'
run error "Prebid.js events {limit:-1}" 'limit' SHARED_FLAGS \
  --method tools/call --tool-name execute_3p_developer_tool --tool-args-json '{"toolName":"events","params":"{\"limit\":-1}"}'
run ok "navigate_page to Angular 22 (dev mode, JIT)" 'angular:signal_graph' SHARED_FLAGS \
  --method tools/call --tool-name navigate_page --tool-arg type=url --tool-arg "url=$BASE/angular.html"
run ok "angular:di_graph" 'elementInjectorRoots' SHARED_FLAGS \
  --method tools/call --tool-name execute_3p_developer_tool --tool-arg toolName=angular:di_graph
run ok "list_pages" 'angular.html' SHARED_FLAGS --method tools/call --tool-name list_pages
kill $SHARED_CHROMIUM; wait $SHARED_CHROMIUM 2>/dev/null  # one Chromium at a time

echo
echo "== D. mcpdo (the Inspector's connection CLI): one connection, many commands, REF_FLAGS"
# A private, token-gated daemon for this shell; stopped at the end (it ends the server and its browser).
eval "$(cd "$INSPECTOR_DIR" && npx mcpdo private)"
export MCP_CATALOG_PATH=$PROFILE/mcpdo-catalog.json
mcpdo() { (cd "$INSPECTOR_DIR" && timeout 120 npx mcpdo --format json --connection dt "$@"); }
# mcpdo_run <expect: ok|error> <label> <needle> args...
mcpdo_run() {
  local expect=$1 label=$2 needle=$3; shift 3
  local out t0 t1 rc ok=1
  out=$(mktemp)
  t0=$(date +%s%N); mcpdo "$@" >"$out" 2>&1; rc=$?; t1=$(date +%s%N)
  if [ "$expect" = ok ] && grep -q '"isError": true' "$out"; then ok=0; fi
  if [ "$expect" = error ] && ! grep -q '"isError": true\|"error"' "$out"; then ok=0; fi
  if [ -n "$needle" ] && ! grep -qF -- "$needle" "$out"; then ok=0; fi
  if [ $ok -eq 1 ]; then passed=$((passed + 1)); mark=PASS; else failed=$((failed + 1)); mark=FAIL; fi
  echo "[$mark] $label  (exit $rc, $(( (t1 - t0) / 1000000 )) ms)"
  printf '  $ npx mcpdo --format json --connection dt'; printf ' %q' "$@"; echo
  python3 - "$out" "$LAST" <<'EOF2'
import json, sys
raw = open(sys.argv[1]).read()
try:
    j = json.loads(raw[raw.index("{"):])
    text = "\n".join(c.get("text", "") for c in j.get("content", []))
    open(sys.argv[2], "w").write(text)
    shown = f"isError={j.get('isError', False)}\n" + text if "content" in j else json.dumps(j)
except ValueError:
    shown = raw
print("  -> " + (shown[:1200] + (f"... [{len(shown)} chars]" if len(shown) > 1200 else "")).replace("\n", "\n  "))
EOF2
  rm -f "$out"
}
(cd "$INSPECTOR_DIR" && timeout 120 npx mcpdo connect --connection dt -- "$BIN" "${REF_FLAGS[@]}") 2>&1 | grep -v '^\[mcp-inspector\]' | sed 's/^/  /'
mcpdo_run ok "new_page Angular 22" 'angular:di_graph' tools/call new_page "url:=\"$BASE/angular.html\""
mcpdo_run ok "take_snapshot (the component host has role region)" 'Counter' tools/call take_snapshot
HOST=$(sed -n 's/.*uid=\([0-9_]*\) region "Counter".*/\1/p' "$LAST" | head -1)
INC=$(sed -n 's/.*uid=\([0-9_]*\) button "Increment".*/\1/p' "$LAST" | head -1)
mcpdo_run ok "click Increment" '' tools/call click "uid:=\"$INC\""
# tool arguments built by a JSON encoder: params is a JSON string inside a JSON object
targs() { python3 -c 'import json, sys; print(json.dumps({"toolName": sys.argv[1], "params": sys.argv[2]}))' "$@"; }
mcpdo_run ok "angular:signal_graph {target: {uid: $HOST}}" '"label\": \"count\"' tools/call execute_3p_developer_tool \
  --tool-args-json "$(targs angular:signal_graph "{\"target\": {\"uid\": \"$HOST\"}}")"
mcpdo_run ok "angular:di_graph" 'CounterStore' tools/call execute_3p_developer_tool 'toolName:="angular:di_graph"'
mcpdo_run ok "new_page hostile tools" 'Hostile tools' tools/call new_page "url:=\"$BASE/hostile-tools.html\""
mcpdo_run error "a tool that never settles, timeout 1000" 'timed out' tools/call execute_3p_developer_tool \
  'toolName:="never"' 'timeout:=1000'
mcpdo_run ok "alert() inside a tool" 'alert' tools/call execute_3p_developer_tool 'toolName:="alert"'
mcpdo_run ok "100 MB result, truncated" 'trunc' tools/call execute_3p_developer_tool 'toolName:="huge"'
mcpdo_run error "navigation away mid-call" '' tools/call execute_3p_developer_tool 'toolName:="navigate_away"'
mcpdo_run ok "the new document's tools" '3' tools/call execute_3p_developer_tool \
  --tool-args-json "$(targs add '{"a": 1, "b": 2}')"
(cd "$INSPECTOR_DIR" && npx mcpdo daemon stop) 2>&1 | sed 's/^/  /'

echo
echo "== C. the Inspector's load test (launched browser)"
run ok "evaluate_script x300, 10 at once" '' REF_FLAGS \
  --method tools/call --tool-name evaluate_script --tool-arg 'function=() => 1 + 1' \
  --load --load-requests 300 --load-concurrency 10

echo
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
