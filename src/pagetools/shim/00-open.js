/*
 * devtools-mcp discovery shim.
 *
 * One classic script (no modules), compiled into the server. The server
 * installs it on every page target with Page.addScriptToEvaluateOnNewDocument
 * (runs before the page's own scripts, in every frame) and with
 * Runtime.evaluate on documents that already exist, after
 * Runtime.addBinding({name: "__dtmcp_notify"}).
 *
 * It is kept in parts by concern, the files of src/pagetools/shim/, each a
 * script that parses alone. build.rs joins them in name order into ONE
 * function expression called at once (how: src/pagetools/shim/join.rs), so
 * the parts share its scope; nothing they declare is reachable from the page
 * except through window.__dtmcp. Their top-level statements run in name
 * order. No part returns; the wrapper does, twice: right after this file it
 * returns refusal() when that is not null (before 10-builtins captures the
 * built-ins), and after every part's state is initialised it returns
 * publish() (90-install), which publishes the API and starts the first
 * discovery. The build drops whole-line comments, indentation and blank
 * lines, so no literal may span lines (no template literals, no strings
 * continued with a backslash). Keep functions under 80 lines.
 *   00-open       this contract, constants, the frame and idempotency checks
 *   10-builtins   built-ins captured before page scripts run; thin wrappers
 *   20-describe   well-formed strings, safe descriptions of thrown values
 *   30-convert    result conversion into plain JSON data (the walk)
 *   40-print      JSON text of converted data; the fast path for plain data
 *   50-runs       run, render, chunk, stashed, release: envelopes and the
 *                 runs retained for later calls
 *   60-schema     validation of groups and tools, the inputSchema clone
 *   70-table      the tool table: lookup, building reports, install, notify
 *   80-discovery  discover(), the dispatch, late answers, listener hooks
 *   90-install    window.__dtmcp, the hooks installed, the first discovery
 *
 * ============================== CONTRACT ==================================
 *
 * Installation
 *   - Completion value of the script (what Runtime.evaluate returns):
 *       "installed"          the shim was installed in this window now;
 *       "already-installed"  it was there before (the script is idempotent);
 *       "not-top-frame"      this is an iframe: the shim does nothing there,
 *                            only the top frame is a tool source;
 *       "failed"             window.__dtmcp could not be defined.
 *   - Built-ins are captured at install time, so a page that later replaces
 *     JSON.stringify, Promise, Array.prototype.*, CustomEvent, ... does not
 *     disturb the shim. (Installed late with Runtime.evaluate, it captures
 *     whatever the page left in place.)
 *   - EventTarget.prototype.addEventListener/removeEventListener are wrapped
 *     to notice 'devtoolstooldiscovery' listeners on window.
 *   - At install a discovery is scheduled (setTimeout 0), so listeners that
 *     existed before a late install are found without the server asking.
 *
 * window.__dtmcp   (a non-configurable accessor on window: assignments to it
 *                  are ignored, it cannot be deleted)
 *   .shim            "devtools-mcp-shim/1"
 *   .graceMs         GRACE_MS (500)
 *   .toolGroups      the page's own group objects of the current table (valid
 *                    groups only, in registration order).
 *   .lastReport      the REPORT of the current table (null before the first).
 *   .executeTool(name, params) -> Promise<raw result>
 *                    First registered tool called `name` wins (registration
 *                    order across groups). Rejects with
 *                    Error(`Tool ${name} not found`) when absent. Meant for
 *                    page scripts and evaluate_script composition.
 *   .discover(knownSeq?) -> Promise<REPORT | number>
 *                    Dispatches CustomEvent('devtoolstooldiscovery') on window
 *                    with event.respondWith(groupOrPromise) attached (callable
 *                    any number of times). Resolves once (a) the microtask
 *                    queue has turned MICROTASK_TURNS times after the
 *                    dispatch, so responders that answer from a microtask or
 *                    after a few awaits are caught, and (b) every promise
 *                    given to respondWith has settled -- but never later than
 *                    GRACE_MS after the dispatch. (An answer given later, e.g.
 *                    from a setTimeout, arrives as a late answer: see Live
 *                    updates.) When knownSeq is given and the resulting
 *                    table's seq equals it, resolves with that number instead
 *                    of the whole report (the caller has it already).
 *                    Once a discovery has shown that the document's responders
 *                    all answer during the dispatch (no promise, nothing
 *                    later), the next ones end right after the dispatch and
 *                    discover() returns the report (or the number) itself,
 *                    not a Promise -- until a listener is added or removed or
 *                    an answer comes late or as a promise. The result replaces the
 *                    table entirely, atomically, when the discovery ends (the
 *                    old table keeps serving meanwhile). A discover() call
 *                    while another discovery is in flight joins it, and
 *                    resolves no later than GRACE_MS after the call. A table
 *                    whose content did not change keeps its seq.
 *                    While the table has groups, a discovery still waiting
 *                    on promises at GRACE_MS goes on (up to AUTO_GRACE_MS)
 *                    and discover() resolves with the table that still
 *                    serves; the new one follows by notify if it differs.
 *   .run(name, params, elements, options) -> string | Promise<string>
 *                    What execute_3p_developer_tool calls. `params` is the
 *                    (already validated) argument object; `elements` an array
 *                    of DOM elements resolved from {uid} arguments; options:
 *                      elementKeys: [key, ...]  elementKeys[i] receives
 *                                   elements[i]; a key is a property name of
 *                                   params, or an array path
 *                                   ["outer", 0, "inner"] for nested places.
 *                      maxChars:    cap on the returned text in UTF-16 code
 *                                   units (absent/null: no cap).
 *                    Never throws or rejects. Returns ENVELOPE text (below):
 *                    at once when the tool answered synchronously, else a
 *                    Promise of it (no promise machinery for sync tools).
 *   .render(run, uids) -> string
 *                    For a run whose header said elements > 0: replaces each
 *                    {"stashedId": "stashed-<i>"} in that run's result with
 *                    {"uid": uids[i]} (entries that are not strings keep their
 *                    stashedId) and returns a fresh ENVELOPE. Can be called
 *                    again with other uids.
 *   .stashed(run)  -> Array<Element> | null   elements of that run, by index i
 *                    (the i of "stashed-<i>"). Fetch with returnByValue:false.
 *   .stashedElements the elements of the most recent run that returned any.
 *   .chunk(offset, length, run?) -> string | null
 *                    A piece of the full text of a truncated run (default:
 *                    the most recent truncated one). offset/length in UTF-16
 *                    code units. A piece never splits a surrogate pair, so it
 *                    may be one unit shorter (or, for length 1, one longer)
 *                    than asked: advance offset by the piece's UTF-16 length
 *                    (Rust: s.encode_utf16().count()); stop at totalChars.
 *                    null when the run is no longer retained.
 *   .lastFull        full text of the most recent truncated run, or null.
 *   .parse(text), .stringify(value), .observeDom()
 *                    JSON.parse / JSON.stringify and a MutationObserver as
 *                    captured at install, for the server's own expressions
 *                    (observeDom() starts watching the document and returns a
 *                    function that stops it and says whether anything changed).
 *   .release(run?) -> boolean   drops what is retained for that run (all runs
 *                    when omitted). At most RETAINED_RUNS runs (those with
 *                    elements or truncation) are retained; oldest go first.
 *                    The server should release a run once it has fetched
 *                    its elements and chunks: a retained 100 MB text stays
 *                    in the page's memory until then.
 *
 * ENVELOPE (string returned by run and render):
 *     <header JSON, one line>\n<body>
 *   Split at the FIRST "\n" (the compact header never contains one). The body
 *   is the text to print as is, never to be parsed (it may nest 5000 levels).
 *   header fields:
 *     ok           true: body is the result as JSON text;
 *                  false: body is the error message (plain text).
 *     run          integer id of this run (per document, increasing).
 *     undefined    present and true when the tool returned undefined: the
 *                  body is empty ("no result").
 *     elements     number of distinct DOM elements in the result (ok only).
 *     format       "pretty" (JSON.stringify(v, null, 2), the reference's
 *                  layout) or "compact" (JSON.stringify(v)): compact is used
 *                  only when the pretty text exceeds maxChars and the compact
 *                  text does not (deeply nested results).
 *     limited      present and true when the value walk stopped at MAX_VALUES
 *                  (markers in the text say where).
 *     totalChars   length of the full body in UTF-16 code units.
 *     ms           how long the tool took to settle (run only), in ms.
 *     lost         present when values of the result could not be carried as
 *                  they were (functions, class instances, cycles): how many;
 *     lostAt       then the first LOST_SHOWN of them, e.g. "a function at
 *                  result.onClick" (paths cut to MAX_PATH characters).
 *     truncated    true when the body is only the first maxChars units (cut
 *                  before a surrogate pair, never inside one). The full text
 *                  stays available through chunk(..., run). The shim adds no
 *                  marker to the body; the server prints its own.
 *
 * Result conversion (done in the page, iteratively: no recursion limit):
 *   plain objects/arrays  walked; own enumerable string keys (like JSON);
 *                         a getter that throws gives "<Getter threw: msg>";
 *   cycles                "<Circular reference>" (ancestor-based: a shared,
 *                         non-cyclic reference is printed twice);
 *   depth > MAX_DEPTH     "<Nested too deep>";
 *   DOM Element (any realm) {"stashedId": "stashed-<i>"}, one i per element;
 *   Date                  ISO string, or "Invalid Date";
 *   RegExp                "/source/flags";
 *   Map                   {"<Map>": [[key, value], ...]};
 *   Set                   {"<Set>": [value, ...]};
 *   Error, DOMException   {"name", "message", "stack", own enumerable props,
 *                         "cause"} (absent ones omitted);
 *   other objects         "<ConstructorName instance>" (or "<Object instance>");
 *   unreadable objects    "<Unreadable object: msg>" (e.g. revoked proxies);
 *   functions             "<Function object>";
 *   symbol                "Symbol(desc)";     bigint   "123n";
 *   NaN, Infinity, -Infinity  the strings "NaN", "Infinity", "-Infinity";
 *   -0                    the string "-0" (JSON would silently print 0;
 *                         the same choice as for NaN: readable and exact);
 *   undefined             omitted in objects, null in arrays (as JSON);
 *   strings and keys      lone surrogates replaced by U+FFFD, so every text
 *                         the shim produces is valid UTF-8 for serde_json.
 *   Thrown values (ok:false body): an Error/DOMException gives its message
 *   (its name when the message is empty); a string its text; other primitives
 *   String(value); other objects their converted compact JSON.
 *
 * REPORT (plain JSON object; returned by discover(), sent by notify):
 *   { seq: int,            increasing per document, one per table change
 *     url: location.href,
 *     groups: [{name, description: string|null,
 *               tools: [{name, description: string|null,
 *                        inputSchema: <JSON clone of the page's schema>}]}],
 *     errors: [{group: string|null, tool: string|null, kind, reason: string}],
 *                         kind: what is wrong, one of not-a-group, rejected,
 *                         listener, group-name, group-tools, not-a-tool,
 *                         tool-name, execute, description, schema,
 *                         unreadable;
 *     duplicates: [{tool, groups: [groupName, ...]}],  same tool name seen in
 *                         several places; the first listed group wins;
 *     pending: int }       respondWith promises still unsettled at the end
 *                         of the grace period; they are added when they
 *                         settle (then a notify follows).
 *   Validation: a group needs a non-empty string name and a tools array; its
 *   description is a string, null or absent. A tool needs a non-empty string
 *   name, an execute function, an inputSchema object (not an array) that
 *   JSON can represent (functions in it are dropped, as JSON does), and a
 *   description that is a string, null or absent. A bad tool is left out
 *   alone; a bad group is left out whole; each gets an errors entry. A
 *   devtoolstooldiscovery listener that throws does not stop the others
 *   (dispatchEvent isolates it) and gives an errors entry; so does a
 *   respondWith promise that rejects.
 *
 * Live updates through the binding:
 *   window.__dtmcp_notify(JSON.stringify({type: "groups", report}))
 *   is called whenever a new table is installed whose content (groups,
 *   errors, duplicates, pending) differs from the last one installed --
 *   whether the discovery was asked for by discover() or started by the shim:
 *     - a 'devtoolstooldiscovery' listener added to or removed from window
 *       (also via an AbortSignal) schedules a discovery (debounced to one per
 *       macrotask burst; after AUTO_BURST runs in a second, throttled to one
 *       per AUTO_THROTTLE_MS so a listener that keeps adding listeners cannot
 *       spin); a discovery in flight is followed by one more. While the
 *       table has groups, such a rediscovery waits up to AUTO_GRACE_MS
 *       (2000) for slow promises rather than GRACE_MS, so a slow listener's
 *       group does not vanish and come back; the old table serves meanwhile;
 *     - respondWith called late on the CURRENT discovery's event (a stored
 *       event, or a promise that settled after the grace period) rebuilds the
 *       current table with the late answer included (no new dispatch, so a
 *       slow promise cannot cause an endless rediscovery loop). Late answers
 *       to a superseded event are ignored: their listener got the newer one.
 *   The binding function is captured at install and deleted from window (in
 *   every frame), so page code cannot call it; if it is absent then, nothing
 *   is sent. Every message is SECRET + "\n" + JSON, SECRET being the text
 *   the server put into this copy of the shim; the server drops any other.
 *   Once window.__dtmcp is defined (non-configurable), the shim sends
 *   {type: "hello"}: the server believes discover() answers only from an
 *   execution context that said hello (elsewhere window.__dtmcp may be the
 *   page's). The server tells documents apart by the executionContextId of
 *   Runtime.bindingCalled.
 *   `window.ondevtoolstooldiscovery = fn` is not supported (no such event
 *   handler attribute exists; the reference ignores it too).
 * ==========================================================================
 */

var SHIM_ID = 'devtools-mcp-shim/1';
// How long discovery waits for promise responders after the dispatch.
// Listing must never block for long; late answers still arrive by notify.
var GRACE_MS = 500;
// Deadline of a rediscovery the shim starts by itself while the table has
// groups. Nobody waits on it and the old table serves until it ends, so it
// can wait longer for slow answers instead of briefly dropping their
// groups (which agents would see as tools vanishing and coming back).
// A discover() call that joins it pulls the deadline in to GRACE_MS.
var AUTO_GRACE_MS = 2000;
// How many microtask turns after the dispatch a discovery waits for
// responders that answer from a microtask (before it ends, unless promises
// are pending). Each turn costs next to nothing; a macrotask would cost a
// trip through the event loop on every list.
var MICROTASK_TURNS = 16;
// Containers deeper than this become "<Nested too deep>".
var MAX_DEPTH = 5000;
// V8's JSON.stringify recurses natively; with indentation it overflowed
// between 5000 and 8000 nested objects in Chromium 156. Deeper results are
// printed by the shim's own iterative printer instead.
var NATIVE_STRINGIFY_MAX_DEPTH = 1500;
// Values visited per conversion, so a huge sparse array or a DAG that
// explodes when unfolded cannot hang the page for long. Ten million is
// about 100 MB of typical JSON and a few seconds of walking.
var MAX_VALUES = 10000000;
var RETAINED_RUNS = 8;
// A run's header names where the first few values its result could not
// carry were, each path cut to MAX_PATH characters; the rest are counted.
var LOST_SHOWN = 3;
var MAX_PATH = 200;
var AUTO_BURST = 10;
var AUTO_THROTTLE_MS = 250;
var EVENT = 'devtoolstooldiscovery';
var BINDING = '__dtmcp_notify';

// The server's secret for this target (it fills it in when it installs the
// shim): every binding message starts with it, so page code, which never
// sees it, cannot send reports the server accepts.
var SECRET = '@@DTMCP-SECRET@@';

var w = window;
// The binding is taken off the window before any page script runs, in
// every frame, so page code cannot flood it; only this closure keeps it.
var bindingFn = null;
try {
  var found = w[BINDING];
  if (typeof found === 'function') bindingFn = found;
  delete w[BINDING];
} catch (e) {
  // A hostile getter (a late install): report nothing rather than guess.
}

// Why this copy does nothing more, or null when it installs: only the top
// frame is a tool source, and a window has one shim. The wrapper returns it
// right after this file, before the built-ins are captured, so a refused
// copy reads nothing more of the page.
function refusal() {
  try {
    if (w !== w.top) return 'not-top-frame';
  } catch (e) {
    return 'not-top-frame';
  }
  try {
    var prior = w.__dtmcp;
    if (prior && prior.shim === SHIM_ID) return 'already-installed';
  } catch (e) {
    // A hostile getter: fall through and try to take the name over.
  }
  return null;
}
