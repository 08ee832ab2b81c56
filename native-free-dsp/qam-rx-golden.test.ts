// The V.27 ter and V.29 receivers' output, hashed against what the tree of af5e9d9 produced (before
// session 18's changes to their symbol step and the TCF meter): every delivered bit and status
// event with the sample it came on, and after every block the carrier frequency, the level, the
// training error and (every 7th block) the 33 equalizer coefficients — over each rate, clean and
// noisy lines, a 7 Hz offset with a listener echo, a signal 10 dB up, two bursts (V.27 ter: the
// second with the short training), in blocks of 160, 333, 37 and 1. The TCF meter's counts after
// every block are hashed apart (GOLDEN's second hash): session 19 made TcfMeter.putWord count a word's
// trailing zeros at once, as put() does, which changed them and nothing else.
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

function received(c: Case, summary?: string[]): { out: string; tcf: string } {
  const a = audio(c);
  const lines: string[] = [];
  const tcfLines: string[] = [];
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
    lines.push(`${rx.carrierFrequencyHz} ${rx.signalLevelDbm0} ${rx.trainingError} ${rx.trained}`);
    tcfLines.push(`${t.bits} ${t.ones} ${t.longestZeroRun}`);
    if (k % 7 === 0) {
      const eq = (rx as unknown as { fe: { eq: { coeffRe(i: number): number; coeffIm(i: number): number } } }).fe.eq;
      for (let q = 0; q < 33; q++) lines.push(`${eq.coeffRe(q)} ${eq.coeffIm(q)}`);
    }
  }
  if (summary !== undefined) {
    const count = (p: string): number => lines.filter((l) => l.startsWith(p)).length;
    summary.push(`trained ${count('trained@')}, failed ${count('trainingFailed@')}, bits ${count('b0@') + count('b1@')}`);
  }
  return { out: hash(lines), tcf: hash(tcfLines) };
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

/**
 * As the tree of af5e9d9 received them: [everything but the TCF counts, the TCF counts]. The first
 * hashes were computed at 57a8fce (which this file's older single hash held equal to af5e9d9) and
 * are unchanged by session 19; the TCF hashes are session 19's (5 of the 20 changed: the blocks of
 * 160 at V.27 ter 4800, and the blocks of 1 at V.27 ter 4800 and V.29 9600 / 7200 / 4800).
 */
const GOLDEN: Record<string, [string, string]> = {
  "v27ter 4800 clean, blocks of 160": ["b5255749/16758", "dd7c51be/220"],
  "v27ter 4800 at 12 dB SNR, blocks of 333": ["7aedb33f/16122", "83cf4157/106"],
  "v27ter 4800 7 Hz off with an echo, blocks of 37": ["5f8b8f2/20922", "bdff5202/952"],
  "v27ter 4800 10 dB up, −3 Hz, blocks of 1": ["6cc50a89/216639", "f6d1e7d9/35200"],
  "v27ter 2400 clean, blocks of 160": ["d8946931/8404", "a329eb70/220"],
  "v27ter 2400 at 7 dB SNR, blocks of 333": ["5ecb5b7b/7784", "612177f2/106"],
  "v27ter 2400 7 Hz off with an echo, blocks of 37": ["b4c3799c/12568", "cf0f8dea/952"],
  "v27ter 2400 10 dB up, −3 Hz, blocks of 1": ["85acd481/208283", "b91decb8/35200"],
  "v29 9600 clean, blocks of 160": ["9f4c280/35056", "456260d2/220"],
  "v29 9600 at 18 dB SNR, blocks of 333": ["f0564952/34414", "93b1077f/106"],
  "v29 9600 7 Hz off with an echo, blocks of 37": ["d2d15e39/39236", "1bb391fb/952"],
  "v29 9600 10 dB up, −3 Hz, blocks of 1": ["8270073c/234941", "901cfe32/35200"],
  "v29 7200 clean, blocks of 160": ["8d8c299a/26613", "ae02788e/220"],
  "v29 7200 at 15 dB SNR, blocks of 333": ["a840ead6/25977", "6673c44/106"],
  "v29 7200 7 Hz off with an echo, blocks of 37": ["2df2d29d/30777", "b14e6ab0/952"],
  "v29 7200 10 dB up, −3 Hz, blocks of 1": ["bdd056c1/226497", "a0ad34bd/35200"],
  "v29 4800 clean, blocks of 160": ["77db713a/18168", "9fba0fe8/220"],
  "v29 4800 at 10 dB SNR, blocks of 333": ["15cf407/17536", "bd84b45d/106"],
  "v29 4800 7 Hz off with an echo, blocks of 37": ["3e2463bb/22332", "5a8a9105/952"],
  "v29 4800 10 dB up, −3 Hz, blocks of 1": ["1bc6e29d/218049", "607d1dba/35200"],
};

describe('V.27 ter / V.29 receiver output identical to af5e9d9', () => {
  if (process.env.PRINT_GOLDEN === '1') {
    it('prints', () => {
      const out: string[] = [];
      for (const c of CASES) {
        const summary: string[] = [];
        const r = received(c, summary);
        out.push(`  ${JSON.stringify(c.name)}: [${JSON.stringify(r.out)}, ${JSON.stringify(r.tcf)}], // ${summary[0]}`);
      }
      console.log(out.join('\n'));
    });
    return;
  }
  for (const c of CASES) {
    it(c.name, () => {
      const r = received(c);
      expect(r.out).toBe(GOLDEN[c.name]![0]);
      expect(r.tcf).toBe(GOLDEN[c.name]![1]);
    });
  }
});
