// T.30: the fax session protocol, as a pure machine driven by a front end (front-end.ts).
export * from './front-end.js';
