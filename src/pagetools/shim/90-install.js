// Part of the shim: one IIFE in several files (see the top of 00-open.js).

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
  return table.pageGroups;
});
getter('lastReport', function () {
  return table.report;
});
getter('stashedElements', function () {
  return runs.lastElements;
});
getter('lastFull', function () {
  return runs.lastTruncated === null ? null : runs.lastTruncated.full;
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

// Makes the shim live: window.__dtmcp, then the listener hooks and the
// first discovery. The wrapper returns its value, the script's completion
// value (see the contract).
function publish() {
  // Whether window.__dtmcp is ours for good (page code cannot replace it).
  var fixed = false;
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
    fixed = true;
  } catch (e) {
    try {
      w.__dtmcp = api;
    } catch (x) {
      return 'failed';
    }
    if (w.__dtmcp !== api) return 'failed';
  }

  if (fixed) {
    var hello = mk();
    hello.type = 'hello';
    send(hello);
  }
  hook('addEventListener', hooks.addEventListener);
  hook('removeEventListener', hooks.removeEventListener);
  scheduleDiscovery();
  return 'installed';
}
