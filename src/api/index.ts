// The HTTP API layer.
export * from './app.js';
export * from './envelope.js';
export * from './rate-limit.js';
export { StoreRateLimiter, type StoreRateLimiterOptions } from './store-rate-limit.js';
export { openApiDocument } from './openapi.js';
export { METRICS_CONTENT_TYPE, metricsText, storeProblem } from './routes-meta.js';
// What the dashboard shares with the API: the validation of sends and template uploads, its limits.
export { MAX_FILES, MAX_MESSAGE, MAX_NAME, MAX_SUBJECT, normalizeFaxNumber, parseSendRequest, SEND_AT_SKEW_MS } from './validate/index.js';
export { templateUpload } from './validate/templates.js';
