// Part of the shim: one IIFE in several files (see the top of 00-open.js).

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
  if (apply(setHas, st.anc, [anc])) return lose(st, 'a circular reference', '<Circular reference>');
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
    var name = ctorName(v);
    var shown = name.length > 60 ? wellFormed(apply(strSlice, name, [0, 60])) + '\u2026' : name;
    return lose(st, 'a ' + shown + ' instance', '<' + name + ' instance>');
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
      return lose(st, 'a function', '<Function object>');
  }
  if (v === null) return null;
  return convObject(st, v, depth);
}

// ---- values that do not survive the trip ----------------------------------
// Counts a value the conversion can only stand a marker in for, notes where
// the first few were, and returns the marker.
function lose(st, what, marker) {
  st.lost++;
  if (st.lostAt.length < LOST_SHOWN) push(st.lostAt, what + ' at ' + pathOf(st));
  return marker;
}

// Where the value being converted sits in the result: each frame of the
// walk is at the member after the one it is converting (f.i was advanced).
function pathOf(st) {
  var p = 'result';
  for (var i = 0; i < st.stack.length && p.length <= MAX_PATH; i++) {
    var f = st.stack[i];
    var k = f.keys === null ? f.i - 1 : f.keys[f.i - 1];
    p += typeof k === 'number' ? '[' + k + ']' : keyText(k);
  }
  if (p.length <= MAX_PATH) return p;
  return wellFormed(apply(strSlice, p, [0, MAX_PATH])) + '\u2026';
}

function keyText(k) {
  var plain = k.length > 0 && k.length <= MAX_PATH;
  for (var i = 0; plain && i < k.length; i++) {
    var c = apply(strCharCodeAt, k, [i]);
    var letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
    plain = letter || (i > 0 && c >= 48 && c <= 57);
  }
  if (plain) return '.' + k;
  return '[' + jsonStringify(wellFormed(apply(strSlice, k, [0, MAX_PATH]))) + ']';
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
    lost: 0,
    lostAt: newArray(hazard),
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
    lost: st.lost,
    lostAt: st.lostAt,
  };
}
