// Tone generators: one or two sine components at a level in dBm0, a repeating on/off cadence, an
// overall duration, and the ANSam decorations of ITU-T V.8 (15 Hz amplitude modulation) and of
// V.25 (phase reversals every 450 ms). Presets for the fax tones of T.30 §5.2.1-5.2.2 and the
// North American call-progress tones (ANSI T1.401 "precise tone plan").
import { checkNumber, DspArgumentError } from '../errors.js';
import { DEFAULT_LAW, dbm0ToAmplitude } from '../power/levels.js';
import { DDS_SHIFT, DDS_SINE, ddsPhaseRate } from './dds.js';

export interface ToneSpec {
  /** One or two frequencies, Hz (10…3990). */
  freqsHz: readonly number[];
  /** Level of each component, dBm0 (−90…+3). */
  levelDbm0: number;
  /** On/off pattern in ms, [on, off, on, off, …] (even length, each 0…60 000), repeated; omit for a steady tone. */
  cadenceMs?: readonly number[];
  /** Total length in ms; tx() stops there. Omit for no end. */
  durationMs?: number;
  /** Amplitude modulation: V.8 ANSam is 15 Hz, depth 0.2 (20 %). */
  am?: { freqHz: number; depth: number };
  /** Phase reversal interval in ms (V.25 ANS with reversals, V.8 ANSam/: 450 ms). */
  phaseReversalMs?: number;
}

/** Standard tones. */
export const TONES = {
  /** T.30 §5.2.1 CNG, calling tone: 1100 Hz, 0.5 s on, 3 s off (level as spandsp sends it). */
  cng: { freqsHz: [1100], levelDbm0: -11, cadenceMs: [500, 3000] },
  /** T.30 §5.2.2 CED, called terminal identification: 2100 Hz for 2.6…4 s (3 s here). */
  ced: { freqsHz: [2100], levelDbm0: -11, durationMs: 3000 },
  /** V.25 ANS with phase reversals every 450 ms (echo-canceller disabling), 3.3 s. */
  ansPr: { freqsHz: [2100], levelDbm0: -11, durationMs: 3300, phaseReversalMs: 450 },
  /** V.8 ANSam: 2100 Hz amplitude-modulated by 15 Hz at 20 %, up to 5 s. */
  ansam: { freqsHz: [2100], levelDbm0: -11, durationMs: 5000, am: { freqHz: 15, depth: 0.2 } },
  /** V.8 ANSam/: ANSam with phase reversals every 450 ms. */
  ansamPr: { freqsHz: [2100], levelDbm0: -11, durationMs: 5000, am: { freqHz: 15, depth: 0.2 }, phaseReversalMs: 450 },
  /** Dial tone: 350 + 440 Hz, −13 dBm0 each, steady. */
  dial: { freqsHz: [350, 440], levelDbm0: -13 },
  /** Audible ringing: 440 + 480 Hz, −19 dBm0 each, 2 s on, 4 s off. */
  ringback: { freqsHz: [440, 480], levelDbm0: -19, cadenceMs: [2000, 4000] },
  /** Busy: 480 + 620 Hz, −24 dBm0 each, 0.5 s on, 0.5 s off. */
  busy: { freqsHz: [480, 620], levelDbm0: -24, cadenceMs: [500, 500] },
  /** Reorder (fast busy): 480 + 620 Hz, −24 dBm0 each, 0.25 s on, 0.25 s off. */
  reorder: { freqsHz: [480, 620], levelDbm0: -24, cadenceMs: [250, 250] },
} as const satisfies Record<string, ToneSpec>;

export type ToneName = keyof typeof TONES;

const MS = 8; // samples per ms

export class ToneTx {
  readonly spec: ToneSpec;
  // Phases run as int32 (wrapping), which keeps the loops in integer arithmetic.
  private readonly rates: Int32Array;
  private readonly phases: Int32Array;
  private readonly amplitude: number;
  private readonly cadence: Int32Array; // segment lengths in samples; even = on
  private readonly totalSamples: number; // −1: endless
  private readonly amRate: number;
  private readonly amDepth: number;
  private readonly reversalSamples: number;
  private amPhase = 0;
  private seg = 0;
  private segLeft = 0;
  private produced = 0;
  private toReversal = 0;

  constructor(spec: ToneSpec) {
    const n = spec?.freqsHz?.length;
    if (n !== 1 && n !== 2) throw new DspArgumentError('ToneTx', 'freqsHz', `must list one or two frequencies, got ${String(n)}`);
    spec.freqsHz.forEach((f, i) => checkNumber('ToneTx', `freqsHz[${i}]`, f, 10, 3990));
    checkNumber('ToneTx', 'levelDbm0', spec.levelDbm0, -90, 3);
    this.spec = spec;
    this.rates = Int32Array.from(spec.freqsHz, (f) => ddsPhaseRate(f) | 0);
    this.phases = new Int32Array(n);
    this.amplitude = dbm0ToAmplitude(spec.levelDbm0, DEFAULT_LAW);
    const cad = spec.cadenceMs ?? [];
    if (cad.length % 2 !== 0) throw new DspArgumentError('ToneTx', 'cadenceMs', `must have an even length (on, off pairs), got ${cad.length}`);
    cad.forEach((c, i) => checkNumber('ToneTx', `cadenceMs[${i}]`, c, 0, 60_000));
    if (cad.length > 0 && cad.every((c) => c === 0)) throw new DspArgumentError('ToneTx', 'cadenceMs', 'must not be all zeros');
    this.cadence = Int32Array.from(cad, (c) => Math.round(c * MS));
    this.totalSamples = spec.durationMs === undefined ? -1 : Math.round(checkNumber('ToneTx', 'durationMs', spec.durationMs, 0, 3_600_000) * MS);
    if (spec.am) {
      this.amRate = ddsPhaseRate(checkNumber('ToneTx', 'am.freqHz', spec.am.freqHz, 0.1, 100)) | 0;
      this.amDepth = checkNumber('ToneTx', 'am.depth', spec.am.depth, 0, 1);
    } else {
      this.amRate = 0;
      this.amDepth = 0;
    }
    this.reversalSamples = spec.phaseReversalMs === undefined ? 0 : Math.round(checkNumber('ToneTx', 'phaseReversalMs', spec.phaseReversalMs, 10, 60_000) * MS);
    this.restart();
  }

  restart(): void {
    this.phases.fill(0);
    this.amPhase = 0;
    this.seg = 0;
    this.segLeft = this.cadence.length > 0 ? this.cadence[0]! : -1;
    this.produced = 0;
    this.toReversal = this.reversalSamples;
  }

  /** Whether the tone's duration is over. */
  get done(): boolean {
    return this.totalSamples >= 0 && this.produced >= this.totalSamples;
  }

  /** Fills `out`; returns the samples written (fewer than out.length once durationMs is reached). */
  tx(out: Int16Array): number {
    let n = out.length;
    if (this.totalSamples >= 0) n = Math.min(n, this.totalSamples - this.produced);
    if (n <= 0) return 0;
    const rates = this.rates;
    const phases = this.phases;
    const two = rates.length === 2;
    const amp = this.amplitude;
    const amDepth = this.amDepth;
    const amRate = this.amRate;
    let i = 0;
    while (i < n) {
      // Run to the end of the current cadence segment (or the block).
      let run = n - i;
      if (this.segLeft >= 0 && this.segLeft < run) run = this.segLeft;
      if (this.reversalSamples > 0 && this.toReversal < run) run = this.toReversal;
      const on = (this.seg & 1) === 0;
      if (on) {
        let p0 = phases[0]!;
        let p1 = two ? phases[1]! : 0;
        const r0 = rates[0]!;
        const r1 = two ? rates[1]! : 0;
        let ap = this.amPhase;
        let k = i;
        const end = i + run;
        if (two && amDepth === 0) {
          // Dual tones (dial, ringback, busy, reorder): two samples an iteration, their phases
          // do not wait on each other.
          const r0x2 = (r0 + r0) | 0;
          const r1x2 = (r1 + r1) | 0;
          for (; k + 1 < end; k += 2) {
            out[k] = Math.round(amp * (DDS_SINE[p0 >>> DDS_SHIFT]! + DDS_SINE[p1 >>> DDS_SHIFT]!));
            out[k + 1] = Math.round(amp * (DDS_SINE[((p0 + r0) | 0) >>> DDS_SHIFT]! + DDS_SINE[((p1 + r1) | 0) >>> DDS_SHIFT]!));
            p0 = (p0 + r0x2) | 0;
            p1 = (p1 + r1x2) | 0;
          }
        }
        if (!two && amDepth !== 0) {
          // One modulated tone (ANSam, ANSam/): two samples an iteration, as above.
          const r0x2 = (r0 + r0) | 0;
          const arx2 = (amRate + amRate) | 0;
          for (; k + 1 < end; k += 2) {
            out[k] = Math.round(amp * (DDS_SINE[p0 >>> DDS_SHIFT]! * (1 + amDepth * DDS_SINE[ap >>> DDS_SHIFT]!)));
            out[k + 1] = Math.round(amp * (DDS_SINE[((p0 + r0) | 0) >>> DDS_SHIFT]! * (1 + amDepth * DDS_SINE[((ap + amRate) | 0) >>> DDS_SHIFT]!)));
            p0 = (p0 + r0x2) | 0;
            ap = (ap + arx2) | 0;
          }
        }
        for (; k < end; k++) {
          let v = DDS_SINE[p0 >>> DDS_SHIFT]!;
          if (two) v += DDS_SINE[p1 >>> DDS_SHIFT]!;
          if (amDepth !== 0) {
            v *= 1 + amDepth * DDS_SINE[ap >>> DDS_SHIFT]!;
            ap = (ap + amRate) | 0;
          }
          out[k] = Math.round(amp * v);
          p0 = (p0 + r0) | 0;
          p1 = (p1 + r1) | 0;
        }
        phases[0] = p0;
        if (two) phases[1] = p1;
        this.amPhase = ap;
      } else {
        out.fill(0, i, i + run);
      }
      i += run;
      if (this.segLeft >= 0) {
        this.segLeft -= run;
        while (this.segLeft === 0) {
          this.seg = (this.seg + 1) % this.cadence.length;
          this.segLeft = this.cadence[this.seg]!;
        }
      }
      if (this.reversalSamples > 0) {
        this.toReversal -= run;
        if (this.toReversal === 0) {
          this.toReversal = this.reversalSamples;
          for (let c = 0; c < phases.length; c++) phases[c] = (phases[c]! + 0x80000000) | 0;
        }
      }
    }
    this.produced += n;
    return n;
  }
}
