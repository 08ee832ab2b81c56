// Our own: Node's Buffer pool hands out Buffers of uninitialised memory, and no library pools plain Uint8Arrays.
// Small byte buffers carved out of larger ones. A Uint8Array of more than 64 bytes gets its own
// off-heap backing store, several times the cost of a view of an existing one; the T.38 path
// makes tens of thousands of such buffers per call (datagrams, IFP packets, HDLC frames).

/**
 * Hands out fresh, zero-filled views of a shared slab. A view is never handed out twice, so it
 * is as safe to keep as `new Uint8Array(n)`; a slab lives as long as any view of it does.
 * Requests larger than a quarter of the slab get a buffer of their own.
 */
export class ByteSlab {
  private buffer: ArrayBuffer;
  private at = 0;

  constructor(private readonly slabBytes = 16384) {
    if (!Number.isInteger(slabBytes) || slabBytes < 64) throw new RangeError(`slab of ${slabBytes} bytes is below 64`);
    this.buffer = new ArrayBuffer(slabBytes);
  }

  /** `n` zero bytes (n ≥ 0). */
  take(n: number): Uint8Array {
    if (n > this.slabBytes >>> 2) return new Uint8Array(n);
    if (this.at + n > this.slabBytes) {
      this.buffer = new ArrayBuffer(this.slabBytes);
      this.at = 0;
    }
    const view = new Uint8Array(this.buffer, this.at, n);
    this.at += n;
    return view;
  }
}
