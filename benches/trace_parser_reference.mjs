// The reference's side of benches/trace_parser.rs: chrome-devtools-mcp's own trace parse and
// summary (DevTools' trace engine, as its performance_stop_trace runs them) on one file.
// Usage: node trace_parser_reference.mjs <.../processors/PerformanceTrace.js> <trace.json[.gz]>
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { pathToFileURL } from 'node:url';

const [entry, file] = process.argv.slice(2);
const { parseRawTraceBuffer, getTraceSummary, traceResultIsSuccess } = await import(
  pathToFileURL(entry).href
);
const began = performance.now();
let buffer = readFileSync(file);
if (file.endsWith('.gz')) buffer = gunzipSync(buffer);
const result = await parseRawTraceBuffer(buffer);
if (!traceResultIsSuccess(result)) {
  console.log(JSON.stringify({ ok: false, error: result.error }));
  process.exit(0);
}
const summary = getTraceSummary(result);
console.log(JSON.stringify({ ok: true, ms: performance.now() - began, chars: summary.length }));
