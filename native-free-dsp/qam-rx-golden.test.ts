// The V.27 ter and V.29 receivers' output, hashed against what the tree of af5e9d9 produced (before
// session 18's changes to their symbol step and the TCF meter): every delivered bit and status
// event with the sample it came on, and after every block the carrier frequency, the level, the
// training error, the TCF meter's counts and (every 7th block) the 33 equalizer coefficients —
// over each rate, clean and noisy lines, a 7 Hz offset with a listener echo, a signal 10 dB up,
// two bursts (V.27 ter: the second with the short training), in blocks of 160, 333, 37 and 1.
import { describe, expect, it } from 'vitest';
import { PrbsGenerator } from './src/ber/index.js';
import { V27terRx, V27terTx, type V27terBitRate } from './src/v27ter/index.js';
import { V29Rx, V29Tx, type V29BitRate } from './src/v29/index.js';
import { linesHash as hash } from '../test/kit/golden-hash.js';
import { twoBurstsThroughLine, type BurstLine } from '../test/kit/two-bursts.js';

type Modem = { kind: 'v27ter'; rate: V27terBitRate } | { kind: 'v29'; rate: V29BitRate };

interface Case extends BurstLine {
  modem: Modem;
  block: number;
}

/** Two bursts with silence around them, through the line. */
function audio(c: Case): Int16Array {
  const g = new PrbsGenerator({ pattern: 'prbs11' });
  return twoBurstsThroughLine(c, (shortTrain, levelDbm0) => {
    const buf = new Int16Array(8000 * 2);
    const m = c.modem;
    const tx = m.kind === 'v29' ? new V29Tx({ bitRate: m.rate, getBit: g.getBit, levelDbm0 }) : new V27terTx({ bitRate: m.rate, getBit: g.getBit, levelDbm0, shortTrain });
    return buf.subarray(0, tx.tx(buf));
  });
}

function received(c: Case, summary?: string[]): string {
  const a = audio(c);
  const lines: string[] = [];
  let at = 0;
  let downs = 0;
  const putBit = (b: number): void => void lines.push(`b${b}@${at}`);
  const onStatus = (s: string): void => {
    lines.push(`${s}@${at}`);
    if (s === 'carrierDown') downs++;
  };
  const m = c.modem;
  const rx = m.kind === 'v29' ? new V29Rx({ bitRate: m.rate, putBit, onStatus }) : new V27terRx({ bitRate: m.rate, putBit, onStatus });
  let restarted = false;
  for (let i = 0, k = 0; i < a.length; i += c.block, k++) {
    at = i;
    if (downs === 1 && !restarted) {
      if (rx instanceof V27terRx) rx.restart(rx.bitRate, { shortTrain: true });
      else rx.restart(rx.bitRate);
      restarted = true;
    }
    rx.rx(a.subarray(i, Math.min(a.length, i + c.block)));
    const t = rx.tcf;
    lines.push(`${rx.carrierFrequencyHz} ${rx.signalLevelDbm0} ${rx.trainingError} ${rx.trained} ${t.bits} ${t.ones} ${t.longestZeroRun}`);
    if (k % 7 === 0) {
      const eq = (rx as unknown as { fe: { eq: { coeffRe(i: number): number; coeffIm(i: number): number } } }).fe.eq;
      for (let q = 0; q < 33; q++) lines.push(`${eq.coeffRe(q)} ${eq.coeffIm(q)}`);
    }
  }
  if (summary !== undefined) {
    const count = (p: string): number => lines.filter((l) => l.startsWith(p)).length;
    summary.push(`trained ${count('trained@')}, failed ${count('trainingFailed@')}, bits ${count('b0@') + count('b1@')}`);
  }
  return hash(lines);
}

const MODEMS: Array<{ modem: Modem; threshold: number }> = [
  { modem: { kind: 'v27ter', rate: 4800 }, threshold: 12 },
  { modem: { kind: 'v27ter', rate: 2400 }, threshold: 7 },
  { modem: { kind: 'v29', rate: 9600 }, threshold: 18 },
  { modem: { kind: 'v29', rate: 7200 }, threshold: 15 },
  { modem: { kind: 'v29', rate: 4800 }, threshold: 10 },
];
const CASES: (Case & { name: string })[] = MODEMS.flatMap(({ modem, threshold }, r) => {
  const m = `${modem.kind} ${modem.rate}`;
  return [
    { name: `${m} clean, blocks of 160`, modem, seed: 1 + r, block: 160 },
    { name: `${m} at ${threshold} dB SNR, blocks of 333`, modem, snrDb: threshold, seed: 11 + r, block: 333 },
    { name: `${m} 7 Hz off with an echo, blocks of 37`, modem, snrDb: 25, seed: 21 + r, offsetHz: 7, echo: { delayMs: 2, lossDb: 12 }, block: 37 },
    { name: `${m} 10 dB up, −3 Hz, blocks of 1`, modem, snrDb: 28, seed: 31 + r, offsetHz: -3, upDb: 10, block: 1 },
  ];
});

/** As the tree of af5e9d9 received them. */
const GOLDEN: Record<string, string> = {
  "v27ter 4800 clean, blocks of 160": "66595ced/16758",
  "v27ter 4800 at 12 dB SNR, blocks of 333": "802656b/16122",
  "v27ter 4800 7 Hz off with an echo, blocks of 37": "c9a0659d/20922",
  "v27ter 4800 10 dB up, −3 Hz, blocks of 1": "24c83ca3/216639",
  "v27ter 2400 clean, blocks of 160": "466ea912/8404",
  "v27ter 2400 at 7 dB SNR, blocks of 333": "383b7072/7784",
  "v27ter 2400 7 Hz off with an echo, blocks of 37": "ceeb8a45/12568",
  "v27ter 2400 10 dB up, −3 Hz, blocks of 1": "c86f9744/208283",
  "v29 9600 clean, blocks of 160": "b2e4113f/35056",
  "v29 9600 at 18 dB SNR, blocks of 333": "224372cc/34414",
  "v29 9600 7 Hz off with an echo, blocks of 37": "2e7e466f/39236",
  "v29 9600 10 dB up, −3 Hz, blocks of 1": "9993c156/234941",
  "v29 7200 clean, blocks of 160": "d1bee4e1/26613",
  "v29 7200 at 15 dB SNR, blocks of 333": "9e959b47/25977",
  "v29 7200 7 Hz off with an echo, blocks of 37": "aeb9c1a6/30777",
  "v29 7200 10 dB up, −3 Hz, blocks of 1": "ac32a285/226497",
  "v29 4800 clean, blocks of 160": "a2966af5/18168",
  "v29 4800 at 10 dB SNR, blocks of 333": "5c9fdc27/17536",
  "v29 4800 7 Hz off with an echo, blocks of 37": "2fcf32a7/22332",
  "v29 4800 10 dB up, −3 Hz, blocks of 1": "6eb110d9/218049",
};

describe('V.27 ter / V.29 receiver output identical to af5e9d9', () => {
  if (process.env.PRINT_GOLDEN === '1') {
    it('prints', () => {
      const out: string[] = [];
      for (const c of CASES) {
        const summary: string[] = [];
        out.push(`  ${JSON.stringify(c.name)}: ${JSON.stringify(received(c, summary))}, // ${summary[0]}`);
      }
      console.log(out.join('\n'));
    });
    return;
  }
  for (const c of CASES) {
    it(c.name, () => {
      expect(received(c)).toBe(GOLDEN[c.name]);
    });
  }
});
