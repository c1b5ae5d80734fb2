// Part of the shim: one IIFE in several files (see the top of 00-open.js).

// ---- validation of tool groups, tools and their schemas ----------------
// `kind` says what is wrong in a word a page author's fix follows from
// (the server names each one in `pagetools::table::Flaw`).
function errEntry(group, tool, kind, reason) {
  var e = mk();
  e.group = group;
  e.tool = tool;
  e.kind = kind;
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
    push(errors, errEntry(groupName, null, 'unreadable', 'tools[' + index + '] in group ' + quote(groupName) + ' could not be read: ' + describeThrown(lastThrown)));
    return null;
  }
  if (t === null || (typeof t !== 'object' && typeof t !== 'function') || isArraySafe(t)) {
    push(errors, errEntry(groupName, null, 'not-a-tool', 'tools[' + index + '] in group ' + quote(groupName) + ' is not an object (got ' + typeName(t) + ')'));
    return null;
  }
  var where = 'tools[' + index + '] in group ' + quote(groupName);
  var name = field(t, 'name');
  if (name === THREW) {
    push(errors, errEntry(groupName, null, 'unreadable', 'reading the name of ' + where + ' threw: ' + describeThrown(lastThrown)));
    return null;
  }
  if (typeof name !== 'string' || name === '') {
    push(errors, errEntry(groupName, null, 'tool-name', where + ' has no name (expected a non-empty string, got ' + (name === '' ? 'an empty string' : typeName(name)) + ')'));
    return null;
  }
  name = wellFormed(name);
  var tw = 'tool ' + quote(name) + ' in group ' + quote(groupName);
  var exec = field(t, 'execute');
  if (typeof exec !== 'function') {
    push(errors, errEntry(groupName, name, 'execute', tw + ' has no execute function' + (exec === THREW ? ' (reading it threw: ' + describeThrown(lastThrown) + ')' : ' (got ' + typeName(exec) + ')')));
    return null;
  }
  var desc = field(t, 'description');
  if (desc === THREW) {
    push(errors, errEntry(groupName, name, 'unreadable', 'reading the description of ' + tw + ' threw: ' + describeThrown(lastThrown)));
    return null;
  }
  if (desc === undefined || desc === null) desc = null;
  else if (typeof desc === 'string') desc = wellFormed(desc);
  else {
    push(errors, errEntry(groupName, name, 'description', tw + ' has a description that is not a string (got ' + typeName(desc) + ')'));
    return null;
  }
  var schema = field(t, 'inputSchema');
  if (schema === THREW) {
    push(errors, errEntry(groupName, name, 'unreadable', 'reading the inputSchema of ' + tw + ' threw: ' + describeThrown(lastThrown)));
    return null;
  }
  if (schema === null || typeof schema !== 'object' || isArraySafe(schema)) {
    push(errors, errEntry(groupName, name, 'schema', tw + ': inputSchema must be an object (got ' + typeName(schema) + ')'));
    return null;
  }
  var clone;
  try {
    clone = cloneSchema(schema, hazard);
  } catch (e) {
    push(errors, errEntry(groupName, name, 'schema', tw + ': inputSchema cannot be converted to JSON: ' + describeThrown(e)));
    return null;
  }
  if (clone === null || typeof clone !== 'object' || isArray(clone)) {
    push(errors, errEntry(groupName, name, 'schema', tw + ': inputSchema must be an object (its JSON form is ' + typeName(clone) + ')'));
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
    push(errors, errEntry(null, null, 'not-a-group', 'respondWith() was given ' + typeName(g) + ' instead of a tool group object'));
    return;
  }
  var name = field(g, 'name');
  if (name === THREW) {
    push(errors, errEntry(null, null, 'unreadable', 'reading the name of a tool group threw: ' + describeThrown(lastThrown)));
    return;
  }
  if (typeof name !== 'string' || name === '') {
    push(errors, errEntry(null, null, 'group-name', 'a tool group has no name (expected a non-empty string, got ' + (name === '' ? 'an empty string' : typeName(name)) + ')'));
    return;
  }
  name = wellFormed(name);
  var desc = field(g, 'description');
  if (desc === THREW) {
    push(errors, errEntry(name, null, 'unreadable', 'reading the description of tool group ' + quote(name) + ' threw: ' + describeThrown(lastThrown)));
    return;
  }
  if (desc === undefined || desc === null) desc = null;
  else if (typeof desc === 'string') desc = wellFormed(desc);
  else {
    push(errors, errEntry(name, null, 'description', 'tool group ' + quote(name) + ' has a description that is not a string (got ' + typeName(desc) + ')'));
    return;
  }
  var tools = field(g, 'tools');
  if (tools === THREW) {
    push(errors, errEntry(name, null, 'unreadable', 'reading the tools of tool group ' + quote(name) + ' threw: ' + describeThrown(lastThrown)));
    return;
  }
  if (!isArraySafe(tools)) {
    push(errors, errEntry(name, null, 'group-tools', 'tool group ' + quote(name) + ' has no tools array (got ' + typeName(tools) + ')'));
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
