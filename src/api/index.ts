// The HTTP API layer.
export * from './app.js';
export * from './envelope.js';
export * from './rate-limit.js';
export { openApiDocument } from './openapi.js';
