// Frames in the notation of TSB-85 test scripts: octets written first-transmitted bit first
// (so DIS is "01", MCF "31", the final-frame control field "C8"). These helpers convert to
// and from the octet values the T.30 machine and its front ends use.

import { reverseBits } from '../../src/codecs/index.js';

/** "FF C8 01 00 50 00" → the frame as octets (FF 13 80 00 0A 00). */
export function tsb(notation: string): Uint8Array {
  const bytes = notation.trim().split(/\s+/).map((h) => parseInt(h, 16));
  if (bytes.some((b) => !(b >= 0 && b <= 255))) throw new Error(`tsb: bad octet in "${notation}"`);
  return reverseBits(Uint8Array.from(bytes));
}

/** The frame in TSB-85 notation (upper-case hex, space separated). */
export function toTsb(frame: Uint8Array): string {
  return [...reverseBits(frame)].map((b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ');
}

/** The FIF (octets after FF C8 xx) of a TSB-85 frame. */
export function tsbFif(notation: string): Uint8Array {
  return tsb(notation).subarray(3);
}
