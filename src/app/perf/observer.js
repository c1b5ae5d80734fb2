// Injected by `devtools-mcp perf` before any of the page's scripts (addScriptToEvaluateOnNewDocument):
// records paint, LCP, layout-shift and long-task entries with buffered observers, and defines
// window.__dtmcpPerf(quietMs, capMs), which resolves once the page has been loaded and free of
// long tasks for quietMs (or at capMs from the time origin) with what was recorded.
// Everything used later is captured now, before the page's code can replace it; the numbers are
// still checked by the CLI, since a page can forge entries in other ways.
(() => {
  const Observer = window.PerformanceObserver;
  const apply = Reflect.apply;
  const define = Object.defineProperty;
  const ownDescriptor = Object.getOwnPropertyDescriptor;
  const later = window.setTimeout;
  const Later = window.Promise;
  const perf = window.performance;
  const now = ownDescriptor(Performance.prototype, 'now').value;
  const getEntries = ownDescriptor(PerformanceObserverEntryList.prototype, 'getEntries').value;
  const observe = ownDescriptor(Observer.prototype, 'observe').value;
  const getter = (cls, name) => {
    const d = cls && ownDescriptor(cls.prototype, name);
    return d && d.get ? (o) => apply(d.get, o, []) : () => undefined;
  };
  const startTime = getter(window.PerformanceEntry, 'startTime');
  const duration = getter(window.PerformanceEntry, 'duration');
  const name = getter(window.PerformanceEntry, 'name');
  const shiftValue = getter(window.LayoutShift, 'value');
  const recentInput = getter(window.LayoutShift, 'hadRecentInput');
  const responseStart = getter(window.PerformanceResourceTiming, 'responseStart');
  const loadEventEnd = getter(window.PerformanceNavigationTiming, 'loadEventEnd');
  // Bounded, so that a page flooding shifts cannot make the answer huge.
  const MAX_ENTRIES = 5000;
  const rec = { ttfb: null, fcp: null, lcp: null, shifts: [], tasks: [], settled: false };
  let loadEnd = 0;
  let lastTaskEnd = 0;
  const add = (list, item) => {
    if (list.length < MAX_ENTRIES) list[list.length] = item;
  };
  const watch = (type, each) => {
    try {
      const o = new Observer((list) => {
        const entries = apply(getEntries, list, []);
        for (let i = 0; i < entries.length; i++) each(entries[i]);
      });
      apply(observe, o, [{ type, buffered: true }]);
    } catch (_) {
      // An entry type this browser does not support: that metric stays null.
    }
  };
  watch('navigation', (e) => {
    rec.ttfb = responseStart(e);
    loadEnd = loadEventEnd(e);
  });
  watch('paint', (e) => {
    if (name(e) === 'first-contentful-paint') rec.fcp = startTime(e);
  });
  watch('largest-contentful-paint', (e) => {
    rec.lcp = startTime(e);
  });
  watch('layout-shift', (e) => {
    if (!recentInput(e)) add(rec.shifts, [startTime(e), shiftValue(e)]);
  });
  watch('longtask', (e) => {
    add(rec.tasks, [startTime(e), duration(e)]);
    lastTaskEnd = startTime(e) + duration(e);
  });
  const read = (quietMs, capMs) =>
    new Later((resolve) => {
      const poll = () => {
        const t = apply(now, perf, []);
        const quiet = loadEnd > 0 && t - (loadEnd > lastTaskEnd ? loadEnd : lastTaskEnd) >= quietMs;
        if (quiet || t >= capMs) {
          rec.settled = quiet;
          resolve(rec);
        } else {
          later(poll, 50);
        }
      };
      poll();
    });
  define(window, '__dtmcpPerf', { value: read, writable: false, configurable: false });
})();
