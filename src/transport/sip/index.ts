// SIP for fax calls: our SipStack over the npm `sip` package (UDP/TCP), SDP offer/answer for
// T.38 and G.711, digest authentication, the outgoing call with its dialog (re-INVITE to T.38,
// session timers, CANCEL/BYE), and SIP status → result code.
export * from './errors.js';
export * from './digest.js';
export * from './sdp.js';
export * from './status.js';
export { createSipStack, randomToken, type SipHop, type SipMessage, type SipStack, type RequestHandler } from './stack.js';
export * from './call.js';
export * from './incoming.js';
export * from './register.js';
