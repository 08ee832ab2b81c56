// The library layer: faxstack embedded in another program (docs/library.md). Documents rendered
// into fax pages, one fax call over a direct line, and the job engine on a store — each a small
// facade over the layers below, entered through src/index.ts.
export * from './documents.js';
export * from './call.js';
export * from './engine.js';
export * from './http.js';
export * from './decode.js';
