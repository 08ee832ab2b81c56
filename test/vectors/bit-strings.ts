// Test helpers: coded data as strings of '0'/'1' (readable vectors, bit surgery).

export function toBits(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += b.toString(2).padStart(8, '0');
  return s;
}

/** Packs a bit string MSB first, zero-padding the last byte. */
export function fromBits(bits: string): Uint8Array {
  const out = new Uint8Array(Math.ceil(bits.length / 8));
  for (let i = 0; i < bits.length; i++) if (bits[i] === '1') out[i >>> 3]! |= 0x80 >>> (i & 7);
  return out;
}

/** Bit positions just after each EOL (eleven or more 0s and a 1). */
export function eolEnds(bits: string): number[] {
  const ends: number[] = [];
  for (const m of bits.matchAll(/0{11,}1/g)) ends.push(m.index! + m[0].length);
  return ends;
}
