// The jobs layer: lifecycle, dispatcher, retry policy and the balance rules.
export * from './config.js';
export * from './retry.js';
export * from './prepare.js';
export * from './service.js';
export * from './dispatcher.js';
export { storeChannels } from './store-channels.js';
export { addCallerId, removeCallerId } from './caller-ids.js';
