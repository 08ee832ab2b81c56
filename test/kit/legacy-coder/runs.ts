// A copy of the line coders as they were before the kernel (2e52c70: src/codecs/), for the tests that
// check the kernel codes every row shape to the same bytes (src/codecs/coder-kernel.test.ts).
// Changing elements (T.4 4.2.1.3.1): the positions in a row where the colour differs from
// the pixel to their left, the pixel before the row being an imaginary white one. Both the
// 1-D and 2-D coders work on these lists instead of on pixels.
//
// A list for a row of width W holds n changes at increasing positions < W; entry i is a
// change to black when i is even, to white when i is odd; it is followed by three entries
// equal to W (the "imaginary changing element" after the line) so that b1/b2/a2 lookups
// need no bounds checks.

/** Capacity a changes list needs for rows of this width. */
export function changesCapacity(width: number): number {
  return width + 4;
}

/** Whether this machine stores words little-endian (wordView's words are byte-swapped then). */
const LITTLE_ENDIAN = new Uint8Array(Int32Array.of(1).buffer)[0] === 1;

/**
 * A 32-bit view of a bitmap's data for rowChanges() to read rows whose offset is a multiple
 * of 4 a word at a time; null where it cannot (unaligned data, or a big-endian machine).
 */
export function wordView(data: Uint8Array): Int32Array | null {
  return LITTLE_ENDIAN && data.byteOffset % 4 === 0 ? new Int32Array(data.buffer, data.byteOffset, data.length >>> 2) : null;
}

/**
 * Fills `out` with the changes of the row at byte `off` and returns n (the three sentinels
 * are written too). The row is read 32 pixels at a time (from `words`, see wordView, when
 * the row is aligned): a word XOR the current colour has its 1 bits where pixels differ
 * from it, so Math.clz32 finds the next change; words all of the current colour (most of
 * a page is white paper) are passed over in a loop of their own.
 */
export function rowChanges(data: Uint8Array, off: number, width: number, out: Int32Array, words: Int32Array | null = null): number {
  let n = 0;
  let color = 0; // 0 while the current colour is white, -1 (all ones) while black
  const fullWords = width >>> 5;
  if (words !== null && (off & 3) === 0) {
    const w0 = off >>> 2;
    for (let k = 0; ; k++) {
      while (k < fullWords && words[w0 + k] === color) k++;
      if (k >= fullWords) break;
      const v = words[w0 + k]!;
      let x = ((v << 24) | ((v & 0xff00) << 8) | ((v >>> 8) & 0xff00) | (v >>> 24)) ^ color; // bytes in reading order
      const base = k << 5;
      do {
        const p = Math.clz32(x);
        out[n++] = base + p;
        color = ~color;
        x = ~x & (0x7fffffff >>> p); // the pixels after p against the new colour
      } while (x !== 0);
    }
  } else {
    for (let k = 0, o = off; k < fullWords; k++, o += 4) {
      let x = ((data[o]! << 24) | (data[o + 1]! << 16) | (data[o + 2]! << 8) | data[o + 3]!) ^ color;
      const base = k << 5;
      while (x !== 0) {
        const p = Math.clz32(x);
        out[n++] = base + p;
        color = ~color;
        x = ~x & (0x7fffffff >>> p);
      }
    }
  }
  const tailBits = width & 31;
  if (tailBits > 0) {
    // The last 1..31 pixels, from only the bytes that hold them; bits past the width are masked.
    const o = off + (fullWords << 2);
    let word = 0;
    const tailBytes = (tailBits + 7) >>> 3;
    for (let b = 0; b < tailBytes; b++) word |= data[o + b]! << (24 - 8 * b);
    let x = (word ^ color) & (-1 << (32 - tailBits));
    const base = fullWords << 5;
    while (x !== 0) {
      const p = Math.clz32(x);
      out[n++] = base + p;
      x = ~x & (0x7fffffff >>> p) & (-1 << (32 - tailBits));
    }
  }
  out[n] = width;
  out[n + 1] = width;
  out[n + 2] = width;
  return n;
}

/**
 * Sets the black runs described by a changes list (n entries, then the sentinels) into a
 * zeroed row. A run's first byte may hold the end of the run before it; its last byte is new.
 */
export function fillFromChanges(data: Uint8Array, off: number, changes: Int32Array, n: number): void {
  for (let i = 0; i < n; i += 2) {
    const x0 = changes[i]!;
    const x1 = changes[i + 1]!; // the sentinel (the width) ends a black run at the end of the row
    let b = off + (x0 >>> 3);
    const last = off + ((x1 - 1) >>> 3);
    const head = 0xff >>> (x0 & 7);
    const tail = (0xff00 >>> (((x1 - 1) & 7) + 1)) & 0xff;
    if (b === last) {
      data[b] = data[b]! | (head & tail);
      continue;
    }
    data[b] = data[b]! | head;
    for (b++; b < last; b++) data[b] = 0xff;
    data[last] = tail;
  }
}

/** An all-white reference line (the line before the first one, T.4 4.2.1.3.4 / T.6 2.2.4). */
export function whiteChanges(width: number, out: Int32Array): number {
  out[0] = width;
  out[1] = width;
  out[2] = width;
  return 0;
}
