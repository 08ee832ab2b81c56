// native-free-dsp's V.29 and V.27 ter against libspandsp's, both ways, every rate: spandsp's
// transmitter into our receiver and ours into spandsp's, on a clean line and on an impaired one
// (25 dB loss, noise 3 dB above spandsp's regression threshold, a G.711 hop, a frequency
// offset). The data is O.150 2^11−1 on both sides; every bit must come through.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  BerTester,
  END_OF_DATA,
  LineModel,
  PrbsGenerator,
  V27terRx,
  V27terTx,
  V29Rx,
  V29Tx,
  type LineModelOptions,
  type ModemRxStatus,
} from '../../native-free-dsp/index.js';
import { buildModemPeer } from './modems/build.js';
import { INTEROP_REQUIRED } from './spandsp/build.js';

const build = buildModemPeer();
if (!build.ok && INTEROP_REQUIRED) throw new Error(build.reason);

type Modem = 'v29' | 'v27ter';
const RATES: Array<[Modem, number, number]> = [
  // modem, bit rate, spandsp's regression threshold SNR
  ['v29', 9600, 20],
  ['v29', 7200, 17],
  ['v29', 4800, 12],
  ['v27ter', 4800, 15],
  ['v27ter', 2400, 9],
];
const BITS = 30_000;

const lines = (snr: number): Array<{ name: string; line: LineModelOptions }> => [
  { name: 'clean line', line: {} },
  // 25 dB of loss keeps the noise below spandsp's carrier threshold (−43 dBm0), as in its own
  // tests: its receivers start acquiring on whatever first crosses it (ours keep looking).
  { name: `${snr + 3} dB SNR, 25 dB loss, µ-law hop, +5 Hz`, line: { snrDb: snr + 3, signalDbm0: -13, gainDb: -25, codec: 'ulaw', freqOffsetHz: 5, seed: 7 } },
];

function ourAudio(modem: Modem, rate: number, line: LineModelOptions): Int16Array {
  const gen = new PrbsGenerator({ pattern: 'prbs11' });
  let sent = 0;
  const getBit = (): number => (sent++ < BITS ? gen.getBit() : END_OF_DATA);
  const tx = modem === 'v29' ? new V29Tx({ bitRate: rate as 9600, getBit, levelDbm0: -13 }) : new V27terTx({ bitRate: rate as 4800, getBit, levelDbm0: -13 });
  const chunks: Int16Array[] = [new Int16Array(800)];
  for (;;) {
    const buf = new Int16Array(160);
    const n = tx.tx(buf);
    chunks.push(buf.subarray(0, n));
    if (n < buf.length) break;
  }
  chunks.push(new Int16Array(1600));
  const audio = new Int16Array(chunks.reduce((s, c) => s + c.length, 0));
  let at = 0;
  for (const c of chunks) (audio.set(c, at), (at += c.length));
  new LineModel(line).process(audio, audio);
  return audio;
}

function spandspReceives(modem: Modem, rate: number, audio: Int16Array): { bits: number; bad: number; statuses: number[] } {
  if (!build.ok) throw new Error(build.reason);
  const out = execFileSync(build.binary, ['rx', modem, String(rate)], { input: Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength), encoding: 'utf8' });
  const statuses = out.split('\n').filter((l) => l.startsWith('status ')).map((l) => Number(l.split(' ')[1]));
  const ber = /^ber (\d+) (\d+)$/m.exec(out);
  return { bits: Number(ber?.[1] ?? 0), bad: Number(ber?.[2] ?? -1), statuses };
}

function weReceive(modem: Modem, rate: number, line: LineModelOptions): { bits: number; errors: number; statuses: ModemRxStatus[] } {
  if (!build.ok) throw new Error(build.reason);
  const raw = execFileSync(build.binary, ['tx', modem, String(rate), String(BITS)], { maxBuffer: 1 << 26 });
  const audio = new Int16Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
  new LineModel(line).process(audio, audio);
  const ber = new BerTester({ pattern: 'prbs11' });
  let delivered = 0;
  // spandsp's bits end with its shutdown sequence: check the data only.
  const putBit = (b: number): void => {
    if (delivered++ < BITS - 100) ber.putBit(b);
  };
  const statuses: ModemRxStatus[] = [];
  const onStatus = (s: ModemRxStatus): void => void statuses.push(s);
  const rx = modem === 'v29' ? new V29Rx({ bitRate: rate as 9600, putBit, onStatus }) : new V27terRx({ bitRate: rate as 4800, putBit, onStatus });
  rx.rx(audio);
  return { bits: ber.results.bits, errors: ber.results.errors, statuses };
}

describe.skipIf(!build.ok)('V.29 and V.27 ter against libspandsp', () => {
  describe.each(RATES)('%s %d bit/s', (modem, rate, snr) => {
    it.each(lines(snr))('our transmitter → spandsp, $name', ({ line }) => {
      const r = spandspReceives(modem, rate, ourAudio(modem, rate, line));
      expect(r.bits).toBeGreaterThanOrEqual(BITS - 2000);
      expect(r.bad).toBe(0);
    });

    it.each(lines(snr))('spandsp → our receiver, $name', ({ line }) => {
      const r = weReceive(modem, rate, line);
      expect(r.statuses).toContain('trained');
      expect(r.statuses).not.toContain('trainingFailed');
      expect(r.bits).toBeGreaterThanOrEqual(BITS - 200);
      expect(r.errors).toBe(0);
    });
  });
});
