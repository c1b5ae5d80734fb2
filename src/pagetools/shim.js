/*
 * devtools-mcp discovery shim.
 *
 * One classic script (no modules), compiled into the server with include_str!.
 * The server installs it on every page target with
 * Page.addScriptToEvaluateOnNewDocument (runs before the page's own scripts,
 * in every frame) and with Runtime.evaluate on documents that already exist,
 * after Runtime.addBinding({name: "__dtmcp_notify"}).
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
 *     errors: [{group: string|null, tool: string|null, reason: string}],
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
 *   The binding function is captured at install; if it is absent then, it is
 *   looked up again when needed; if absent, nothing is sent. The server can
 *   tell documents apart by the executionContextId of Runtime.bindingCalled.
 *   `window.ondevtoolstooldiscovery = fn` is not supported (no such event
 *   handler attribute exists; the reference ignores it too).
 * ==========================================================================
 */
(function () {
  'use strict';

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
  var AUTO_BURST = 10;
  var AUTO_THROTTLE_MS = 250;
  var EVENT = 'devtoolstooldiscovery';
  var BINDING = '__dtmcp_notify';

  var w = window;
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

  // ---- built-ins, captured before page scripts can replace them ----------
  var apply = Reflect.apply;
  var ObjectProto = Object.prototype;
  var getProto = Object.getPrototypeOf;
  var setProto = Object.setPrototypeOf;
  var objCreate = Object.create;
  var objKeys = Object.keys;
  var defineProp = Object.defineProperty;
  var getOwnDesc = Object.getOwnPropertyDescriptor;
  var hasOwn = ObjectProto.hasOwnProperty;
  var objToString = ObjectProto.toString;
  var isProtoOf = ObjectProto.isPrototypeOf;
  var isArray = Array.isArray;
  var ArrayProto = Array.prototype;
  var jsonStringify = JSON.stringify;
  var jsonParse = JSON.parse;
  var NativePromise = Promise;
  var promiseThen = Promise.prototype.then;
  var NativeMap = Map;
  var mapGet = Map.prototype.get;
  var mapSet = Map.prototype.set;
  var mapForEach = Map.prototype.forEach;
  var NativeSet = Set;
  var setAdd = Set.prototype.add;
  var setHas = Set.prototype.has;
  var setDelete = Set.prototype.delete;
  var setForEach = Set.prototype.forEach;
  var ErrorCtor = Error;
  var RangeErrorCtor = RangeError;
  var TypeErrorCtor = TypeError;
  var StringCtor = String;
  var strSlice = String.prototype.slice;
  var strCharCodeAt = String.prototype.charCodeAt;
  var strIndexOf = String.prototype.indexOf;
  var isWellFormedFn = String.prototype.isWellFormed;
  var toWellFormedFn = String.prototype.toWellFormed;
  var symToString = Symbol.prototype.toString;
  var bigintToString = typeof BigInt === 'function' ? BigInt.prototype.toString : null;
  var dateGetTime = Date.prototype.getTime;
  var dateToISO = Date.prototype.toISOString;
  var dateNow = Date.now;
  var DateCtor = Date;
  var reSourceGet = getOwnDesc(RegExp.prototype, 'source').get;
  var reFlagsGet = getOwnDesc(RegExp.prototype, 'flags').get;
  var mathFloor = Math.floor;
  var CustomEventCtor = CustomEvent;
  var NativeMutationObserver = typeof MutationObserver === 'function' ? MutationObserver : null;
  var moObserve = NativeMutationObserver ? NativeMutationObserver.prototype.observe : null;
  var moDisconnect = NativeMutationObserver ? NativeMutationObserver.prototype.disconnect : null;
  var ETProto = EventTarget.prototype;
  var origAdd = ETProto.addEventListener;
  var origRemove = ETProto.removeEventListener;
  var origDispatch = ETProto.dispatchEvent;
  var ErrorEventProto = typeof ErrorEvent === 'function' ? ErrorEvent.prototype : null;
  var ElementProto = typeof Element === 'function' ? Element.prototype : null;
  var nodeTypeGet = null;
  try {
    nodeTypeGet = getOwnDesc(Node.prototype, 'nodeType').get;
  } catch (e) {
    nodeTypeGet = null;
  }
  var setTimeoutFn = w.setTimeout;
  var clearTimeoutFn = w.clearTimeout;
  var queueMicrotaskFn = w.queueMicrotask;
  var bindingFn = null;
  try {
    if (typeof w[BINDING] === 'function') bindingFn = w[BINDING];
  } catch (e) {
    bindingFn = null;
  }

  // ---- small helpers -----------------------------------------------------
  function later(fn, ms) {
    return apply(setTimeoutFn, w, [fn, ms]);
  }
  function cancel(timer) {
    apply(clearTimeoutFn, w, [timer]);
  }
  function microtask(fn) {
    apply(queueMicrotaskFn, w, [fn]);
  }
  // Runs fn after the microtask queue has turned `turns` times.
  function afterMicrotasks(turns, fn) {
    microtask(function () {
      if (turns <= 1) fn();
      else afterMicrotasks(turns - 1, fn);
    });
  }
  function now() {
    return apply(dateNow, DateCtor, []);
  }
  // Output objects have no prototype: a page that defines
  // Object.prototype.toJSON (or a '__proto__' key) cannot bend them.
  function mk() {
    return objCreate(null);
  }
  // Array.prototype.toJSON (old Prototype.js did this) would hijack
  // JSON.stringify of our arrays; only then do we pay for detaching them.
  function toJSONHazard() {
    return 'toJSON' in ArrayProto;
  }
  function newArray(hazard) {
    var a = [];
    if (hazard) setProto(a, null);
    return a;
  }
  function push(arr, v) {
    arr[arr.length] = v;
  }

  function wellFormed(s) {
    if (isWellFormedFn) {
      return apply(isWellFormedFn, s, []) ? s : apply(toWellFormedFn, s, []);
    }
    // Older engines: replace each unpaired surrogate by hand.
    var done = null;
    var from = 0;
    var n = s.length;
    for (var i = 0; i < n; i++) {
      var c = apply(strCharCodeAt, s, [i]);
      if (c < 0xd800 || c > 0xdfff) continue;
      if (c <= 0xdbff && i + 1 < n) {
        var d = apply(strCharCodeAt, s, [i + 1]);
        if (d >= 0xdc00 && d <= 0xdfff) {
          i++;
          continue;
        }
      }
      done = (done === null ? '' : done) + apply(strSlice, s, [from, i]) + '\ufffd';
      from = i + 1;
    }
    return done === null ? s : done + apply(strSlice, s, [from]);
  }

  function safeString(v) {
    try {
      if (typeof v === 'symbol') return wellFormed(apply(symToString, v, []));
      return wellFormed(StringCtor(v));
    } catch (e) {
      return '<unprintable value>';
    }
  }

  function typeName(v) {
    if (v === null) return 'null';
    if (isArraySafe(v)) return 'an array';
    return typeof v;
  }

  function isArraySafe(v) {
    try {
      return isArray(v);
    } catch (e) {
      return false;
    }
  }

  var THREW = mk();
  var lastThrown;
  function field(o, k) {
    try {
      return o[k];
    } catch (e) {
      lastThrown = e;
      return THREW;
    }
  }

  function ctorName(v) {
    try {
      var c = v.constructor;
      if (typeof c === 'function') {
        var n = c.name;
        if (typeof n === 'string' && n !== '') return wellFormed(n);
      }
    } catch (e) {
      // fall through
    }
    return 'Object';
  }

  function tagOf(v) {
    try {
      return apply(objToString, v, []);
    } catch (e) {
      return '';
    }
  }

  // Error or DOMException -> its message (its name when the message is
  // empty); anything else -> null.
  function errorMessage(e) {
    var tag = tagOf(e);
    if (tag !== '[object Error]' && tag !== '[object DOMException]') return null;
    var m = field(e, 'message');
    if (typeof m === 'string' && m !== '') return wellFormed(m);
    var n = field(e, 'name');
    return typeof n === 'string' && n !== '' ? wellFormed(n) : 'Error';
  }

  // Short description of a thrown value, never walking it (used inside the
  // walker and the validator, where walking could recurse without end).
  function describeThrown(e) {
    if (typeof e === 'string') return wellFormed(e);
    if (e === null || (typeof e !== 'object' && typeof e !== 'function')) return safeString(e);
    var m = errorMessage(e);
    if (m !== null) return m;
    return typeof e === 'function' ? '<Function object>' : '<' + ctorName(e) + ' instance>';
  }

  // Full text of a value a tool threw or rejected with.
  function errorText(e) {
    if (typeof e === 'string') return wellFormed(e);
    if (e === null || (typeof e !== 'object' && typeof e !== 'function')) return safeString(e);
    var m = errorMessage(e);
    if (m !== null) return m;
    if (typeof e === 'function') return '<Function object>';
    try {
      var c = convert(e, toJSONHazard());
      if (typeof c.value === 'string') return c.value;
      return serialize(c.value, c.maxDepth, false);
    } catch (x) {
      return '<' + ctorName(e) + ' instance>';
    }
  }

  // ---- result conversion ------------------------------------------------
  var NOT_SPECIAL = mk();

  function isElement(v, tag) {
    if (ElementProto !== null && apply(isProtoOf, ElementProto, [v])) return true;
    // Elements of other realms (same-origin iframes): the brand-checked
    // nodeType getter works across realms, and a page cannot fake it.
    if (nodeTypeGet !== null && apply(strIndexOf, tag, ['Element]']) !== -1) {
      try {
        return apply(nodeTypeGet, v, []) === 1;
      } catch (e) {
        return false;
      }
    }
    return false;
  }

  // A plain object made in another realm (a same-origin iframe).
  function isForeignObjectProto(proto) {
    try {
      if (getProto(proto) !== null) return false;
      var c = proto.constructor;
      return typeof c === 'function' && c.name === 'Object';
    } catch (e) {
      return false;
    }
  }

  function readProp(o, k) {
    try {
      return o[k];
    } catch (e) {
      return '<Getter threw: ' + describeThrown(e) + '>';
    }
  }

  function errorSource(v) {
    var src = mk();
    var n = readProp(v, 'name');
    var m = readProp(v, 'message');
    var s = readProp(v, 'stack');
    if (n !== undefined) src.name = n;
    if (m !== undefined) src.message = m;
    if (s !== undefined) src.stack = s;
    var keys = objKeys(v);
    for (var i = 0; i < keys.length; i++) {
      var k = keys[i];
      if (!(k in src)) src[k] = readProp(v, k);
    }
    if (!('cause' in src) && apply(hasOwn, v, ['cause'])) src.cause = readProp(v, 'cause');
    return src;
  }

  function special(st, v, tag, depth) {
    try {
      switch (tag) {
        case '[object Date]': {
          var t = apply(dateGetTime, v, []);
          return t !== t ? 'Invalid Date' : apply(dateToISO, v, []);
        }
        case '[object RegExp]':
          return wellFormed('/' + apply(reSourceGet, v, []) + '/' + apply(reFlagsGet, v, []));
        case '[object Map]': {
          var pairs = [];
          apply(mapForEach, v, [
            function (value, key) {
              push(pairs, [key, value]);
            },
          ]);
          var msrc = mk();
          msrc['<Map>'] = pairs;
          return open(st, msrc, v, depth, false);
        }
        case '[object Set]': {
          var values = [];
          apply(setForEach, v, [
            function (value) {
              push(values, value);
            },
          ]);
          var ssrc = mk();
          ssrc['<Set>'] = values;
          return open(st, ssrc, v, depth, false);
        }
        case '[object Error]':
        case '[object DOMException]':
          return open(st, errorSource(v), v, depth, false);
      }
    } catch (e) {
      // A spoofed Symbol.toStringTag fails the brand check: not special.
    }
    return NOT_SPECIAL;
  }

  // Starts walking a container: returns its (still empty) output container
  // and pushes a frame that fills it, or a marker string.
  function open(st, src, anc, depth, arr) {
    if (apply(setHas, st.anc, [anc])) return '<Circular reference>';
    if (depth >= MAX_DEPTH) return '<Nested too deep>';
    var keys = null;
    var n;
    if (arr) {
      n = src.length;
      if (!(n >= 0)) n = 0;
    } else {
      keys = objKeys(src);
      n = keys.length;
    }
    var out = arr ? newArray(st.hazard) : mk();
    apply(setAdd, st.anc, [anc]);
    if (depth + 1 > st.maxDepth) st.maxDepth = depth + 1;
    push(st.stack, { src: src, out: out, keys: keys, i: 0, n: n, depth: depth, anc: anc });
    return out;
  }

  function stash(st, el) {
    var idx = apply(mapGet, st.elIndex, [el]);
    if (idx === undefined) {
      idx = st.elements.length;
      push(st.elements, el);
      var marker = mk();
      marker.stashedId = 'stashed-' + idx;
      push(st.markers, marker);
      apply(mapSet, st.elIndex, [el, idx]);
    }
    return st.markers[idx];
  }

  function convObject(st, v, depth) {
    try {
      if (isArray(v)) return open(st, v, v, depth, true);
      var proto = getProto(v);
      if (proto === ObjectProto || proto === null || isForeignObjectProto(proto)) {
        return open(st, v, v, depth, false);
      }
      var tag = tagOf(v);
      if (isElement(v, tag)) return stash(st, v);
      var s = special(st, v, tag, depth);
      if (s !== NOT_SPECIAL) return s;
      return '<' + ctorName(v) + ' instance>';
    } catch (e) {
      return '<Unreadable object: ' + describeThrown(e) + '>';
    }
  }

  function conv(st, v, depth) {
    st.left--;
    switch (typeof v) {
      case 'string':
        return wellFormed(v);
      case 'number':
        if (v !== v) return 'NaN';
        if (v === Infinity) return 'Infinity';
        if (v === -Infinity) return '-Infinity';
        if (v === 0 && 1 / v < 0) return '-0';
        return v;
      case 'boolean':
        return v;
      case 'undefined':
        return undefined;
      case 'bigint':
        return apply(bigintToString, v, []) + 'n';
      case 'symbol':
        return wellFormed(apply(symToString, v, []));
      case 'function':
        return '<Function object>';
    }
    if (v === null) return null;
    return convObject(st, v, depth);
  }

  // Converts any value into plain JSON data, walking with an explicit stack.
  function convert(root, hazard) {
    var st = {
      elements: [],
      markers: [],
      elIndex: new NativeMap(),
      anc: new NativeSet(),
      stack: [],
      left: MAX_VALUES,
      maxDepth: 0,
      hazard: hazard,
      cut: false,
    };
    var value = conv(st, root, 0);
    var stack = st.stack;
    while (stack.length > 0) {
      var f = stack[stack.length - 1];
      if (f.i >= f.n || st.left <= 0) {
        if (f.i < f.n) {
          st.cut = true;
          var note = '<Value limit reached: ' + (f.n - f.i) + ' more not shown>';
          if (f.keys === null) push(f.out, note);
          else f.out['<truncated>'] = note;
        }
        stack.length = stack.length - 1;
        apply(setDelete, st.anc, [f.anc]);
        continue;
      }
      var i = f.i++;
      var v;
      if (f.keys === null) {
        try {
          v = f.src[i];
        } catch (e) {
          v = '<Getter threw: ' + describeThrown(e) + '>';
        }
        var c = conv(st, v, f.depth + 1);
        f.out[i] = c === undefined ? null : c;
      } else {
        var key = f.keys[i];
        try {
          v = f.src[key];
        } catch (e) {
          v = '<Getter threw: ' + describeThrown(e) + '>';
        }
        var c2 = conv(st, v, f.depth + 1);
        if (c2 !== undefined) f.out[wellFormed(key)] = c2;
      }
    }
    return {
      value: value,
      elements: st.elements,
      markers: st.markers,
      maxDepth: st.maxDepth,
      values: MAX_VALUES - st.left,
      cut: st.cut,
    };
  }

  // ---- printing ------------------------------------------------------------
  function isStackOverflow(e) {
    return apply(isProtoOf, RangeErrorCtor.prototype, [e]) && e.message === 'Maximum call stack size exceeded';
  }

  function primText(v) {
    if (v === null) return 'null';
    if (typeof v === 'string') return jsonStringify(v);
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    return '' + v;
  }

  // Same output as JSON.stringify(v) / JSON.stringify(v, null, 2) for the
  // converted data (no undefined, no non-finite numbers), without recursion.
  function stringifyIter(root, pretty) {
    var out = '';
    var stack = [];
    function begin(v, indent) {
      if (v === null || typeof v !== 'object') {
        out += primText(v);
        return;
      }
      if (isArray(v)) {
        if (v.length === 0) {
          out += '[]';
          return;
        }
        out += '[';
        push(stack, { v: v, keys: null, i: 0, n: v.length, indent: indent });
        return;
      }
      var keys = objKeys(v);
      if (keys.length === 0) {
        out += '{}';
        return;
      }
      out += '{';
      push(stack, { v: v, keys: keys, i: 0, n: keys.length, indent: indent });
    }
    begin(root, '');
    while (stack.length > 0) {
      var f = stack[stack.length - 1];
      if (f.i === f.n) {
        stack.length = stack.length - 1;
        var close = f.keys === null ? ']' : '}';
        out += pretty ? '\n' + f.indent + close : close;
        continue;
      }
      var inner = pretty ? f.indent + '  ' : '';
      if (f.i > 0) out += ',';
      if (pretty) out += '\n' + inner;
      var child;
      if (f.keys === null) {
        child = f.v[f.i];
      } else {
        var k = f.keys[f.i];
        out += jsonStringify(k) + (pretty ? ': ' : ':');
        child = f.v[k];
      }
      f.i++;
      begin(child, inner);
    }
    return out;
  }

  // ---- the fast path: results that are JSON data already -------------------
  // Most tool results are plain data, which the native JSON.stringify prints
  // exactly as the walk + print above would, several times faster and with no
  // copy. plainShape checks that without copying: objects whose prototype is
  // Object.prototype or null, arrays whose prototype is Array.prototype,
  // strings, booleans, null, finite numbers other than -0, and undefined (JSON
  // drops it from objects and prints null in arrays, as the walk does). No
  // toJSON anywhere, no cycle (a cycle looks like depth past the native
  // limit), at most MAX_VALUES values. Lone surrogates are caught afterwards
  // in the text (JSON.stringify escapes them; the walk replaces them).
  // Returns {maxDepth, values, spaces} (spaces: what pretty printing adds to
  // the compact text, exactly) or null when the walk is needed.
  function plainShape(root) {
    if ('toJSON' in ObjectProto || 'toJSON' in ArrayProto) return null;
    var st = { maxDepth: 0, values: 0, spaces: 0 };
    try {
      return plainValue(st, root, 0) ? st : null;
    } catch (e) {
      return null; // a getter threw, a proxy trap, a deep stack: the walk copes
    }
  }

  function plainValue(st, v, depth) {
    if (++st.values > MAX_VALUES) return false;
    switch (typeof v) {
      case 'string':
      case 'boolean':
      case 'undefined':
        return true;
      case 'number':
        return v === v && v !== Infinity && v !== -Infinity && (v !== 0 || 1 / v > 0);
      case 'object':
        if (v === null) return true;
        break;
      default:
        return false;
    }
    if (depth >= NATIVE_STRINGIFY_MAX_DEPTH) return false;
    var proto = getProto(v);
    // JSON.stringify would call a toJSON of the value's own (the walk does not).
    if (v.toJSON !== undefined) return false;
    var n, i;
    // Each member of a non-empty container at this depth sits on its own line
    // indented one step deeper; the closing bracket on a line at this depth.
    var inner = 1 + 2 * (depth + 1);
    if (isArray(v)) {
      if (proto !== ArrayProto) return false;
      n = v.length;
      if (depth + 1 > st.maxDepth) st.maxDepth = depth + 1;
      if (n > 0) st.spaces += n * inner + 1 + 2 * depth;
      for (i = 0; i < n; i++) {
        if (!plainValue(st, v[i], depth + 1)) return false;
      }
      return true;
    }
    if (proto !== ObjectProto && proto !== null) return false;
    var keys = objKeys(v);
    n = keys.length;
    if (depth + 1 > st.maxDepth) st.maxDepth = depth + 1;
    var shown = 0;
    for (i = 0; i < n; i++) {
      var x = v[keys[i]];
      if (!plainValue(st, x, depth + 1)) return false;
      // one space after each key's colon; members JSON drops take no room
      if (x !== undefined) {
        shown++;
        st.spaces += inner + 1;
      }
    }
    if (shown > 0) st.spaces += 1 + 2 * depth;
    return true;
  }

  // The text of plain data, or null when the walk must do it after all.
  // The same choice as renderText: pretty, unless it exceeds the cap while
  // the compact text fits.
  function plainText(value, shape, maxChars) {
    var text;
    var format = 'pretty';
    try {
      text = jsonStringify(value, null, 2);
      if (maxChars !== null && text.length > maxChars && text.length - shape.spaces <= maxChars) {
        text = jsonStringify(value);
        format = 'compact';
      }
    } catch (e) {
      return null;
    }
    if (typeof text !== 'string' || apply(strIndexOf, text, ['\\ud']) !== -1) return null;
    return { text: text, format: format };
  }

  function serialize(value, maxDepth, pretty) {
    if (maxDepth <= NATIVE_STRINGIFY_MAX_DEPTH) {
      try {
        return pretty ? jsonStringify(value, null, 2) : jsonStringify(value);
      } catch (e) {
        if (!isStackOverflow(e)) throw e;
      }
    }
    return stringifyIter(value, pretty);
  }

  // Pretty text, unless it exceeds the cap while the compact text fits.
  // `values` (how many values the walk produced) bounds what indentation can
  // add: per value at most two newlines with 2 * maxDepth spaces each (its
  // own line and, for a container, its closing line) and one space after its
  // key. When even the compact text cannot fit, it is not computed (that
  // saves a third of the time of a 100 MB result).
  function renderText(value, maxDepth, maxChars, values) {
    var pretty = null;
    var compact = null;
    var firstError = null;
    try {
      pretty = serialize(value, maxDepth, true);
    } catch (e) {
      firstError = e;
    }
    if (pretty !== null && (maxChars === null || pretty.length <= maxChars)) {
      return { text: pretty, format: 'pretty' };
    }
    if (pretty !== null && (maxDepth === 0 || pretty.length - values * (4 * maxDepth + 3) > maxChars)) {
      return { text: pretty, format: 'pretty' };
    }
    try {
      compact = serialize(value, maxDepth, false);
    } catch (e) {
      if (firstError === null) firstError = e;
    }
    if (compact !== null && (maxChars === null || compact.length <= maxChars || pretty === null)) {
      return { text: compact, format: 'compact' };
    }
    if (pretty !== null) return { text: pretty, format: 'pretty' };
    throw new ErrorCtor('the result is too large to print (' + describeThrown(firstError) + ')');
  }

  // A page that put toJSON on Object.prototype or Array.prototype would have
  // JSON.stringify print its text for every object. detox copies plain objects
  // and arrays (and instances without a toJSON of their own) into prototype-less
  // ones, which JSON prints as it would without the page's toJSON; everything
  // else (a Date, a class with its own toJSON) is left to JSON.stringify. A cycle
  // throws as JSON.stringify would.
  function detox(v, ancestors) {
    if (v === null || typeof v !== 'object') return v;
    var own;
    try {
      own = v.toJSON;
    } catch (e) {
      own = undefined;
    }
    if (typeof own === 'function' && own !== ObjectProto.toJSON && own !== ArrayProto.toJSON) return v;
    if (apply(setHas, ancestors, [v])) throw new TypeErrorCtor('Converting circular structure to JSON');
    apply(setAdd, ancestors, [v]);
    var out, i;
    if (isArray(v)) {
      out = newArray(true);
      for (i = 0; i < v.length; i++) out[i] = detox(v[i], ancestors);
    } else {
      out = mk();
      var keys = objKeys(v);
      for (i = 0; i < keys.length; i++) out[keys[i]] = detox(v[keys[i]], ancestors);
    }
    apply(setDelete, ancestors, [v]);
    return out;
  }

  // ---- runs: envelopes and what is retained for later calls -------------
  var runSeq = 0;
  var retained = [];
  var lastFullRecord = null;
  var lastElements = null;

  function findRecord(id) {
    for (var i = 0; i < retained.length; i++) {
      if (retained[i].run === id) return retained[i];
    }
    return null;
  }

  function retain(id, maxChars) {
    var rec = findRecord(id);
    if (rec !== null) return rec;
    rec = { run: id, maxChars: maxChars, conv: null, full: null };
    push(retained, rec);
    if (retained.length > RETAINED_RUNS) {
      var dropped = retained[0];
      var rest = [];
      for (var i = 1; i < retained.length; i++) push(rest, retained[i]);
      retained = rest;
      if (lastFullRecord === dropped) lastFullRecord = null;
    }
    return rec;
  }

  function isHighSurrogate(c) {
    return c >= 0xd800 && c <= 0xdbff;
  }

  function envelope(head, body, maxChars, id) {
    var total = body.length;
    head.totalChars = total;
    head.truncated = false;
    if (maxChars !== null && total > maxChars) {
      head.truncated = true;
      var rec = retain(id, maxChars);
      rec.full = body;
      lastFullRecord = rec;
      var cut = maxChars;
      if (cut > 0 && isHighSurrogate(apply(strCharCodeAt, body, [cut - 1]))) cut--;
      body = apply(strSlice, body, [0, cut]);
    }
    return jsonStringify(head) + '\n' + body;
  }

  function failure(id, message, maxChars) {
    var head = mk();
    head.ok = false;
    head.run = id;
    return envelope(head, message, maxChars, id);
  }

  function success(id, result, maxChars) {
    var head = mk();
    head.ok = true;
    head.run = id;
    if (result === undefined) {
      head.undefined = true;
      head.elements = 0;
      return envelope(head, '', maxChars, id);
    }
    var shape = plainShape(result);
    var plain = shape === null ? null : plainText(result, shape, maxChars);
    if (plain !== null) {
      head.elements = 0;
      head.format = plain.format;
      return envelope(head, plain.text, maxChars, id);
    }
    var c = convert(result, toJSONHazard());
    head.elements = c.elements.length;
    if (c.elements.length > 0) {
      retain(id, maxChars).conv = c;
      lastElements = c.elements;
    }
    var r = renderText(c.value, c.maxDepth, maxChars, c.values);
    head.format = r.format;
    if (c.cut) head.limited = true;
    return envelope(head, r.text, maxChars, id);
  }

  function placeElement(params, key, el) {
    if (typeof key === 'string') {
      params[key] = el;
      return;
    }
    if (!isArray(key) || key.length === 0) return;
    var o = params;
    for (var i = 0; i < key.length - 1; i++) {
      o = o[key[i]];
      if (o === null || typeof o !== 'object') return;
    }
    o[key[key.length - 1]] = el;
  }

  function run(name, params, elements, options) {
    var id = ++runSeq;
    var maxChars = null;
    try {
      var elementKeys = null;
      if (options !== null && typeof options === 'object') {
        var mc = options.maxChars;
        if (typeof mc === 'number' && mc >= 0) maxChars = mathFloor(mc);
        elementKeys = options.elementKeys;
      }
      if (params === undefined || params === null) params = {};
      if (isArray(elementKeys)) {
        for (var i = 0; i < elementKeys.length; i++) {
          placeElement(params, elementKeys[i], isArray(elements) ? elements[i] : undefined);
        }
      }
      var entry = lookup(name);
      if (entry === null) return failure(id, 'Tool ' + safeString(name) + ' not found', maxChars);
      var result;
      try {
        result = callTool(entry, params);
        // Reading `then` is what `await` would do (and may throw, like a rejection).
        if (result !== null && (typeof result === 'object' || typeof result === 'function')) {
          if (typeof result.then === 'function') return settled(id, result, maxChars);
        }
      } catch (e) {
        return failure(id, errorText(e), maxChars);
      }
      return success(id, result, maxChars);
    } catch (e) {
      return failure(id, 'devtools-mcp shim: ' + describeThrown(e), maxChars);
    }
  }

  // The envelope of a run whose tool answered with a thenable, once it settles.
  function settled(id, thenable, maxChars) {
    var p = new NativePromise(function (resolve) {
      resolve(thenable);
    });
    return apply(promiseThen, p, [
      function (value) {
        try {
          return success(id, value, maxChars);
        } catch (e) {
          return failure(id, 'devtools-mcp shim: ' + describeThrown(e), maxChars);
        }
      },
      function (e) {
        return failure(id, errorText(e), maxChars);
      },
    ]);
  }

  function render(id, uids) {
    var rec = findRecord(id);
    if (rec === null || rec.conv === null) {
      return failure(id, 'The result of run ' + safeString(id) + ' is no longer available', null);
    }
    var c = rec.conv;
    for (var i = 0; i < c.markers.length; i++) {
      var m = c.markers[i];
      delete m.stashedId;
      delete m.uid;
      var u = isArray(uids) ? uids[i] : undefined;
      if (typeof u === 'string') m.uid = wellFormed(u);
      else m.stashedId = 'stashed-' + i;
    }
    var head = mk();
    head.ok = true;
    head.run = id;
    head.elements = c.elements.length;
    try {
      var r = renderText(c.value, c.maxDepth, rec.maxChars, c.values);
      head.format = r.format;
      if (c.cut) head.limited = true;
      return envelope(head, r.text, rec.maxChars, id);
    } catch (e) {
      return failure(id, 'devtools-mcp shim: ' + describeThrown(e), rec.maxChars);
    }
  }

  function chunk(offset, length, id) {
    var rec = id === undefined || id === null ? lastFullRecord : findRecord(id);
    if (rec === null || typeof rec.full !== 'string') return null;
    var s = rec.full;
    var start = typeof offset === 'number' && offset > 0 ? mathFloor(offset) : 0;
    if (start >= s.length) return '';
    var len = typeof length === 'number' && length > 0 ? mathFloor(length) : 1;
    var end = start + len;
    if (end >= s.length) return apply(strSlice, s, [start]);
    if (isHighSurrogate(apply(strCharCodeAt, s, [end - 1]))) end = end - 1 > start ? end - 1 : end + 1;
    return apply(strSlice, s, [start, end]);
  }

  function stashed(id) {
    var rec = findRecord(id);
    if (rec === null || rec.conv === null) return null;
    var copy = [];
    for (var i = 0; i < rec.conv.elements.length; i++) push(copy, rec.conv.elements[i]);
    return copy;
  }

  function release(id) {
    if (id === undefined || id === null) {
      var had = retained.length > 0;
      retained = [];
      lastFullRecord = null;
      lastElements = null;
      return had;
    }
    var rest = [];
    var found = false;
    for (var i = 0; i < retained.length; i++) {
      var rec = retained[i];
      if (rec.run === id) {
        found = true;
        if (lastFullRecord === rec) lastFullRecord = null;
        if (rec.conv !== null && lastElements === rec.conv.elements) lastElements = null;
      } else {
        push(rest, rec);
      }
    }
    retained = rest;
    return found;
  }

  // ---- the tool table --------------------------------------------------
  var tableGroups = [];
  var toolsByName = new NativeMap();
  var lastReport = null;
  // The key of an empty table: a page without tools never causes a notify.
  var lastKey = '[[],[],[],0]';
  var reportSeq = 0;

  function lookup(name) {
    var e = apply(mapGet, toolsByName, [name]);
    return e === undefined ? null : e;
  }

  function callTool(entry, params) {
    var fn = entry.tool.execute;
    if (typeof fn !== 'function') {
      throw new ErrorCtor('Tool ' + entry.name + ' has no execute function any more');
    }
    return apply(fn, entry.tool, [params]);
  }

  async function executeTool(name, params) {
    var entry = lookup(name);
    if (entry === null) throw new ErrorCtor('Tool ' + safeString(name) + ' not found');
    return await callTool(entry, params);
  }

  // ---- validation and reports -----------------------------------------
  function errEntry(group, tool, reason) {
    var e = mk();
    e.group = group;
    e.tool = tool;
    e.reason = oneLine(reason);
    return e;
  }

  // Reasons are shown in a list, one per line; V8's messages (a circular
  // structure, say) span several lines: join them with single spaces.
  function oneLine(s) {
    if (apply(strIndexOf, s, ['\n']) === -1) return s;
    var out = '';
    var n = s.length;
    var i = 0;
    while (i < n) {
      var c = apply(strCharCodeAt, s, [i]);
      if (c === 10 || c === 13) {
        while (out.length > 0 && apply(strCharCodeAt, out, [out.length - 1]) === 32) out = apply(strSlice, out, [0, out.length - 1]);
        i++;
        while (i < n) {
          var d = apply(strCharCodeAt, s, [i]);
          if (d !== 32 && d !== 9 && d !== 10 && d !== 13) break;
          i++;
        }
        out += ' ';
        continue;
      }
      out += s[i];
      i++;
    }
    return out;
  }

  function quote(s) {
    return "'" + s + "'";
  }

  // toJSON of the schema's own making (an own property, or a method of a
  // class such as a schema builder) is honoured as JSON would; one planted
  // on Object.prototype or Array.prototype by the page is not.
  function schemaToJSON(v) {
    var fn = v.toJSON;
    if (typeof fn !== 'function') return null;
    if (apply(hasOwn, v, ['toJSON'])) return fn;
    var proto = getProto(v);
    if (proto === ObjectProto || proto === ArrayProto || proto === null) return null;
    var planted = getOwnDesc(ObjectProto, 'toJSON');
    if (planted && planted.value === fn) return null;
    planted = getOwnDesc(ArrayProto, 'toJSON');
    if (planted && planted.value === fn) return null;
    return fn;
  }

  var OMIT = mk();

  // JSON clone of a tool's inputSchema with JSON's rules (functions,
  // undefined and symbols dropped, non-finite numbers null), iterative, with
  // well-formed strings and keys, and prototype-free objects. Throws an Error
  // naming the path of a cycle or a BigInt.
  function cloneSchema(root, hazard) {
    var anc = new NativeSet();
    var stack = [];
    function take(v, key, path, depth) {
      if (v !== null && typeof v === 'object') {
        var toJSON = schemaToJSON(v);
        if (toJSON !== null) v = apply(toJSON, v, [key]);
      }
      switch (typeof v) {
        case 'string':
          return wellFormed(v);
        case 'number':
          return v === v && v !== Infinity && v !== -Infinity ? v : null;
        case 'boolean':
          return v;
        case 'bigint':
          throw new ErrorCtor('a BigInt at ' + path);
        case 'object':
          break;
        default:
          return OMIT;
      }
      if (v === null) return null;
      if (apply(setHas, anc, [v])) throw new ErrorCtor('a circular reference at ' + path);
      if (depth >= MAX_DEPTH) throw new ErrorCtor('nesting deeper than ' + MAX_DEPTH + ' levels at ' + path);
      var arr = isArray(v);
      var keys = arr ? null : objKeys(v);
      var n = arr ? v.length : keys.length;
      var out = arr ? newArray(hazard) : mk();
      apply(setAdd, anc, [v]);
      push(stack, { src: v, out: out, keys: keys, i: 0, n: n, path: path, depth: depth });
      return out;
    }
    var result = take(root, '', 'inputSchema', 0);
    while (stack.length > 0) {
      var f = stack[stack.length - 1];
      if (f.i >= f.n) {
        stack.length = stack.length - 1;
        apply(setDelete, anc, [f.src]);
        continue;
      }
      var i = f.i++;
      if (f.keys === null) {
        var c = take(f.src[i], '' + i, f.path + '[' + i + ']', f.depth + 1);
        f.out[i] = c === OMIT ? null : c;
      } else {
        var k = f.keys[i];
        var c2 = take(f.src[k], k, f.path + '.' + k, f.depth + 1);
        if (c2 !== OMIT) f.out[wellFormed(k)] = c2;
      }
    }
    return result === OMIT ? undefined : result;
  }

  function validateTool(t, index, groupName, hazard, errors) {
    if (t === THREW) {
      push(errors, errEntry(groupName, null, 'tools[' + index + '] in group ' + quote(groupName) + ' could not be read: ' + describeThrown(lastThrown)));
      return null;
    }
    if (t === null || (typeof t !== 'object' && typeof t !== 'function') || isArraySafe(t)) {
      push(errors, errEntry(groupName, null, 'tools[' + index + '] in group ' + quote(groupName) + ' is not an object (got ' + typeName(t) + ')'));
      return null;
    }
    var where = 'tools[' + index + '] in group ' + quote(groupName);
    var name = field(t, 'name');
    if (name === THREW) {
      push(errors, errEntry(groupName, null, 'reading the name of ' + where + ' threw: ' + describeThrown(lastThrown)));
      return null;
    }
    if (typeof name !== 'string' || name === '') {
      push(errors, errEntry(groupName, null, where + ' has no name (expected a non-empty string, got ' + (name === '' ? 'an empty string' : typeName(name)) + ')'));
      return null;
    }
    name = wellFormed(name);
    var tw = 'tool ' + quote(name) + ' in group ' + quote(groupName);
    var exec = field(t, 'execute');
    if (typeof exec !== 'function') {
      push(errors, errEntry(groupName, name, tw + ' has no execute function' + (exec === THREW ? ' (reading it threw: ' + describeThrown(lastThrown) + ')' : ' (got ' + typeName(exec) + ')')));
      return null;
    }
    var desc = field(t, 'description');
    if (desc === THREW) {
      push(errors, errEntry(groupName, name, 'reading the description of ' + tw + ' threw: ' + describeThrown(lastThrown)));
      return null;
    }
    if (desc === undefined || desc === null) desc = null;
    else if (typeof desc === 'string') desc = wellFormed(desc);
    else {
      push(errors, errEntry(groupName, name, tw + ' has a description that is not a string (got ' + typeName(desc) + ')'));
      return null;
    }
    var schema = field(t, 'inputSchema');
    if (schema === THREW) {
      push(errors, errEntry(groupName, name, 'reading the inputSchema of ' + tw + ' threw: ' + describeThrown(lastThrown)));
      return null;
    }
    if (schema === null || typeof schema !== 'object' || isArraySafe(schema)) {
      push(errors, errEntry(groupName, name, tw + ': inputSchema must be an object (got ' + typeName(schema) + ')'));
      return null;
    }
    var clone;
    try {
      clone = cloneSchema(schema, hazard);
    } catch (e) {
      push(errors, errEntry(groupName, name, tw + ': inputSchema cannot be converted to JSON: ' + describeThrown(e)));
      return null;
    }
    if (clone === null || typeof clone !== 'object' || isArray(clone)) {
      push(errors, errEntry(groupName, name, tw + ': inputSchema must be an object (its JSON form is ' + typeName(clone) + ')'));
      return null;
    }
    var out = mk();
    out.name = name;
    out.description = desc;
    out.inputSchema = clone;
    return out;
  }

  function validateGroup(g, hazard, acc) {
    var errors = acc.errors;
    if (g === null || (typeof g !== 'object' && typeof g !== 'function') || isArraySafe(g)) {
      push(errors, errEntry(null, null, 'respondWith() was given ' + typeName(g) + ' instead of a tool group object'));
      return;
    }
    var name = field(g, 'name');
    if (name === THREW) {
      push(errors, errEntry(null, null, 'reading the name of a tool group threw: ' + describeThrown(lastThrown)));
      return;
    }
    if (typeof name !== 'string' || name === '') {
      push(errors, errEntry(null, null, 'a tool group has no name (expected a non-empty string, got ' + (name === '' ? 'an empty string' : typeName(name)) + ')'));
      return;
    }
    name = wellFormed(name);
    var desc = field(g, 'description');
    if (desc === THREW) {
      push(errors, errEntry(name, null, 'reading the description of tool group ' + quote(name) + ' threw: ' + describeThrown(lastThrown)));
      return;
    }
    if (desc === undefined || desc === null) desc = null;
    else if (typeof desc === 'string') desc = wellFormed(desc);
    else {
      push(errors, errEntry(name, null, 'tool group ' + quote(name) + ' has a description that is not a string (got ' + typeName(desc) + ')'));
      return;
    }
    var tools = field(g, 'tools');
    if (tools === THREW) {
      push(errors, errEntry(name, null, 'reading the tools of tool group ' + quote(name) + ' threw: ' + describeThrown(lastThrown)));
      return;
    }
    if (!isArraySafe(tools)) {
      push(errors, errEntry(name, null, 'tool group ' + quote(name) + ' has no tools array (got ' + typeName(tools) + ')'));
      return;
    }
    var n = field(tools, 'length');
    if (n === THREW || !(n >= 0)) n = 0;
    var outTools = newArray(hazard);
    var entries = [];
    for (var i = 0; i < n; i++) {
      var t = field(tools, i);
      var v = validateTool(t, i, name, hazard, errors);
      if (v === null) continue;
      push(outTools, v);
      push(entries, { name: v.name, tool: t, group: name });
    }
    var og = mk();
    og.name = name;
    og.description = desc;
    og.tools = outTools;
    push(acc.groups, og);
    push(acc.pageGroups, g);
    for (var j = 0; j < entries.length; j++) push(acc.entries, entries[j]);
  }

  function build(d) {
    var hazard = toJSONHazard();
    var acc = { errors: newArray(hazard), groups: newArray(hazard), pageGroups: [], entries: [] };
    var pending = 0;
    for (var i = 0; i < d.errors.length; i++) push(acc.errors, d.errors[i]);
    for (var k = 0; k < d.slots.length; k++) {
      var s = d.slots[k];
      if (s.state === 'pending') {
        pending++;
      } else if (s.state === 'rejected') {
        push(acc.errors, errEntry(null, null, 'a tool group promise given to respondWith() was rejected: ' + s.reason));
      } else {
        validateGroup(s.value, hazard, acc);
      }
    }
    var byName = new NativeMap();
    var seen = new NativeMap();
    var duplicates = newArray(hazard);
    for (var j = 0; j < acc.entries.length; j++) {
      var e = acc.entries[j];
      var first = apply(mapGet, seen, [e.name]);
      if (first === undefined) {
        apply(mapSet, seen, [e.name, e]);
        apply(mapSet, byName, [e.name, e]);
        continue;
      }
      var dup = first.dup;
      if (dup === undefined) {
        dup = mk();
        dup.tool = e.name;
        dup.groups = newArray(hazard);
        push(dup.groups, first.group);
        push(duplicates, dup);
        first.dup = dup;
      }
      push(dup.groups, e.group);
    }
    var keyParts = newArray(hazard);
    push(keyParts, acc.groups);
    push(keyParts, acc.errors);
    push(keyParts, duplicates);
    push(keyParts, pending);
    var key = jsonStringify(keyParts);
    var report = mk();
    report.seq = 0;
    var url = '';
    try {
      url = wellFormed(StringCtor(w.location.href));
    } catch (x) {
      url = '';
    }
    report.url = url;
    report.groups = acc.groups;
    report.errors = acc.errors;
    report.duplicates = duplicates;
    report.pending = pending;
    return { report: report, key: key, pageGroups: acc.pageGroups, byName: byName };
  }

  function notify(report) {
    var fn = bindingFn;
    if (fn === null) {
      try {
        var f = w[BINDING];
        if (typeof f === 'function') fn = bindingFn = f;
      } catch (e) {
        fn = null;
      }
    }
    if (fn === null) return;
    var msg = mk();
    msg.type = 'groups';
    msg.report = report;
    try {
      apply(fn, w, [jsonStringify(msg)]);
    } catch (e) {
      // The binding went away with its context; nothing to tell.
    }
  }

  // Makes b the current table; tells the server when it changed.
  function install(b) {
    tableGroups = b.pageGroups;
    toolsByName = b.byName;
    if (b.key === lastKey && lastReport !== null) {
      lastReport.url = b.report.url;
      return lastReport;
    }
    b.report.seq = ++reportSeq;
    lastReport = b.report;
    var changed = b.key !== lastKey;
    lastKey = b.key;
    if (changed) notify(b.report);
    return b.report;
  }

  // ---- discovery ---------------------------------------------------------
  // Whether this document's responders are known to answer synchronously: set
  // by a discovery that waited its microtask turns and got every answer during
  // the dispatch, none of them a promise; cleared by an answer of any other
  // kind and by a listener being added or removed. While it holds, a discovery
  // ends right after the dispatch and discover() answers without a promise.
  // Nothing is lost if a responder changes its ways: its answer then arrives
  // late, which rebuilds the table and notifies.
  var syncKnown = false;
  var current = null; // the latest discovery started
  var inflight = null; // the discovery not finished yet, if any
  var dispatchingFor = null;
  var autoTimer = null;
  var rerunWanted = false;
  var autoTimes = [];
  var rebuildTimer = null;

  function onDispatchError(ev) {
    var d = dispatchingFor;
    if (d === null) return;
    if (ErrorEventProto !== null && !apply(isProtoOf, ErrorEventProto, [ev])) return;
    var what;
    var err = field(ev, 'error');
    if (err !== THREW && err !== undefined && err !== null) what = describeThrown(err);
    else what = safeString(field(ev, 'message'));
    push(d.errors, errEntry(null, null, 'a devtoolstooldiscovery listener threw: ' + what));
  }

  function scheduleRebuild() {
    if (rebuildTimer !== null) return;
    rebuildTimer = later(function () {
      rebuildTimer = null;
      if (inflight !== null || current === null || !current.finished) return;
      install(build(current));
    }, 0);
  }

  // A respondWith answer arrived (or settled) after its discovery finished.
  function lateAnswer(d) {
    if (d === current) scheduleRebuild();
  }

  function slotSettled(d) {
    if (!d.finished) {
      d.pending--;
      maybeFinish(d);
    } else {
      lateAnswer(d);
    }
  }

  function respond(d, x) {
    if (!d.dispatching) {
      d.async = true;
      syncKnown = false;
    }
    var slot = { state: 'value', value: x, reason: null };
    push(d.slots, slot);
    var then = null;
    if (x !== null && (typeof x === 'object' || typeof x === 'function')) {
      then = field(x, 'then');
      if (then === THREW) {
        slot.state = 'rejected';
        slot.value = undefined;
        slot.reason = describeThrown(lastThrown);
        then = null;
      }
    }
    if (typeof then === 'function') {
      d.async = true;
      syncKnown = false;
      slot.state = 'pending';
      slot.value = undefined;
      if (!d.finished) d.pending++;
      var p = new NativePromise(function (resolve) {
        resolve(x);
      });
      apply(promiseThen, p, [
        function (value) {
          slot.state = 'value';
          slot.value = value;
          slotSettled(d);
        },
        function (reason) {
          slot.state = 'rejected';
          slot.reason = describeThrown(reason);
          slotSettled(d);
        },
      ]);
      return;
    }
    if (d.finished) lateAnswer(d);
  }

  function maybeFinish(d) {
    if (!d.finished && d.tickDone && d.pending === 0) finish(d);
  }

  function finish(d) {
    if (d.finished) return;
    d.finished = true;
    cancel(d.timer);
    if (inflight === d) inflight = null;
    var report = install(build(d));
    d.report = report;
    d.resolve(report);
    if (rerunWanted) {
      rerunWanted = false;
      scheduleDiscovery();
    }
  }

  // The public discover(): never waits longer than GRACE_MS from the call.
  // While the table has groups, a slow promise answer must not make them
  // vanish from the caller's list and come back with the next notify: the
  // discovery goes on in the background (up to AUTO_GRACE_MS) and the caller
  // gets, at GRACE_MS, the table that still serves; the new one installs
  // (and notifies) when the discovery ends.
  function discover(knownSeq) {
    var r = discoverReport();
    if (typeof knownSeq !== 'number') return r;
    var short = function (report) {
      return report !== null && report.seq === knownSeq ? knownSeq : report;
    };
    // A discovery that ended at once gives its report at once (no promise).
    if (r === lastReport) return short(r);
    return apply(promiseThen, r, [short]);
  }

  // The report, when the discovery ended during the dispatch; else a Promise of it.
  function discoverReport() {
    if (lastReport !== null && lastReport.groups.length > 0) {
      var d = inflight;
      if (d === null) {
        d = startDiscovery(AUTO_GRACE_MS);
        if (d.finished) return d.report;
      }
      var p = d.promise;
      return new NativePromise(function (resolve) {
        var timer = later(function () {
          resolve(lastReport);
        }, GRACE_MS);
        apply(promiseThen, p, [
          function (report) {
            cancel(timer);
            resolve(report);
          },
        ]);
      });
    }
    if (inflight === null) {
      var d1 = startDiscovery(GRACE_MS);
      return d1.finished ? d1.report : d1.promise;
    }
    var d2 = inflight;
    var t = now();
    if (d2.deadline > t + GRACE_MS) {
      cancel(d2.timer);
      d2.deadline = t + GRACE_MS;
      d2.timer = later(function () {
        finish(d2);
      }, GRACE_MS);
    }
    return d2.promise;
  }

  function startDiscovery(graceMs) {
    if (autoTimer !== null) {
      cancel(autoTimer);
      autoTimer = null;
    }
    var d = {
      slots: [],
      errors: [],
      pending: 0,
      finished: false,
      tickDone: false,
      timer: null,
      deadline: 0,
      resolve: null,
      promise: null,
      report: null,
      // Set while the event is being dispatched; an answer outside it, or a
      // promise, makes this discovery (and the document) asynchronous.
      dispatching: false,
      async: false,
    };
    d.promise = new NativePromise(function (resolve) {
      d.resolve = resolve;
    });
    current = d;
    inflight = d;
    var ev = new CustomEventCtor(EVENT);
    defineProp(ev, 'respondWith', {
      value: function respondWith(group) {
        respond(d, group);
      },
      writable: true,
      enumerable: true,
      configurable: true,
    });
    var outer = dispatchingFor;
    dispatchingFor = d;
    d.dispatching = true;
    apply(origAdd, w, ['error', onDispatchError, true]);
    try {
      apply(origDispatch, w, [ev]);
    } catch (e) {
      push(d.errors, errEntry(null, null, 'dispatching the devtoolstooldiscovery event failed: ' + describeThrown(e)));
    } finally {
      apply(origRemove, w, ['error', onDispatchError, true]);
      dispatchingFor = outer;
      d.dispatching = false;
    }
    if (syncKnown && !d.async && d.pending === 0) {
      d.tickDone = true;
      finish(d);
      return d;
    }
    d.deadline = now() + graceMs;
    d.timer = later(function () {
      finish(d);
    }, graceMs);
    afterMicrotasks(MICROTASK_TURNS, function () {
      d.tickDone = true;
      // Every answer came during the dispatch, none a promise: the next
      // discoveries need not wait (until something suggests otherwise).
      if (!d.async && d === current) syncKnown = true;
      maybeFinish(d);
    });
    return d;
  }

  function scheduleDiscovery() {
    if (inflight !== null) {
      rerunWanted = true;
      return;
    }
    if (autoTimer !== null) return;
    var t = now();
    var recent = [];
    for (var i = 0; i < autoTimes.length; i++) {
      if (t - autoTimes[i] < 1000) push(recent, autoTimes[i]);
    }
    autoTimes = recent;
    var delay = autoTimes.length >= AUTO_BURST ? AUTO_THROTTLE_MS : 0;
    autoTimer = later(function () {
      autoTimer = null;
      if (inflight !== null) {
        rerunWanted = true;
        return;
      }
      push(autoTimes, now());
      var hasGroups = lastReport !== null && lastReport.groups.length > 0;
      startDiscovery(hasGroups ? AUTO_GRACE_MS : GRACE_MS);
    }, delay);
  }

  // ---- noticing listeners ------------------------------------------------
  function concernsDiscovery(self, type, listener) {
    return (
      type === EVENT &&
      (self === w || self === undefined || self === null) &&
      listener !== null &&
      listener !== undefined
    );
  }

  function watchSignal(options) {
    if (options === null || typeof options !== 'object') return;
    try {
      var signal = options.signal;
      if (signal !== null && typeof signal === 'object') {
        apply(origAdd, signal, ['abort', scheduleDiscovery, { once: true }]);
      }
    } catch (e) {
      // Not an AbortSignal: the native call reports that to the page.
    }
  }

  // Method syntax: the wrappers get the native names and lengths and, like
  // the natives, no prototype property.
  var hooks = {
    addEventListener(type, listener) {
      var r = apply(origAdd, this, arguments);
      if (concernsDiscovery(this, type, listener)) {
        syncKnown = false;
        watchSignal(arguments[2]);
        scheduleDiscovery();
      }
      return r;
    },
    removeEventListener(type, listener) {
      var r = apply(origRemove, this, arguments);
      if (concernsDiscovery(this, type, listener)) {
        syncKnown = false;
        scheduleDiscovery();
      }
      return r;
    },
  };

  function hook(name, fn) {
    try {
      var desc = getOwnDesc(ETProto, name);
      if (!desc || typeof desc.value !== 'function') return;
      defineProp(ETProto, name, {
        value: fn,
        writable: desc.writable,
        enumerable: desc.enumerable,
        configurable: desc.configurable,
      });
    } catch (e) {
      // Frozen by the page: discovery still works when asked for.
    }
  }

  // ---- window.__dtmcp ------------------------------------------------------
  var api = {};
  function constant(name, value) {
    defineProp(api, name, { value: value, writable: false, enumerable: true, configurable: false });
  }
  function getter(name, get) {
    // The setter ignores writes (e.g. `window.__dtmcp.toolGroups = []` from
    // code written for the reference) instead of throwing in strict mode.
    defineProp(api, name, { get: get, set: function () {}, enumerable: true, configurable: false });
  }
  constant('shim', SHIM_ID);
  constant('graceMs', GRACE_MS);
  getter('toolGroups', function () {
    return tableGroups;
  });
  getter('lastReport', function () {
    return lastReport;
  });
  getter('stashedElements', function () {
    return lastElements;
  });
  getter('lastFull', function () {
    return lastFullRecord === null ? null : lastFullRecord.full;
  });
  constant('executeTool', executeTool);
  constant('discover', discover);
  constant('run', run);
  constant('render', render);
  constant('stashed', stashed);
  constant('chunk', chunk);
  constant('release', release);
  // For the server's tool calls: params arrive as JSON text.
  constant('parse', function (text) {
    return apply(jsonParse, JSON, [text]);
  });
  // For evaluate_script's wrapper, so a page that replaced JSON.stringify or
  // MutationObserver cannot change what scripts return or make them fail.
  constant('stringify', function (value) {
    if (!('toJSON' in ObjectProto) && !('toJSON' in ArrayProto)) {
      return apply(jsonStringify, JSON, [value]);
    }
    return apply(jsonStringify, JSON, [detox(value, new NativeSet())]);
  });
  // Starts watching the document; the returned function stops watching (once)
  // and says whether anything changed in between.
  constant('observeDom', function () {
    var changed = false;
    var observer = null;
    try {
      observer = new NativeMutationObserver(function () {
        changed = true;
      });
      apply(moObserve, observer, [
        w.document,
        { subtree: true, childList: true, attributes: true, characterData: true },
      ]);
    } catch (e) {
      observer = null;
    }
    return function () {
      if (observer !== null) {
        try {
          apply(moDisconnect, observer, []);
        } catch (e) {}
        observer = null;
      }
      return changed;
    };
  });

  try {
    defineProp(w, '__dtmcp', {
      get: function () {
        return api;
      },
      set: function () {},
      enumerable: false,
      // Not configurable: the server must always find it. Assignments are
      // ignored silently; a `delete` returns false (throws in strict code).
      configurable: false,
    });
  } catch (e) {
    try {
      w.__dtmcp = api;
    } catch (x) {
      return 'failed';
    }
    if (w.__dtmcp !== api) return 'failed';
  }

  hook('addEventListener', hooks.addEventListener);
  hook('removeEventListener', hooks.removeEventListener);
  scheduleDiscovery();
  return 'installed';
})();
