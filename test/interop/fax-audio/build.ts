// Builds the spandsp audio-line peer (fax-audio-peer.c: V.21 + HDLC, fax tones) against the
// system's libspandsp into the interop cache (see ../build-c.ts).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSpandspProgram, type CBuild } from '../build-c.js';

export type FaxAudioPeerBuild = CBuild;

const SOURCE = join(dirname(fileURLToPath(import.meta.url)), 'fax-audio-peer.c');

/** Compiles the peer if needed; says where it is, or why it cannot be built. */
export function buildFaxAudioPeer(): FaxAudioPeerBuild {
  return buildSpandspProgram(SOURCE, 'fax-audio-peer');
}
