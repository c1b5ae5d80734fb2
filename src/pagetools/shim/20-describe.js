// Part of the shim: one IIFE in several files (see the top of 00-open.js).

// ---- describing values without trusting them ---------------------------
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
