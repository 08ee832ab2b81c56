// T.38: fax over IP as a T.30 front end — IFP packets (ASN.1 PER) in UDPTL datagrams with
// redundancy or FEC, session parameters for SDP, and the transports that carry them.
export * from './errors.js';
export * from './ifp.js';
export * from './udptl.js';
export * from './udptl-receiver.js';
export * from './session-params.js';
export * from './modems.js';
export * from './transport.js';
export * from './memory-link.js';
export * from './udp.js';
export * from './random.js';
export * from './front-end.js';
export { maxChunkFor } from './tx-plan.js';
