// Builds the spandsp T.38 test peer (t38peer.c) against the system's libspandsp (Debian
// libspandsp-dev 0.0.6) into the interop cache (see ../build-c.ts).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSpandspProgram, type CBuild } from '../build-c.js';

export { CACHE_DIR } from '../build-c.js';
export type PeerBuild = CBuild;

const SOURCE = join(dirname(fileURLToPath(import.meta.url)), 't38peer.c');

/**
 * Compiles the peer if needed and says where it is, or why it cannot be built (spandsp, libtiff
 * or a C compiler missing). Synchronous so test files can decide to skip at collection time.
 */
export function buildPeer(): PeerBuild {
  return buildSpandspProgram(SOURCE, 't38peer', ['-ltiff']);
}

/** True when the interop tests must run (CI): a missing spandsp is then a failure, not a skip. */
export const INTEROP_REQUIRED = Boolean(process.env.CI);

// `node --import tsx test/interop/spandsp/build.ts` builds and prints the binary's path.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const b = buildPeer();
  if (b.ok) console.log(b.binary);
  else {
    console.error(b.reason);
    process.exit(1);
  }
}
