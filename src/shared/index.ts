export * from './clock.js';
export * from './errors.js';
export * from './log.js';
export * from './version.js';
