// Part of the shim: one IIFE in several files (see the top of 00-open.js).

// ---- discovery ---------------------------------------------------------
// Internal state of the discoveries.
var discovery = {
  current: null, // the latest discovery started
  inflight: null, // the discovery not finished yet, if any
  dispatchingFor: null, // the discovery whose event is being dispatched
  // Whether this document's responders are known to answer synchronously:
  // set by a discovery that waited its microtask turns and got every answer
  // during the dispatch, none of them a promise; cleared by an answer of any
  // other kind and by a listener being added or removed. While it holds, a
  // discovery ends right after the dispatch and discover() answers without
  // a promise. Nothing is lost if a responder changes its ways: its answer
  // then arrives late, which rebuilds the table and notifies.
  syncKnown: false,
};
// What the shim does by itself: discoveries when listeners come and go, and
// rebuilding the current table when a late answer arrives.
var auto = {
  timer: null, // the scheduled discovery
  rerun: false, // one more discovery once the one in flight ends
  times: [], // start times of the recent ones (throttling)
  rebuildTimer: null, // the scheduled rebuild
};

function onDispatchError(ev) {
  var d = discovery.dispatchingFor;
  if (d === null) return;
  if (ErrorEventProto !== null && !apply(isProtoOf, ErrorEventProto, [ev])) return;
  var what;
  var err = field(ev, 'error');
  if (err !== THREW && err !== undefined && err !== null) what = describeThrown(err);
  else what = safeString(field(ev, 'message'));
  push(d.errors, errEntry(null, null, 'listener', 'a devtoolstooldiscovery listener threw: ' + what));
}

function scheduleRebuild() {
  if (auto.rebuildTimer !== null) return;
  auto.rebuildTimer = later(function () {
    auto.rebuildTimer = null;
    if (discovery.inflight !== null || discovery.current === null || !discovery.current.finished) return;
    install(build(discovery.current));
  }, 0);
}

// A respondWith answer arrived (or settled) after its discovery finished.
function lateAnswer(d) {
  if (d === discovery.current) scheduleRebuild();
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
    discovery.syncKnown = false;
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
    discovery.syncKnown = false;
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
  if (discovery.inflight === d) discovery.inflight = null;
  var report = install(build(d));
  d.report = report;
  d.resolve(report);
  if (auto.rerun) {
    auto.rerun = false;
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
  if (r === table.report) return short(r);
  return apply(promiseThen, r, [short]);
}

// The report, when the discovery ended during the dispatch; else a Promise of it.
function discoverReport() {
  if (table.report !== null && table.report.groups.length > 0) {
    var d = discovery.inflight;
    if (d === null) {
      d = startDiscovery(AUTO_GRACE_MS);
      if (d.finished) return d.report;
    }
    var p = d.promise;
    return new NativePromise(function (resolve) {
      var timer = later(function () {
        resolve(table.report);
      }, GRACE_MS);
      apply(promiseThen, p, [
        function (report) {
          cancel(timer);
          resolve(report);
        },
      ]);
    });
  }
  if (discovery.inflight === null) {
    var d1 = startDiscovery(GRACE_MS);
    return d1.finished ? d1.report : d1.promise;
  }
  var d2 = discovery.inflight;
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
  if (auto.timer !== null) {
    cancel(auto.timer);
    auto.timer = null;
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
  discovery.current = d;
  discovery.inflight = d;
  var ev = new CustomEventCtor(EVENT);
  defineProp(ev, 'respondWith', {
    value: function respondWith(group) {
      respond(d, group);
    },
    writable: true,
    enumerable: true,
    configurable: true,
  });
  var outer = discovery.dispatchingFor;
  discovery.dispatchingFor = d;
  d.dispatching = true;
  apply(origAdd, w, ['error', onDispatchError, true]);
  try {
    apply(origDispatch, w, [ev]);
  } catch (e) {
    push(d.errors, errEntry(null, null, 'listener', 'dispatching the devtoolstooldiscovery event failed: ' + describeThrown(e)));
  } finally {
    apply(origRemove, w, ['error', onDispatchError, true]);
    discovery.dispatchingFor = outer;
    d.dispatching = false;
  }
  if (discovery.syncKnown && !d.async && d.pending === 0) {
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
    if (!d.async && d === discovery.current) discovery.syncKnown = true;
    maybeFinish(d);
  });
  return d;
}

function scheduleDiscovery() {
  if (discovery.inflight !== null) {
    auto.rerun = true;
    return;
  }
  if (auto.timer !== null) return;
  var t = now();
  var recent = [];
  for (var i = 0; i < auto.times.length; i++) {
    if (t - auto.times[i] < 1000) push(recent, auto.times[i]);
  }
  auto.times = recent;
  var delay = auto.times.length >= AUTO_BURST ? AUTO_THROTTLE_MS : 0;
  auto.timer = later(function () {
    auto.timer = null;
    if (discovery.inflight !== null) {
      auto.rerun = true;
      return;
    }
    push(auto.times, now());
    var hasGroups = table.report !== null && table.report.groups.length > 0;
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
      discovery.syncKnown = false;
      watchSignal(arguments[2]);
      scheduleDiscovery();
    }
    return r;
  },
  removeEventListener(type, listener) {
    var r = apply(origRemove, this, arguments);
    if (concernsDiscovery(this, type, listener)) {
      discovery.syncKnown = false;
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
