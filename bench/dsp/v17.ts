// The V.17 part of the DSP benchmarks (bench/dsp-v17.ts runs it on its own; bench/dsp.ts can take
// V17_CASES and v17BerTable like its other modems): speed cases for the transmitter and receiver
// at each rate (each transmitter restarts every 10 s of audio, and each receiver reads 10 s of its
// own transmitter's audio — training, then data — looping, as bench/spandsp/v17_bench.c does), the BER-vs-SNR table of every rate (ours through the LineModel, spandsp's through its
// own awgn, both with a −42 dBm0 signal as in spandsp's v17_tests), and an interworking check
// against libspandsp in both directions. The spandsp side is bench/spandsp/v17_bench.c.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { BerTester, END_OF_DATA, PrbsGenerator, V17Rx, V17Tx, type ModemRxStatus, type V17BitRate } from '../../native-free-dsp/index.js';
import { runV17Link } from '../../test/kit/modem-link.js';

const BLOCK = 160;
const AUDIO_SAMPLES = 10 * 8000;
export const V17_RATES: readonly V17BitRate[] = [14400, 12000, 9600, 7200];

/** Same shape as bench/dsp.ts's Case (input 'none': these read their own audio). */
export interface V17Case {
  name: string;
  unit: 'samples';
  input: 'none';
  make: () => (audio: Int16Array) => void;
}

const scratch = new Int16Array(BLOCK);

/** 10 s of a transmitter's output (training, then PRBS data), in BLOCK-sample views. */
function v17Audio(rate: V17BitRate): Int16Array[] {
  const g = new PrbsGenerator({ pattern: 'prbs11' });
  const audio = new Int16Array(AUDIO_SAMPLES);
  new V17Tx({ bitRate: rate, getBit: g.getBit }).tx(audio);
  return Array.from({ length: AUDIO_SAMPLES / BLOCK }, (_, k) => audio.subarray(k * BLOCK, (k + 1) * BLOCK));
}

export const V17_CASES: V17Case[] = V17_RATES.flatMap((rate): V17Case[] => [
  {
    name: `v17-tx-${rate}`,
    unit: 'samples',
    input: 'none',
    make: () => {
      // As spandsp's harness (v17_tx_restart every 10 s of audio): each 10 s starts with the long
      // training (1.39 s of symbols that take no data bits), as every burst of a call does.
      const g = new PrbsGenerator({ pattern: 'prbs11' });
      const tx = new V17Tx({ bitRate: rate, getBit: g.getBit });
      let block = 0;
      return () => {
        if (block === 0) tx.restart();
        tx.tx(scratch);
        if (++block === AUDIO_SAMPLES / BLOCK) block = 0;
      };
    },
  },
  {
    name: `v17-rx-${rate}`,
    unit: 'samples',
    input: 'none',
    make: () => {
      const views = v17Audio(rate);
      let sum = 0;
      const rx = new V17Rx({ bitRate: rate, putBit: (b) => void (sum += b) });
      let pos = 0;
      return () => {
        if (pos === 0) rx.restart();
        rx.rx(views[pos]!);
        if (++pos === views.length) pos = 0;
      };
    },
  },
]);

/** Samples per CPU-second of `step` (process CPU time, so other load on the machine does not count), best of 3 rounds. */
export function measureCpu(step: (a: Int16Array) => void, ms: number): number {
  const cpu = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e3;
  };
  // Warm-up for a round's worth of CPU time: the JIT's background compiles count as process CPU
  // time, and they should be over before the rounds start.
  const w0 = cpu();
  do {
    for (let i = 0; i < AUDIO_SAMPLES / BLOCK; i++) step(scratch);
  } while (cpu() - w0 < ms / 3);
  let best = 0;
  for (let round = 0; round < 3; round++) {
    let done = 0;
    const t0 = cpu();
    let t: number;
    do {
      for (let i = 0; i < AUDIO_SAMPLES / BLOCK; i++) step(scratch);
      done += AUDIO_SAMPLES;
      t = cpu() - t0;
    } while (t < ms / 3);
    best = Math.max(best, (done * 1000) / t);
  }
  return best;
}

// ------------------------------------------------------------------------------------- BER

/** SNR points per rate around spandsp's regression threshold (marked * in the table). */
export const V17_BER_POINTS: Array<{ rate: V17BitRate; spandspSnr: number; snrs: number[] }> = [
  { rate: 14400, spandspSnr: 24, snrs: [24, 22, 21, 20.5, 20, 19] },
  { rate: 12000, spandspSnr: 19, snrs: [19, 18.5, 18, 17.5, 17, 16] },
  { rate: 9600, spandspSnr: 17, snrs: [17, 16, 15.5, 15, 14, 13] },
  { rate: 7200, spandspSnr: 14, snrs: [14, 13, 12, 11.5, 11, 10] },
];

const LEVEL_DBM0 = -42;

export interface BerCount {
  bits: number;
  errors: number;
  trained: boolean;
}

/** Ours: `bits` of PRBS at `snrDb`, over `seeds` noise seeds (bits and errors summed). */
export function v17Ber(rate: V17BitRate, snrDb: number, bits: number, seeds = 1): BerCount {
  const out: BerCount = { bits: 0, errors: 0, trained: true };
  for (let seed = 1; seed <= seeds; seed++) {
    const r = runV17Link({ bitRate: rate, bits, levelDbm0: LEVEL_DBM0, line: { snrDb, seed } });
    out.bits += r.ber.bits;
    out.errors += r.ber.errors;
    out.trained &&= r.rxStatus.some((s) => s.status === 'trained');
  }
  return out;
}

/** spandsp's side (`v17_bench ber`), key "RATE SNR". */
export async function spandspV17Ber(bin: string, bits: number): Promise<Map<string, BerCount>> {
  const exec = promisify(execFile);
  const out = new Map<string, BerCount>();
  for (const p of V17_BER_POINTS) {
    const { stdout } = await exec(bin, ['ber', String(p.rate), String(bits), ...p.snrs.map(String)], { maxBuffer: 1 << 20, timeout: 600_000 });
    for (const line of stdout.split('\n')) {
      const m = /^ber (\d+) (\S+) (\d+) (\d+) (\d)/.exec(line);
      if (m) out.set(`${m[1]} ${Number(m[2])}`, { bits: Number(m[3]), errors: Number(m[4]), trained: m[5] === '1' });
    }
  }
  return out;
}

/** The BER-vs-SNR table, ours beside spandsp's (when `spandsp` has the point): text lines and rows. */
export function v17BerTable(
  bits: number,
  seeds: number,
  spandsp: Map<string, BerCount> = new Map(),
): { lines: string[]; rows: Array<{ rate: number; snrDb: number; ours: BerCount; spandsp: BerCount | null }> } {
  const lines = [
    `V.17 BER vs SNR (${LEVEL_DBM0} dBm0, white noise 0-4 kHz, O.150 2^11−1; ours ${seeds} × ${bits} bits per point, spandsp ${bits}; * = spandsp's regression threshold):`,
    'rate  | SNR dB | ours bits | ours errors | ours BER | spandsp bits | spandsp errors | spandsp BER',
  ];
  const rows: Array<{ rate: number; snrDb: number; ours: BerCount; spandsp: BerCount | null }> = [];
  const ber = (r: BerCount | undefined): string => (r === undefined ? 'n/a' : !r.trained ? 'no train' : r.bits ? (r.errors / r.bits).toExponential(1) : 'no sync');
  for (const p of V17_BER_POINTS) {
    for (const snr of p.snrs) {
      const o = v17Ber(p.rate, snr, bits, seeds);
      const s = spandsp.get(`${p.rate} ${snr}`);
      const mark = snr === p.spandspSnr ? '*' : ' ';
      lines.push(
        `${String(p.rate).padEnd(5)} | ${`${snr}${mark}`.padStart(6)} | ${String(o.bits).padStart(9)} | ${String(o.errors).padStart(11)} | ${ber(o).padStart(8)} | ${String(s?.bits ?? 'n/a').padStart(12)} | ${String(s?.errors ?? 'n/a').padStart(14)} | ${ber(s).padStart(11)}`,
      );
      rows.push({ rate: p.rate, snrDb: snr, ours: o, spandsp: s ?? null });
    }
  }
  return { lines, rows };
}

// -------------------------------------------------------------------------------- interwork

export interface InterworkRow {
  rate: V17BitRate;
  direction: 'ours→spandsp' | 'spandsp→ours';
  trained: boolean;
  bits: number;
  errors: number;
}

/** Clean-line interworking with libspandsp both ways: `bits` of PRBS per direction and rate. */
export function v17Interwork(bin: string, bits: number): InterworkRow[] {
  const rows: InterworkRow[] = [];
  for (const rate of V17_RATES) {
    // Ours → spandsp: our transmitter's audio into `v17_bench rx`.
    const g = new PrbsGenerator({ pattern: 'prbs11' });
    let sent = 0;
    const tx = new V17Tx({ bitRate: rate, getBit: () => (sent++ < bits ? g.getBit() : END_OF_DATA) });
    const parts: Int16Array[] = [];
    for (;;) {
      const b = new Int16Array(BLOCK);
      const n = tx.tx(b);
      parts.push(b.subarray(0, n));
      if (n < BLOCK) break;
    }
    parts.push(new Int16Array(4000));
    const audio = new Int16Array(parts.reduce((a, p) => a + p.length, 0));
    let o = 0;
    for (const p of parts) {
      audio.set(p, o);
      o += p.length;
    }
    const out = execFileSync(bin, ['rx', String(rate), String(bits)], { input: Buffer.from(audio.buffer), maxBuffer: 1 << 20 }).toString();
    const res = /result (\d+) (\d+)/.exec(out);
    rows.push({
      rate,
      direction: 'ours→spandsp',
      trained: out.includes('Training succeeded'),
      bits: Number(res?.[1] ?? 0),
      errors: Number(res?.[2] ?? 0),
    });
    // spandsp → ours: `v17_bench tx` audio into our receiver.
    const raw = execFileSync(bin, ['tx', String(rate), String(bits)], { maxBuffer: 1 << 26 });
    const samples = new Int16Array(raw.buffer, raw.byteOffset, raw.length / 2);
    const ber = new BerTester({ pattern: 'prbs11' });
    let delivered = 0;
    const status: ModemRxStatus[] = [];
    const rx = new V17Rx({ bitRate: rate, putBit: (b) => void (delivered++ < bits && ber.putBit(b)), onStatus: (s) => void status.push(s) });
    rx.rx(samples);
    rx.rx(new Int16Array(4000));
    rows.push({ rate, direction: 'spandsp→ours', trained: status.includes('trained'), bits: ber.results.bits, errors: ber.results.errors });
  }
  return rows;
}
