// Part of the shim: one IIFE in several files (see the top of 00-open.js).

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
