// Part of the shim: one IIFE in several files (see the top of 00-open.js).

// ---- runs: envelopes and what is retained for later calls -------------
// Internal state: what later calls about a run can still ask for.
var runs = {
  seq: 0, // id of the latest run
  retained: [], // records {run, maxChars, conv, full}, oldest first
  lastTruncated: null, // record of the most recent truncated run (lastFull)
  lastElements: null, // elements of the most recent run with any (stashedElements)
};

function findRecord(id) {
  for (var i = 0; i < runs.retained.length; i++) {
    if (runs.retained[i].run === id) return runs.retained[i];
  }
  return null;
}

function retain(id, maxChars) {
  var rec = findRecord(id);
  if (rec !== null) return rec;
  rec = { run: id, maxChars: maxChars, conv: null, full: null };
  push(runs.retained, rec);
  if (runs.retained.length > RETAINED_RUNS) {
    var dropped = runs.retained[0];
    var rest = [];
    for (var i = 1; i < runs.retained.length; i++) push(rest, runs.retained[i]);
    runs.retained = rest;
    if (runs.lastTruncated === dropped) runs.lastTruncated = null;
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
    runs.lastTruncated = rec;
    var cut = maxChars;
    if (cut > 0 && isHighSurrogate(apply(strCharCodeAt, body, [cut - 1]))) cut--;
    body = apply(strSlice, body, [0, cut]);
  }
  return jsonStringify(head) + '\n' + body;
}

// `started`: when the run began (null for a render), so the header says how
// long the tool took to settle.
function failure(id, message, maxChars, started) {
  var head = mk();
  head.ok = false;
  head.run = id;
  if (started !== null) head.ms = now() - started;
  return envelope(head, message, maxChars, id);
}

function success(id, result, maxChars, started) {
  var head = mk();
  head.ok = true;
  head.run = id;
  head.ms = now() - started;
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
    runs.lastElements = c.elements;
  }
  var r = renderText(c.value, c.maxDepth, maxChars, c.values);
  head.format = r.format;
  if (c.cut) head.limited = true;
  if (c.lost > 0) {
    head.lost = c.lost;
    head.lostAt = c.lostAt;
  }
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
  var id = ++runs.seq;
  var started = now();
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
    if (entry === null) return failure(id, 'Tool ' + safeString(name) + ' not found', maxChars, started);
    var result;
    try {
      result = callTool(entry, params);
      // Reading `then` is what `await` would do (and may throw, like a rejection).
      if (result !== null && (typeof result === 'object' || typeof result === 'function')) {
        if (typeof result.then === 'function') return settled(id, result, maxChars, started);
      }
    } catch (e) {
      return failure(id, errorText(e), maxChars, started);
    }
    return success(id, result, maxChars, started);
  } catch (e) {
    return failure(id, 'devtools-mcp shim: ' + describeThrown(e), maxChars, started);
  }
}

// The envelope of a run whose tool answered with a thenable, once it settles.
function settled(id, thenable, maxChars, started) {
  var p = new NativePromise(function (resolve) {
    resolve(thenable);
  });
  return apply(promiseThen, p, [
    function (value) {
      try {
        return success(id, value, maxChars, started);
      } catch (e) {
        return failure(id, 'devtools-mcp shim: ' + describeThrown(e), maxChars, started);
      }
    },
    function (e) {
      return failure(id, errorText(e), maxChars, started);
    },
  ]);
}

function render(id, uids) {
  var rec = findRecord(id);
  if (rec === null || rec.conv === null) {
    return failure(id, 'The result of run ' + safeString(id) + ' is no longer available', null, null);
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
    return failure(id, 'devtools-mcp shim: ' + describeThrown(e), rec.maxChars, null);
  }
}

function chunk(offset, length, id) {
  var rec = id === undefined || id === null ? runs.lastTruncated : findRecord(id);
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
    var had = runs.retained.length > 0;
    runs.retained = [];
    runs.lastTruncated = null;
    runs.lastElements = null;
    return had;
  }
  var rest = [];
  var found = false;
  for (var i = 0; i < runs.retained.length; i++) {
    var rec = runs.retained[i];
    if (rec.run === id) {
      found = true;
      if (runs.lastTruncated === rec) runs.lastTruncated = null;
      if (rec.conv !== null && runs.lastElements === rec.conv.elements) runs.lastElements = null;
    } else {
      push(rest, rec);
    }
  }
  runs.retained = rest;
  return found;
}
