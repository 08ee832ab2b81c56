// The V.17 receiver's output, hashed against what the tree of ef2063a produced (before session 17's
// receive loop, common/demod-front-end.ts's shape for V.17): every delivered bit and status event
// with the sample it came on, and after every block the carrier frequency, the SNRs, segment 4's
// error count and (every 7th block) the 33 equalizer coefficients — over each rate, clean and
// noisy lines, a 7 Hz offset with a listener echo, a signal 10 dB up, long then short training,
// bits by putBit or by putWord, in blocks of 160, 37, 1 and 333 samples.
import { describe, expect, it } from 'vitest';
import { PrbsGenerator } from './src/ber/index.js';
import { V17Rx } from './src/v17/v17-rx.js';
import { V17Tx } from './src/v17/v17-tx.js';
import type { V17BitRate } from './src/v17/types.js';
import { linesHash as hash } from '../test/kit/golden-hash.js';
import { twoBurstsThroughLine, type BurstLine } from '../test/kit/two-bursts.js';

interface Case extends BurstLine {
  rate: V17BitRate;
  block: number;
  words: boolean;
}

/** Two bursts (the second with the short training) with silence around them, through the line. */
function audio(c: Case): Int16Array {
  const g = new PrbsGenerator({ pattern: 'prbs11' });
  return twoBurstsThroughLine(c, (shortTrain, levelDbm0) => {
    const buf = new Int16Array(8000 * 4);
    return buf.subarray(0, new V17Tx({ bitRate: c.rate, getBit: g.getBit, levelDbm0, shortTrain }).tx(buf));
  });
}

function received(c: Case): string {
  const a = audio(c);
  const lines: string[] = [];
  let at = 0;
  let downs = 0;
  const rx = new V17Rx({
    bitRate: c.rate,
    putBit: (b) => lines.push(`b${b}@${at}`),
    putWord: c.words ? (w, n) => lines.push(`w${w},${n}@${at}`) : undefined,
    onStatus: (s) => {
      lines.push(`${s}@${at}`);
      if (s === 'carrierDown') downs++;
    },
  });
  let restarted = false;
  for (let i = 0, k = 0; i < a.length; i += c.block, k++) {
    at = i;
    if (downs === 1 && !restarted) {
      rx.restart(c.rate, true);
      restarted = true;
    }
    rx.rx(a.subarray(i, Math.min(a.length, i + c.block)));
    lines.push(`${rx.carrierFrequencyHz} ${rx.symbolSnrDb} ${rx.trainingSnrDb} ${rx.trainingOnesErrors} ${rx.trained}`);
    if (k % 7 === 0) {
      const eq = (rx as unknown as { eq: { coeffRe(i: number): number; coeffIm(i: number): number } }).eq;
      for (let t = 0; t < 33; t++) lines.push(`${eq.coeffRe(t)} ${eq.coeffIm(t)}`);
    }
  }
  return hash(lines);
}

const THRESHOLD: Record<V17BitRate, number> = { 14400: 20, 12000: 17, 9600: 14, 7200: 11 };
const CASES: (Case & { name: string })[] = ([14400, 12000, 9600, 7200] as const).flatMap((rate, r) => [
  { name: `${rate} clean, blocks of 160, putBit`, rate, seed: 1 + r, block: 160, words: false },
  { name: `${rate} at ${THRESHOLD[rate]} dB SNR, blocks of 333, putWord`, rate, snrDb: THRESHOLD[rate], seed: 11 + r, block: 333, words: true },
  { name: `${rate} 7 Hz off with an echo, blocks of 37, putWord`, rate, snrDb: 25, seed: 21 + r, offsetHz: 7, echo: { delayMs: 2, lossDb: 12 }, block: 37, words: true },
  { name: `${rate} 10 dB up, −3 Hz, blocks of 1, putBit`, rate, snrDb: 28, seed: 31 + r, offsetHz: -3, upDb: 10, block: 1, words: false },
]);

/** As the tree of ef2063a received them. */
const GOLDEN: Record<string, string> = {
  "14400 clean, blocks of 160, putBit": "fc573d3e/95528",
  "14400 at 20 dB SNR, blocks of 333, putWord": "a89993a3/16687",
  "14400 7 Hz off with an echo, blocks of 37, putWord": "827c76ba/25925",
  "14400 10 dB up, −3 Hz, blocks of 1, putBit": "41adadf/477128",
  "12000 clean, blocks of 160, putBit": "f9879487/79968",
  "12000 at 17 dB SNR, blocks of 333, putWord": "54e01950/16679",
  "12000 7 Hz off with an echo, blocks of 37, putWord": "64e11d87/25917",
  "12000 10 dB up, −3 Hz, blocks of 1, putBit": "3f928e23/461568",
  "9600 clean, blocks of 160, putBit": "b08449e4/64456",
  "9600 at 14 dB SNR, blocks of 333, putWord": "4ede3ca5/16687",
  "9600 7 Hz off with an echo, blocks of 37, putWord": "697a47c6/25925",
  "9600 10 dB up, −3 Hz, blocks of 1, putBit": "abc864aa/446088",
  "7200 clean, blocks of 160, putBit": "8cdabbef/48944",
  "7200 at 11 dB SNR, blocks of 333, putWord": "6646ed5d/16687",
  "7200 7 Hz off with an echo, blocks of 37, putWord": "a2a9dec1/25917",
  "7200 10 dB up, −3 Hz, blocks of 1, putBit": "5ae0ccff/430544",
};

describe('V.17 receiver output identical to ef2063a', () => {
  for (const c of CASES) {
    it(c.name, () => {
      expect(received(c)).toBe(GOLDEN[c.name]);
    });
  }
});
