// The fast receiver's bits into events: V.17 hands AudioRx a symbol's bits at a time (fastWord),
// which a non-ECM page assembles into bytes several bits at a go and ECM passes to the deframer.
// Against what a transmitter sent, through chunks (CHUNK, 4096 bytes) whose boundary falls inside a
// symbol, and against the same receiver fed bit by bit (V.29, which has no word path).
import { describe, expect, it } from 'vitest';
import { HdlcTx, V17Tx, V29Tx } from '../../../native-free-dsp/index.js';
import type { FrontEndEvent, ModemSpec } from '../../t30/index.js';
import { AudioRx } from './audio-rx.js';
import { BitSource } from './bit-source.js';

/** Bytes of no pattern a word could line up with (a 32-bit LCG's top byte). */
function noise(n: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = 12345;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** A burst's audio from `fill` (a transmitter), then 200 ms of silence, in 160-sample blocks. */
function burst(tx: { tx(out: Int16Array): number }): Int16Array[] {
  const blocks: Int16Array[] = [];
  for (;;) {
    const b = new Int16Array(160);
    const n = tx.tx(b);
    blocks.push(b);
    if (n < 160) break;
  }
  for (let i = 0; i < 10; i++) blocks.push(new Int16Array(160));
  return blocks;
}

/** What AudioRx reports for the blocks; `whole`: all of them in one call (chunks fill up inside it). */
function receive(mode: 'image' | 'image-hdlc', modem: ModemSpec, blocks: Int16Array[], whole = false): FrontEndEvent[] {
  const events: FrontEndEvent[] = [];
  const rx = new AudioRx((e) => events.push(e));
  rx.setMode({ kind: mode, modem });
  if (whole) rx.rx(Int16Array.from(blocks.flatMap((b) => [...b])));
  else for (const b of blocks) rx.rx(b);
  return events;
}

function imageBytes(events: FrontEndEvent[]): { bytes: Uint8Array; chunks: number[] } {
  const chunks = events.flatMap((e) => (e.kind === 'image-data' ? [e.data] : []));
  return { bytes: Buffer.concat(chunks), chunks: chunks.map((c) => c.length) };
}

describe('AudioRx fast receiver data', () => {
  it.each([14400, 12000, 9600, 7200] as const)('non-ECM page at V.17 %i in one call: the bytes sent, in chunks of at most 4096', (rate) => {
    const data = noise(12_000);
    const bits = new BitSource();
    bits.data(data);
    const tx = new V17Tx({ bitRate: rate, getBit: bits.getBit });
    const events = receive('image', { modulation: 'v17', bitRate: rate }, burst(tx), true);
    const { bytes, chunks } = imageBytes(events);
    // After the data come its last symbol's padding, the shutdown's ones and what the receiver
    // makes of the signal's end until its carrier drops.
    expect(Buffer.from(bytes.subarray(0, data.length)).equals(Buffer.from(data))).toBe(true);
    // The 4096th byte ends inside a symbol at 14400, 12000 and 7200 bit/s (6, 5 and 3 bits).
    expect(chunks.slice(0, 2)).toEqual([4096, 4096]);
    expect(events.filter((e) => e.kind === 'image-end')).toHaveLength(1);
  });

  it('non-ECM page at V.17 14400 in 20 ms blocks: the same bytes, a chunk per block', () => {
    const data = noise(3000);
    const bits = new BitSource();
    bits.data(data);
    const events = receive('image', { modulation: 'v17', bitRate: 14400 }, burst(new V17Tx({ bitRate: 14400, getBit: bits.getBit })));
    const { bytes, chunks } = imageBytes(events);
    expect(Buffer.from(bytes.subarray(0, data.length)).equals(Buffer.from(data))).toBe(true);
    expect(Math.max(...chunks)).toBe(36); // 160 samples at 2400 baud, 6 bits a symbol
  });

  it('ECM frames at V.17 14400: every frame sent, in order, FCS good', () => {
    const frames = Array.from({ length: 40 }, (_, i) => {
      const f = noise(260);
      f[0] = 0xff;
      f[3] = i;
      return f;
    });
    const hdlc = new HdlcTx({ bitRate: 14400, preambleMs: 200, maxFrameBytes: 260 });
    for (const f of frames) hdlc.sendFrame(f);
    hdlc.end();
    const bits = new BitSource();
    bits.framer(hdlc);
    const events = receive('image-hdlc', { modulation: 'v17', bitRate: 14400 }, burst(new V17Tx({ bitRate: 14400, getBit: bits.getBit })));
    const got = events.flatMap((e) => (e.kind === 'hdlc' ? [e] : []));
    expect(got.map((e) => e.crcOk)).toEqual(frames.map(() => true));
    got.forEach((e, i) => expect(Buffer.from(e.frame).equals(Buffer.from(frames[i]!))).toBe(true));
  });

  it('a V.29 page (bit by bit) comes out as the same bytes', () => {
    const data = noise(6000);
    const bits = new BitSource();
    bits.data(data);
    const events = receive('image', { modulation: 'v29', bitRate: 9600 }, burst(new V29Tx({ bitRate: 9600, getBit: bits.getBit })));
    const { bytes } = imageBytes(events);
    expect(Buffer.from(bytes.subarray(0, data.length)).equals(Buffer.from(data))).toBe(true);
  });
});
