// faxstack as a library.
export * from './shared/index.js';
export type * from './store/types.js';
