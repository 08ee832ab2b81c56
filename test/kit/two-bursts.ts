// The audio the receivers' golden tests feed (native-free-dsp/v17-rx-golden.test.ts,
// qam-rx-golden.test.ts): two bursts of a transmitter (the second may use the short training)
// with silence around and between them, through the line model.
// (Test kit: never shipped.)
import { LineModel } from '../../native-free-dsp/index.js';

export interface BurstLine {
  snrDb?: number;
  seed: number;
  offsetHz?: number;
  echo?: { delayMs: number; lossDb: number };
  /** dB above −42 dBm0, the level the bursts are sent at. */
  upDb?: number;
}

/** `burst(shortTrain, levelDbm0)` gives one burst's samples; called for the long training, then the short. */
export function twoBurstsThroughLine(c: BurstLine, burst: (shortTrain: boolean, levelDbm0: number) => Int16Array): Int16Array {
  const level = -42 + (c.upDb ?? 0);
  const parts: Int16Array[] = [];
  for (const shortTrain of [false, true]) parts.push(burst(shortTrain, level), new Int16Array(1200));
  const clean = new Int16Array(parts.reduce((s, p) => s + p.length, 0) + 800);
  let at = 400;
  for (const p of parts) {
    clean.set(p, at);
    at += p.length;
  }
  const line = new LineModel({ ...(c.snrDb === undefined ? {} : { snrDb: c.snrDb, signalDbm0: level }), seed: c.seed, freqOffsetHz: c.offsetHz ?? 0, echo: c.echo });
  const out = new Int16Array(clean.length);
  line.process(clean, out);
  return out;
}
