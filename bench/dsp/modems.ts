// The V.27 ter and V.29 part of bench/dsp.ts: speed cases for their transmitters and receivers
// (same Case shape as dsp.ts; each receiver reads 10 s of its own transmitter's audio — training,
// then data — looping), and the BER-vs-SNR table of every rate, ours through the LineModel and
// spandsp's through its own awgn (`dsp_bench berm`): white noise over 0-4 kHz against a −42 dBm0
// signal (spandsp's test level: the noise alone stays below the carrier threshold), O.150 2^11−1
// data; ours counts errors over exactly the bits sent, spandsp's up to its last regular BERT
// report (the last whole thousand of bits before the carrier dies).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  PrbsGenerator,
  V27terRx,
  V27terTx,
  V29Rx,
  V29Tx,
  type GetBit,
  type V27terBitRate,
  type V29BitRate,
} from '../../native-free-dsp/index.js';
import { runLink } from '../../test/kit/modem-link.js';

const BLOCK = 160;
const AUDIO_SAMPLES = 10 * 8000;

/**
 * The receivers' bit sink, the twin of spandsp's in bench/spandsp/dsp_bench.c and rx_loops.c
 * (`if (bit >= 0) sink = bit;`): one store a bit. The sum into a closure's `let` this replaced
 * (session 19) cost ours 28 instructions a sample at V.27 ter 4800 and 11 at V.29 9600 over an
 * empty sink, where spandsp's costs it 2–4 (bench/dsp/instructions.ts's count, both sides).
 * Declared above its use: a module constant below it is checked for the hole on every use.
 */
const sink = { bit: 0 };

/** Same shape as bench/dsp.ts's Case (input 'none': these read their own audio). */
export interface ModemCase {
  name: string;
  unit: 'samples';
  input: 'none';
  make: () => (audio: Int16Array) => void;
}

type Modem = { kind: 'v29'; rate: V29BitRate } | { kind: 'v27ter'; rate: V27terBitRate };

function makeTx(m: Modem, getBit: GetBit, levelDbm0 = -13): { tx(out: Int16Array): number } {
  return m.kind === 'v29' ? new V29Tx({ bitRate: m.rate, getBit, levelDbm0 }) : new V27terTx({ bitRate: m.rate, getBit, levelDbm0 });
}

function makeRx(m: Modem, putBit: (b: number) => void): { rx(samples: Int16Array): void } {
  return m.kind === 'v29' ? new V29Rx({ bitRate: m.rate, putBit }) : new V27terRx({ bitRate: m.rate, putBit });
}

/** 10 s of a transmitter's output (training, then PRBS data), in BLOCK-sample views. */
function modemAudio(m: Modem): Int16Array[] {
  const g = new PrbsGenerator({ pattern: 'prbs11' });
  const audio = new Int16Array(AUDIO_SAMPLES);
  makeTx(m, g.getBit).tx(audio);
  return Array.from({ length: AUDIO_SAMPLES / BLOCK }, (_, k) => audio.subarray(k * BLOCK, (k + 1) * BLOCK));
}

const scratch = new Int16Array(BLOCK);

function txCase(name: string, m: Modem): ModemCase {
  return {
    name,
    unit: 'samples',
    input: 'none',
    make: () => {
      const g = new PrbsGenerator({ pattern: 'prbs11' });
      const tx = makeTx(m, g.getBit);
      return () => void tx.tx(scratch);
    },
  };
}

function rxCase(name: string, m: Modem): ModemCase {
  return {
    name,
    unit: 'samples',
    input: 'none',
    make: () => {
      const views = modemAudio(m);
      const rx = makeRx(m, (b) => {
        if (b >= 0) sink.bit = b;
      });
      let pos = 0;
      return () => {
        rx.rx(views[pos]!);
        if (++pos === views.length) pos = 0;
      };
    },
  };
}

export const MODEM_CASES: ModemCase[] = [
  txCase('v29-tx-9600', { kind: 'v29', rate: 9600 }),
  rxCase('v29-rx-9600', { kind: 'v29', rate: 9600 }),
  rxCase('v29-rx-4800', { kind: 'v29', rate: 4800 }),
  txCase('v27ter-tx-4800', { kind: 'v27ter', rate: 4800 }),
  rxCase('v27ter-rx-4800', { kind: 'v27ter', rate: 4800 }),
  txCase('v27ter-tx-2400', { kind: 'v27ter', rate: 2400 }),
  rxCase('v27ter-rx-2400', { kind: 'v27ter', rate: 2400 }),
];

export interface ModemBerRow {
  modem: string;
  snrDb: number;
  bits: number;
  errors: number;
  trained: boolean;
}

/** SNR points per rate: around spandsp's regression threshold (marked *). */
export const MODEM_BER_POINTS: Array<{ label: string; modem: Modem; spandspSnr: number; snrs: number[] }> = [
  { label: 'V.29 9600', modem: { kind: 'v29', rate: 9600 }, spandspSnr: 20, snrs: [22, 20, 19, 18, 17, 16] },
  { label: 'V.29 7200', modem: { kind: 'v29', rate: 7200 }, spandspSnr: 17, snrs: [19, 17, 16, 15, 14, 13] },
  { label: 'V.29 4800', modem: { kind: 'v29', rate: 4800 }, spandspSnr: 12, snrs: [14, 12, 11, 10, 9, 8] },
  { label: 'V.27ter 4800', modem: { kind: 'v27ter', rate: 4800 }, spandspSnr: 15, snrs: [17, 15, 14, 13, 12, 11] },
  { label: 'V.27ter 2400', modem: { kind: 'v27ter', rate: 2400 }, spandspSnr: 9, snrs: [11, 9, 8, 7, 6, 5] },
];

const LEVEL_DBM0 = -42;

/** One run: `bits` of PRBS through the line at `snrDb`. */
export function modemBer(m: Modem, snrDb: number, bits: number, seed = 1): ModemBerRow {
  const r = runLink({
    bits,
    line: { signalDbm0: LEVEL_DBM0, snrDb, seed },
    makeTx: (getBit) => makeTx(m, getBit, LEVEL_DBM0),
    makeRx: (putBit) => makeRx(m, putBit),
  });
  return { modem: `${m.kind} ${m.rate}`, snrDb, bits: r.ber.bits, errors: r.ber.errors, trained: r.ber.bits > 0 };
}

type BerCount = { bits: number; errors: number };

/** spandsp's side: runs the built harness (`dsp_bench berm`) for every point; key "v29 9600 20". */
export async function spandspModemBer(bin: string, bits: number): Promise<Map<string, BerCount>> {
  const exec = promisify(execFile);
  const out = new Map<string, BerCount>();
  for (const p of MODEM_BER_POINTS) {
    const args = ['berm', p.modem.kind, String(p.modem.rate), String(bits), ...p.snrs.map(String)];
    const { stdout } = await exec(bin, args, { maxBuffer: 1 << 20, timeout: 600_000 });
    for (const line of stdout.split('\n')) {
      const m = /^berm (\S+) (\d+) (\S+) (\d+) (\d+)/.exec(line);
      if (m) out.set(`${m[1]} ${m[2]} ${Number(m[3])}`, { bits: Number(m[4]), errors: Number(m[5]) });
    }
  }
  return out;
}

/** The BER-vs-SNR table, ours beside spandsp's (when `spandsp` has the point): text lines and rows. */
export function modemBerTable(bits: number, spandsp: Map<string, BerCount> = new Map()): { lines: string[]; rows: Array<ModemBerRow & { spandsp: BerCount | null }> } {
  const lines = [
    `V.29 / V.27 ter BER vs SNR (${LEVEL_DBM0} dBm0, white noise 0-4 kHz, ${bits} bits of O.150 2^11−1 per point; * = spandsp's regression threshold):`,
    'modem        | SNR dB | ours bits | ours errors | ours BER | spandsp bits | spandsp errors | spandsp BER',
  ];
  const rows: Array<ModemBerRow & { spandsp: BerCount | null }> = [];
  const ber = (r: BerCount | undefined): string => (r === undefined ? 'n/a' : r.bits ? (r.errors / r.bits).toExponential(1) : 'no sync');
  for (const p of MODEM_BER_POINTS) {
    for (const snr of p.snrs) {
      const r = modemBer(p.modem, snr, bits);
      const s = spandsp.get(`${p.modem.kind} ${p.modem.rate} ${snr}`);
      rows.push({ ...r, spandsp: s ?? null });
      lines.push(
        `${p.label.padEnd(12)} | ${`${snr}${snr === p.spandspSnr ? '*' : ' '}`.padStart(6)} | ${String(r.bits).padStart(9)} | ${String(r.errors).padStart(11)} | ${ber(r).padStart(8)} | ${String(s?.bits ?? 'n/a').padStart(12)} | ${String(s?.errors ?? 'n/a').padStart(14)} | ${ber(s).padStart(11)}`,
      );
    }
  }
  return { lines, rows };
}
