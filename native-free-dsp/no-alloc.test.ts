// "Nothing allocated per sample", checked loosely: run each block over 10 s of audio in 20 ms
// buffers, eight times, and look at heap growth per round. Until V8 has optimized a function the
// interpreter boxes every floating-point result (a heap allocation), so the first rounds grow the
// heap whatever the code does — more so for per-block code (detectors) that gets hot slowly; the
// test asks that once optimized, some round stays under 64 KB (up to 40 rounds: on a loaded machine
// V8's background compiler may take several rounds to finish). A block that allocated even 8 bytes
// a sample in optimized code would grow the heap by 640 KB every round (the loop and the
// measurement themselves cost ≈ 20 KB). The garbage collector is reached through V8 flags so each
// round starts from a clean heap (and none is likely during it: new space is megabytes).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { BerTester, PrbsGenerator } from './src/ber/prbs.js';
import { alawDecode, alawEncode, ulawDecode, ulawEncode } from './src/g711/g711.js';
import { HdlcRx } from './src/hdlc/hdlc-rx.js';
import { HdlcTx } from './src/hdlc/hdlc-tx.js';
import { LineModel } from './src/line-model/line-model.js';
import { PowerMeter } from './src/power/power-meter.js';
import { CallProgressRx } from './src/tones/call-progress-rx.js';
import { FaxToneRx } from './src/tones/fax-tone-rx.js';
import { TONES, ToneTx } from './src/tones/tone-tx.js';
import { V21Rx, V21Tx } from './src/v21/v21.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const BLOCK = 160;
const SECONDS = 10;

/** A block under test: called once per 20 ms buffer of audio (`audio` holds a V.21 signal). */
interface Case {
  name: string;
  make: () => (audio: Int16Array, scratch: Int16Array, codes: Uint8Array) => void;
}

function v21Audio(seconds: number): Int16Array {
  const gen = new PrbsGenerator({ pattern: 'prbs11' });
  const tx = new V21Tx({ getBit: gen.getBit });
  const out = new Int16Array(seconds * 8000);
  tx.tx(out);
  return out;
}

const CASES: Case[] = [
  { name: 'V21Tx', make: () => { const g = new PrbsGenerator({ pattern: 'prbs11' }); const tx = new V21Tx({ getBit: g.getBit }); return (_a, s) => void tx.tx(s); } },
  { name: 'V21Rx + BerTester', make: () => { const b = new BerTester({ pattern: 'prbs11' }); const rx = new V21Rx({ putBit: b.putBit }); return (a) => rx.rx(a); } },
  { name: 'V21Rx + HdlcRx', make: () => { const h = new HdlcRx({ onFrame: () => {} }); const rx = new V21Rx({ putBit: h.putBit }); return (a) => rx.rx(a); } },
  { name: 'HdlcTx (flags) → V21Tx', make: () => { const h = new HdlcTx(); const tx = new V21Tx({ getBit: h.getBit }); return (_a, s) => void tx.tx(s); } },
  { name: 'ToneTx (ANSam/)', make: () => { const t = new ToneTx({ ...TONES.ansamPr, durationMs: undefined }); return (_a, s) => void t.tx(s); } },
  { name: 'ToneTx (busy)', make: () => { const t = new ToneTx(TONES.busy); return (_a, s) => void t.tx(s); } },
  { name: 'FaxToneRx', make: () => { const d = new FaxToneRx({ onEvent: () => {} }); return (a) => d.rx(a); } },
  { name: 'CallProgressRx', make: () => { const d = new CallProgressRx({ onEvent: () => {} }); return (a) => d.rx(a); } },
  { name: 'LineModel (noise, offset, echo, µ-law)', make: () => { const m = new LineModel({ noiseDbm0: -30, freqOffsetHz: 7, echo: { delayMs: 10, lossDb: 12 }, codec: 'ulaw' }); return (a, s) => void m.process(a, s); } },
  { name: 'PowerMeter', make: () => { const p = new PowerMeter({ windowSamples: 160 }); return (a) => p.rx(a); } },
  { name: 'G.711 encode + decode', make: () => (a, s, c) => { ulawEncode(a, c); ulawDecode(c, s); alawEncode(a, c); alawDecode(c, s); } },
];

describe.each(CASES)('$name', ({ make }) => {
  it(`grows the heap by < 64 KB over ${SECONDS} s of audio`, () => {
    const audio = v21Audio(SECONDS);
    const scratch = new Int16Array(BLOCK);
    const codes = new Uint8Array(BLOCK);
    const step = make();
    const views = Array.from({ length: audio.length / BLOCK }, (_, k) => audio.subarray(k * BLOCK, (k + 1) * BLOCK));
    const growth: number[] = [];
    for (let round = 0; round < 40; round++) {
      gc();
      const before = process.memoryUsage().heapUsed;
      for (const v of views) step(v, scratch, codes);
      growth.push(process.memoryUsage().heapUsed - before);
      if (round >= 2 && growth[round]! < 64 * 1024) break;
    }
    // The first rounds still see the JIT at work (code objects and boxed numbers count as heap).
    expect(Math.min(...growth.slice(2))).toBeLessThan(64 * 1024);
  });
});
