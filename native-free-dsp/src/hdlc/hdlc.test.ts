import { describe, expect, it } from 'vitest';
import { END_OF_DATA } from '../common/types.js';
import { fcs16, fcs32, fcsOk } from './crc.js';
import { HdlcRx, type HdlcFrame, type HdlcRxStatus } from './hdlc-rx.js';
import { HdlcTx, type HdlcTxStatus } from './hdlc-tx.js';

/** Runs a framer to its end (or `limit` bits) and returns the bits. */
function drain(tx: HdlcTx, limit = 1_000_000): Uint8Array {
  const bits: number[] = [];
  for (let b = tx.getBit(); b !== END_OF_DATA && bits.length < limit; b = tx.getBit()) bits.push(b);
  return Uint8Array.from(bits);
}

function receive(bits: Uint8Array, crcBits: 16 | 32 = 16) {
  const frames: HdlcFrame[] = [];
  const status: HdlcRxStatus[] = [];
  const rx = new HdlcRx({ crcBits, onFrame: (f) => frames.push(f), onStatus: (s) => status.push(s) });
  rx.putBits(bits);
  return { frames, status, rx };
}

function rand(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

describe('FCS', () => {
  // Check values of the catalogued CRCs over "123456789": CRC-16/IBM-SDLC (X.25) 0x906e, CRC-32 0xcbf43926.
  it.each([
    { name: 'CRC-16/ITU-T', f: fcs16, check: 0x906e },
    { name: 'CRC-32', f: fcs32, check: 0xcbf43926 },
  ])('$name of "123456789"', ({ f, check }) => {
    expect(f(new TextEncoder().encode('123456789'))).toBe(check);
  });
});

const CASES = [
  { crcBits: 16 as const, name: 'T.30 frames, CRC-16' },
  { crcBits: 32 as const, name: 'ECM frames, CRC-32' },
];

describe.each(CASES)('HDLC $name', ({ crcBits }) => {
  it('round-trips frames of every length 1…300 and worst-case stuffing patterns', () => {
    const r = rand(crcBits);
    const sent: Uint8Array[] = [];
    for (let n = 1; n <= 300; n++) sent.push(Uint8Array.from({ length: n }, () => Math.floor(r() * 256)));
    sent.push(new Uint8Array(64).fill(0xff), new Uint8Array(64).fill(0x7e), new Uint8Array(64).fill(0x3e), new Uint8Array(64).fill(0xfc));
    const tx = new HdlcTx({ crcBits, preambleFlags: 3 });
    for (const f of sent) tx.sendFrame(f);
    tx.end();
    const bits = drain(tx);
    // No six ones in a row anywhere except inside flags.
    const { frames, status } = receive(bits, crcBits);
    expect(frames.map((f) => f.crcOk).every(Boolean)).toBe(true);
    expect(frames.map((f) => Array.from(f.frame))).toEqual(sent.map((f) => Array.from(f)));
    expect(status).toEqual([]); // 3 preamble flags < framingOkFlags 5
  });

  it('sends a 1 s preamble of flags at the given bit rate, reports framing-ok after 5 flags', () => {
    const events: HdlcTxStatus[] = [];
    const tx = new HdlcTx({ crcBits, bitRate: 300, onStatus: (e) => events.push(e) });
    expect(tx.preambleFlags).toBe(38); // 1 s at 300 bit/s = 37.5 flags
    tx.sendFrame(Uint8Array.of(0xff, 0x13, 0x80));
    tx.end();
    const bits = drain(tx);
    expect(events).toEqual([{ kind: 'underflow' }, { kind: 'end' }]);
    for (let i = 0; i < 38 * 8; i++) expect(bits[i]).toBe((0x7e >> (i % 8)) & 1);
    const { frames, status } = receive(bits, crcBits);
    expect(status).toEqual([{ kind: 'framing-ok' }]);
    expect(frames).toEqual([{ frame: Uint8Array.of(0xff, 0x13, 0x80), crcOk: true }]);
  });

  it('reports a corrupted frame with crcOk false and still receives the next one', () => {
    const tx = new HdlcTx({ crcBits, preambleFlags: 2 });
    const a = Uint8Array.from({ length: 20 }, (_, i) => i * 3);
    tx.sendFrame(a);
    tx.sendFrame(Uint8Array.of(1, 2, 3, 4));
    tx.end();
    const bits = drain(tx);
    bits[2 * 8 + 8 * 5 + 3]! ^= 1; // a data bit of the first frame (octet 5 holds 15 = no stuffing nearby)
    const { frames } = receive(bits, crcBits);
    expect(frames.map((f) => f.crcOk)).toEqual([false, true]);
    expect(frames[0]!.frame.length).toBe(20);
    expect(frames[1]!.frame).toEqual(Uint8Array.of(1, 2, 3, 4));
  });

  it('aborts a frame on seven ones, then receives the next', () => {
    const events: HdlcRxStatus[] = [];
    const frames: HdlcFrame[] = [];
    const rx = new HdlcRx({ crcBits, onFrame: (f) => frames.push(f), onStatus: (e) => events.push(e) });
    const tx = new HdlcTx({ crcBits, preambleFlags: 1 });
    tx.sendFrame(new Uint8Array(40).fill(0x11));
    tx.sendFrame(Uint8Array.of(9, 9, 9));
    tx.end();
    let n = 0;
    for (let b = tx.getBit(); b !== END_OF_DATA; b = tx.getBit()) {
      rx.putBit(b);
      if (++n === 8 + 100) tx.abort();
    }
    expect(events).toEqual([{ kind: 'abort', octets: expect.any(Number) }]);
    expect(frames).toEqual([{ frame: Uint8Array.of(9, 9, 9), crcOk: true }]);
    expect(rx.stats.aborts).toBe(1);
  });

  it('drops a frame longer than maxFrameBytes and reports it', () => {
    const events: HdlcRxStatus[] = [];
    const frames: HdlcFrame[] = [];
    const rx = new HdlcRx({ crcBits, maxFrameBytes: 16, onFrame: (f) => frames.push(f), onStatus: (e) => events.push(e) });
    const tx = new HdlcTx({ crcBits, preambleFlags: 1 });
    tx.sendFrame(new Uint8Array(17));
    tx.sendFrame(new Uint8Array(16).fill(5));
    tx.end();
    rx.putBits(drain(tx));
    expect(events).toEqual([{ kind: 'too-long' }]);
    expect(frames).toEqual([{ frame: new Uint8Array(16).fill(5), crcOk: true }]);
  });

  it('idles on flags and reports underflow once when the queue runs dry', () => {
    const events: HdlcTxStatus[] = [];
    const tx = new HdlcTx({ crcBits, preambleFlags: 2, onStatus: (e) => events.push(e) });
    const idle: number[] = [];
    for (let i = 0; i < 800; i++) idle.push(tx.getBit());
    expect(idle).toEqual(Array.from({ length: 800 }, (_, i) => (0x7e >> (i % 8)) & 1));
    expect(events).toEqual([{ kind: 'underflow' }]);
    tx.sendFrame(Uint8Array.of(0x55));
    tx.end();
    const { frames } = receive(Uint8Array.from([...idle, ...drain(tx)]), crcBits);
    expect(frames).toEqual([{ frame: Uint8Array.of(0x55), crcOk: true }]);
    expect(tx.getBit()).toBe(END_OF_DATA);
  });
});

describe('HDLC receiver details', () => {
  it('accepts flags that share a zero and frames separated by one shared-zero flag', () => {
    // 0111111011111101111110 = three flags sharing zeros, then a frame.
    const shared = [0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0];
    const tx = new HdlcTx({ preambleFlags: 1 });
    tx.sendFrame(Uint8Array.of(0xc0, 0x01));
    tx.end();
    const bits = Uint8Array.from([...shared, ...drain(tx).slice(8)]);
    const { frames } = receive(bits);
    expect(frames).toEqual([{ frame: Uint8Array.of(0xc0, 0x01), crcOk: true }]);
  });

  it('reports a frame that does not end on an octet boundary as bad', () => {
    const tx = new HdlcTx({ preambleFlags: 1 });
    tx.sendFrame(Uint8Array.of(0x00, 0x00, 0x00, 0x00));
    tx.end();
    const bits = Array.from(drain(tx));
    bits.splice(8 + 5, 1); // drop one data bit
    const { frames } = receive(Uint8Array.from(bits));
    expect(frames.length).toBe(1);
    expect(frames[0]!.crcOk).toBe(false);
  });

  it('validates its arguments', () => {
    expect(() => new HdlcRx({} as never)).toThrow(/HdlcRx: onFrame must be a function/);
    expect(() => new HdlcRx({ onFrame: () => {}, crcBits: 8 as never })).toThrow(/HdlcRx: crcBits must be one of 16, 32, got 8/);
    expect(() => new HdlcTx({ interFrameFlags: 0 })).toThrow(/HdlcTx: interFrameFlags must be an integer in \[1, 1000\], got 0/);
    expect(() => new HdlcTx().sendFrame(new Uint8Array(0))).toThrow(/HdlcTx: frame must be a Uint8Array of 1…2048 octets, got 0/);
    expect(fcsOk(Uint8Array.of(1, 2), 16)).toBe(false);
  });
});

describe('HdlcRx putWord', () => {
  /** A stream with everything the deframer reports: good, bad, aborted and too-long frames, shared flags. */
  function stream(crcBits: 16 | 32): Uint8Array {
    const rnd = rand(7 + crcBits);
    const tx = new HdlcTx({ crcBits, preambleFlags: 6 });
    for (let i = 0; i < 30; i++) tx.sendFrame(Uint8Array.from({ length: 1 + Math.floor(rnd() * 60) }, () => (rnd() < 0.5 ? 0xff : Math.floor(rnd() * 256))));
    tx.end();
    const bits = Array.from(drain(tx));
    bits[300]! ^= 1; // a bad frame (or a broken flag)
    bits.splice(900, 0, 1, 1, 1, 1, 1, 1, 1, 1); // an abort
    return Uint8Array.from([0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, ...bits]);
  }

  for (const crcBits of [16, 32] as const) {
    it(`reports what putBit reports, at the same bit, whatever the word sizes (FCS-${crcBits})`, () => {
      const bits = stream(crcBits);
      // Bit by bit: each event at the index of the bit that raised it.
      const byBit: unknown[] = [];
      const rxBit = new HdlcRx({ crcBits, maxFrameBytes: 40, onFrame: (f) => byBit.push(f), onStatus: (s) => byBit.push(s) });
      const at: number[] = [];
      bits.forEach((b, i) => {
        const before = byBit.length;
        rxBit.putBit(b);
        for (let k = before; k < byBit.length; k++) at.push(i);
      });
      expect(rxBit.stats.goodFrames).toBeGreaterThan(20);
      expect(rxBit.stats.badFrames + rxBit.stats.aborts + rxBit.stats.tooLong).toBeGreaterThanOrEqual(3);
      for (const seed of [1, 2, 3]) {
        const rnd = rand(seed);
        const events: unknown[] = [];
        const eventAt: number[] = [];
        const rx = new HdlcRx({ crcBits, maxFrameBytes: 40, onFrame: (f) => events.push(f), onStatus: (s) => events.push(s) });
        let pos = 0;
        while (pos < bits.length) {
          const n = Math.min(1 + Math.floor(rnd() * 31), bits.length - pos);
          let word = 0;
          for (let i = 0; i < n; i++) word = (word << 1) | bits[pos + i]!;
          const before = events.length;
          const took = rx.putWord(word >>> 0, n);
          expect(took).toBeGreaterThanOrEqual(1);
          expect(took).toBeLessThanOrEqual(n);
          // An event comes only from the last bit taken (the caller looks before handing on the rest).
          for (let k = before; k < events.length; k++) eventAt.push(pos + took - 1);
          pos += took;
        }
        expect(events).toEqual(byBit);
        expect(eventAt).toEqual(at);
        expect(rx.stats).toEqual(rxBit.stats);
      }
    });
  }
});
