#!/bin/sh
# Installs what the acceptance tests need, outside the repository:
#   $ACCEPT_DIR/venv          the official MCP Python SDK (`mcp`, PyPI)
#   $ACCEPT_DIR/node_modules  Prebid.js 11 and Angular 22 (npm), exact versions, served to the pages
#   $INSPECTOR_DIR            the MCP Inspector CLI (npm)
# Nothing is written into the repository. Re-running is cheap (already-installed parts are skipped).
set -e
ACCEPT_DIR=${ACCEPT_DIR:-/tmp/devtools-mcp-acceptance}
INSPECTOR_DIR=${INSPECTOR_DIR:-/tmp/inspector}
PYTHON=${PYTHON:-python3}
PREBID_VERSION=11.36.0
ANGULAR_VERSION=22.2.6
MCP_VERSION=${MCP_VERSION:-2.3.0}
INSPECTOR_VERSION=${INSPECTOR_VERSION:-2.12.0}
npm_quiet="--no-audit --no-fund --loglevel=error"

mkdir -p "$ACCEPT_DIR" "$INSPECTOR_DIR"
if [ ! -x "$ACCEPT_DIR/venv/bin/python" ] || ! "$ACCEPT_DIR/venv/bin/python" -c 'import mcp' 2>/dev/null; then
  "$PYTHON" -m venv "$ACCEPT_DIR/venv"
  "$ACCEPT_DIR/venv/bin/pip" install -q "mcp==$MCP_VERSION"
fi
if [ ! -f "$ACCEPT_DIR/node_modules/prebid.js/dist/not-for-prod/prebid.js" ] ||
   [ ! -f "$ACCEPT_DIR/node_modules/@angular/core/fesm2022/core.mjs" ]; then
  [ -f "$ACCEPT_DIR/package.json" ] || echo '{"private":true}' > "$ACCEPT_DIR/package.json"
  # --ignore-scripts: the pages use the packages' prebuilt files only; no build step runs.
  (cd "$ACCEPT_DIR" && npm install $npm_quiet --ignore-scripts \
    "prebid.js@$PREBID_VERSION" \
    "@angular/core@$ANGULAR_VERSION" "@angular/compiler@$ANGULAR_VERSION" \
    "@angular/common@$ANGULAR_VERSION" "@angular/platform-browser@$ANGULAR_VERSION" \
    rxjs@7 tslib@2)
fi
if [ ! -x "$INSPECTOR_DIR/node_modules/.bin/mcp-inspector" ]; then
  [ -f "$INSPECTOR_DIR/package.json" ] || echo '{"private":true}' > "$INSPECTOR_DIR/package.json"
  npm install --prefix "$INSPECTOR_DIR" $npm_quiet "@modelcontextprotocol/inspector@$INSPECTOR_VERSION"
fi
echo "acceptance deps ready: $ACCEPT_DIR (venv, node_modules), $INSPECTOR_DIR"
