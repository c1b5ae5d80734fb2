// See rxjs.mjs: the operators Angular imports, from rxjs's UMD bundle.
const o = window.rxjs.operators;
export const { concatMap, filter, finalize, map, switchMap, takeUntil, tap, take, catchError,
  mergeMap, share, first, startWith } = o;
