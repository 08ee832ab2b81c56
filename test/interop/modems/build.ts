// Builds modem-peer.c (spandsp's V.29 and V.27 ter) against the system's libspandsp into the
// interop cache (see ../build-c.ts).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSpandspProgram, type CBuild } from '../build-c.js';

export type ModemPeerBuild = CBuild;

const SOURCE = join(dirname(fileURLToPath(import.meta.url)), 'modem-peer.c');

/** Compiles the peer if needed; says where it is, or why it cannot be built. */
export function buildModemPeer(): ModemPeerBuild {
  return buildSpandspProgram(SOURCE, 'modem-peer');
}
