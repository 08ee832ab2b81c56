// Bit order within bytes: TIFF FillOrder 2 stores the first bit in bit 0; the codecs read
// and write FillOrder 1 (bit 7 first), so FillOrder 2 data is reversed byte by byte.

const REVERSED = (() => {
  const t = new Uint8Array(256);
  for (let i = 0; i < 256; i++) {
    let v = 0;
    for (let b = 0; b < 8; b++) if (i & (1 << b)) v |= 0x80 >>> b;
    t[i] = v;
  }
  return t;
})();

/** A copy of `bytes` with the bit order of every byte reversed. */
export function reverseBits(bytes: Uint8Array): Uint8Array {
  return reverseBitsInto(bytes, new Uint8Array(bytes.length), 0);
}

/** Writes `bytes` with the bit order of every byte reversed into `out` at `offset`; returns `out`. */
export function reverseBitsInto(bytes: Uint8Array, out: Uint8Array, offset: number): Uint8Array {
  const n = bytes.length;
  const t = REVERSED;
  for (let i = 0; i < n; i++) out[offset + i] = t[bytes[i]!]!;
  return out;
}
