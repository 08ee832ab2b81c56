// Request validation for the API routes: request schemas (JSON Schema, shown in the OpenAPI
// document) whose fields carry pure parsers from raw input to typed values, refusing with a
// FaxError that names the field. No fastify here.

export * from './datetime.js';
export * from './form.js';
export * from './numbers.js';
export * from './pages.js';
export * from './request-hash.js';
export * from './send.js';
export * from './schema.js';
export * from './requests.js';
export * from './templates.js';
