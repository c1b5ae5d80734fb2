// Part of the shim: one IIFE in several files (see the top of 00-open.js).

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
