// Workarounds for known bugs in our own code that the interop tests found, each with the test
// that shows the bug on its own (marked it.fails). Remove a workaround when its test passes.
import type { T30FrontEnd } from '../../src/t30/index.js';

/**
 * T38FrontEnd hands HDLC octets between IFP packets and T.30 as they stand in the IFP packet
 * (first bit in bit 7), while T.30 frames are written first bit in bit 0 (src/t30/fcf.ts,
 * spandsp's convention; spandsp's t38_terminal bit-reverses every HDLC octet both ways).
 * Shown by t38-front-end-vs-spandsp.test.ts ("KNOWN BUG: spandsp's CSI and DIS …").
 */
export const HDLC_BIT_ORDER_BUG = true;

const REVERSED = Uint8Array.from({ length: 256 }, (_, b) => {
  let r = 0;
  for (let i = 0; i < 8; i++) r |= ((b >> i) & 1) << (7 - i);
  return r;
});

export const reverseOctets = (f: Uint8Array): Uint8Array => f.map((b) => REVERSED[b]!);

/** The front end with its HDLC frames bit-reversed on the way in and out (while the bug lasts). */
export function hdlcBitOrderShim(fe: T30FrontEnd): T30FrontEnd {
  if (!HDLC_BIT_ORDER_BUG) return fe;
  return {
    command: (c) => fe.command(c.kind === 'send-hdlc' ? { ...c, frames: c.frames.map(reverseOctets) } : c),
    onEvent: (h) => fe.onEvent((e) => h(e.kind === 'hdlc' ? { ...e, frame: reverseOctets(e.frame) } : e)),
    close: () => fe.close(),
  };
}

/**
 * UdpTransport.close() closes its socket at once, and node:dgram drops the datagrams handed to
 * send() just before (they wait for an address lookup on the next tick): the last packets of a
 * call (the DCN's repeats, the closing no-signal) never leave. LockstepTransport closes the
 * inner transport a tick later while this lasts. Seen as a lockstep barrier error ("643 of 646
 * datagrams arrived") right after our side hangs up.
 */
export const UDP_CLOSE_DROPS_PENDING = true;

/**
 * UdpTransport never connect()s its socket, so ICMP port unreachable (the far end's socket is
 * gone: it hung up) is never reported: our side sees only silence and ends on a timer ("page
 * failed", -3107) instead of "call dropped" (-3108). With a connected socket node:dgram reports
 * ECONNREFUSED on the next send, which udp.ts would pass to onClose → line-down.
 */
export const UDP_HANGUP_UNSEEN = true;
