// Part of the shim: one IIFE in several files (see the top of 00-open.js).

// ---- the tool table --------------------------------------------------
// Internal state: the table that serves now.
var table = {
  pageGroups: [], // the page's own group objects (toolGroups)
  byName: new NativeMap(), // tool name -> {name, tool, group}, first one wins
  report: null, // its REPORT (lastReport)
  // Its content key. That of an empty table: a page without tools never
  // causes a notify.
  key: '[[],[],[],0]',
  seq: 0, // seq of the latest REPORT
};

function lookup(name) {
  var e = apply(mapGet, table.byName, [name]);
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

// ---- reports: a table from a discovery's answers, and installing it -----
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
      push(acc.errors, errEntry(null, null, 'rejected', 'a tool group promise given to respondWith() was rejected: ' + s.reason));
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

// Sends msg to the server through the binding captured at install. The
// binding is called directly and the secret joined with `+`, so no captured
// built-in a page may have replaced (a late install) ever sees the secret.
function send(msg) {
  if (bindingFn === null) return;
  try {
    var fn = bindingFn;
    fn(SECRET + '\n' + jsonStringify(msg));
  } catch (e) {
    // The binding went away with its context; nothing to tell.
  }
}

function notify(report) {
  var msg = mk();
  msg.type = 'groups';
  msg.report = report;
  send(msg);
}

// Makes b the current table; tells the server when it changed.
function install(b) {
  table.pageGroups = b.pageGroups;
  table.byName = b.byName;
  if (b.key === table.key && table.report !== null) {
    table.report.url = b.report.url;
    return table.report;
  }
  b.report.seq = ++table.seq;
  table.report = b.report;
  var changed = b.key !== table.key;
  table.key = b.key;
  if (changed) notify(b.report);
  return b.report;
}
