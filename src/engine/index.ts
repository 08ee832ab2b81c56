// The engine layer: one fax call over a FaxLine — the virtual line (test keys), direct lines, the
// gateway pool with a SIP line per gateway (T.38 or audio), inbound SIP calls.
export * from './line.js';
export * from './virtual-line.js';
export * from './t30-call.js';
export * from './page-source.js';
export * from './gateways.js';
export * from './gateway-pool.js';
export * from './gateway-lines.js';
export * from './direct-line.js';
export * from './direct-call.js';
export { SipLine, type SipLineOptions } from './sip-line.js';
