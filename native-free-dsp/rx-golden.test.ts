// The HDLC deframer's events, each with the line bit it came on, hashed against what the
// arithmetic deframer of 2e52c70 reported (before issue 17's table deframer, session 14): 1,600
// streams — random bits, runs of ones, and framed streams (CRC 16 and 32, all-ones, flag-like and
// random octets, short and long frames) with bit errors, inserted ones and dropped bits — through
// short and long frame limits, 1–6 framing flags, bad frames reported or not, a restart part way,
// bits fed one at a time or through putBits in two pieces. tx-golden.test.ts hashes frames and
// events without their bit; this one also holds every event to its bit.
import { describe, expect, it } from 'vitest';
import { HdlcRx } from './src/hdlc/hdlc-rx.js';
import { HdlcTx } from './src/hdlc/hdlc-tx.js';
import { linesHash as hash } from '../test/kit/golden-hash.js';

/** A small LCG, so that the streams are the same on every run and every tree. */
function lcg(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return Math.floor(((s >>> 8) / 16_777_216) * n);
  };
}

function stream(ri: (n: number) => number, kind: number): number[] {
  const bits: number[] = [];
  if (kind <= 1) {
    // Random bits; kind 1 mostly ones (flags, aborts and idle runs by chance).
    const n = 200 + ri(3000);
    const p = kind === 0 ? 500 : 600 + ri(350);
    for (let i = 0; i < n; i++) bits.push(ri(1000) < p ? 1 : 0);
    return bits;
  }
  const tx = new HdlcTx({ crcBits: kind === 3 ? 32 : 16, preambleFlags: 1 + ri(6), interFrameFlags: 1 + ri(3) });
  for (let f = 0, nf = 1 + ri(8); f < nf; f++) {
    const fr = new Uint8Array(ri(5) === 0 ? 1 + ri(4) : 1 + ri(kind === 4 ? 300 : 60));
    const mode = ri(3);
    for (let k = 0; k < fr.length; k++) fr[k] = mode === 0 ? 0xff : mode === 1 && ri(2) === 0 ? 0x7e : ri(256);
    tx.sendFrame(fr);
  }
  for (let i = 0, n = 100 + ri(6000); i < n; i++) {
    if (ri(2000) === 0) tx.abort();
    const b = tx.getBit();
    if (b < 0) break;
    bits.push(b);
  }
  const damage = ri(4);
  if (damage === 1) for (let i = 0; i < bits.length; i++) if (ri(1000) < 3) bits[i]! ^= 1;
  if (damage === 2) for (let k = 0; k < 3; k++) bits.splice(ri(bits.length), 0, ...new Array<number>(ri(12)).fill(1));
  if (damage === 3) for (let k = 0; k < 3; k++) bits.splice(ri(bits.length), ri(5));
  return bits;
}

/** Every event of `count` streams as "kind@bit:…", then each deframer's counts. */
function events(seed: number, count: number): string[] {
  const ri = lcg(seed);
  const out: string[] = [];
  for (let s = 0; s < count; s++) {
    const bits = stream(ri, s % 6 === 5 ? 2 : s % 6);
    const crcBits = s % 6 === 3 || ri(10) === 0 ? 32 : 16;
    const maxFrameBytes = ri(3) === 0 ? 1 + ri(40) : 2048;
    const restartAt = ri(3) === 0 ? ri(bits.length) : -1;
    const cut = ri(4) === 0 ? ri(bits.length + 1) : -1;
    let at = 0;
    const rx = new HdlcRx({
      crcBits,
      maxFrameBytes,
      framingOkFlags: 1 + ri(6),
      reportBadFrames: ri(4) !== 0,
      onFrame: (f) => out.push(`F@${at}:${f.crcOk}:${f.frame.join(',')}`),
      onStatus: (st) => out.push(`S@${at}:${st.kind}:${st.kind === 'abort' ? st.octets : ''}`),
    });
    if (cut >= 0) {
      // Through putBits: the events' bit is the piece they came in.
      const u = Uint8Array.from(bits);
      rx.putBits(u.subarray(0, cut));
      at = 1;
      rx.putBits(u.subarray(cut));
    } else
      for (at = 0; at < bits.length; at++) {
        if (at === restartAt) {
          rx.restart();
          out.push(`R@${at}`);
        }
        rx.putBit(bits[at]!);
      }
    out.push(JSON.stringify(rx.stats));
  }
  return out;
}

const EXPECTED: Record<string, string> = {
  // Printed at 2e52c70 (the arithmetic deframer) with GOLDEN_PRINT=1.
  'seed 1': 'ccc70b4e/4945',
  'seed 2': '90eee82a/4854',
};

describe('HDLC deframer golden (every event on its bit, as at 2e52c70)', () => {
  for (const seed of [1, 2]) {
    it(`seed ${seed}: 800 streams`, () => {
      const got = hash(events(seed, 800));
      if (process.env.GOLDEN_PRINT) console.log(`  'seed ${seed}': '${got}',`);
      expect(got).toBe(EXPECTED[`seed ${seed}`]);
    });
  }
});
