// The HTTP API layer.
export * from './app.js';
export * from './envelope.js';
export * from './rate-limit.js';
export { StoreRateLimiter, type StoreRateLimiterOptions } from './store-rate-limit.js';
export { openApiDocument } from './openapi.js';
export { METRICS_CONTENT_TYPE, metricsText, storeProblem } from './routes-meta.js';
