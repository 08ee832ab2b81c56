// Changing elements (T.4 4.2.1.3.1): the positions in a row where the colour differs from
// the pixel to their left, the pixel before the row being an imaginary white one. Both the
// 1-D and 2-D coders work on these lists instead of on pixels; the coder kernel finds them in
// a row (coder.wat $changes), the decoders write them.
//
// A list for a row of width W holds n changes at increasing positions < W; entry i is a
// change to black when i is even, to white when i is odd; it is followed by three entries
// equal to W (the "imaginary changing element" after the line) so that b1/b2/a2 lookups
// need no bounds checks.

/** Capacity a changes list needs for rows of this width. */
export function changesCapacity(width: number): number {
  return width + 4;
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
