// The engine layer: one fax call. Today the virtual line; the T.30 engine follows.
export * from './line.js';
export * from './virtual-line.js';
export * from './t30-call.js';
export * from './page-source.js';
export * from './gateways.js';
export * from './gateway-pool.js';
export * from './gateway-lines.js';
export * from './direct-line.js';
export * from './direct-call.js';
export { SipLine, type SipLineOptions, type SipLineMedia } from './sip-line.js';
