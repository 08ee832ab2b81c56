// Request validation for the API routes: pure functions from raw input to typed requests,
// refusing with a FaxError that names the field. No fastify here.

export * from './datetime.js';
export * from './form.js';
export * from './numbers.js';
export * from './pages.js';
export * from './request-hash.js';
export * from './send.js';
export * from './schema.js';
export * from './requests.js';
export * from './templates.js';
