// rxjs 7's ESM build uses extensionless imports a browser cannot resolve, so the Angular page
// loads rxjs's own UMD bundle (window.rxjs) and this module re-exports what Angular imports.
const r = window.rxjs;
export const { BehaviorSubject, Observable, ReplaySubject, Subject, Subscription, from, of,
  firstValueFrom, lastValueFrom, merge, EMPTY, throwError, isObservable, defer, forkJoin, concat } = r;
