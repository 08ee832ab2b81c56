// V.29 receiver (ITU-T V.29): carrier detection, quadrature band-pass matched filter sampled at
// T/2 (Gardner timing recovery), AGC, T/2 LMS equalizer, two-part carrier PLL, training detection
// (clause 3.3: ABAB found and measured for frequency, phase and which point is A; CDCD start
// found; equalizer trained on CDCD; segment 4 checked), differential decoding and descrambling.
//
//   const rx = new V29Rx({ bitRate: 9600, putBit, onStatus });
//   rx.rx(samples);            // any block length
//   rx.restart(7200);          // expect a new burst at another rate
//   rx.tcf                     // the bits since training: longest zero run (T.30 TCF check)
// Status: carrierUp → trainingInProgress → trained | trainingFailed → carrierDown.
import { checkOneOf } from '../errors.js';
import { DemodFrontEnd } from '../common/demod-front-end.js';
import { QamRx, type QamRxOptions, type QamRxRate, type TrainingLayout } from '../common/qam-rx.js';
import { V29_SCRAMBLER } from '../common/scrambler.js';
import { Lfsr7 } from '../common/training.js';
import {
  BAUD_RATE,
  BITS_FOR_STEP_2BIT,
  BITS_FOR_STEP_3BIT,
  CARRIER_HZ,
  POINT_IM,
  POINT_RE,
  SEG2_ABAB,
  SEG3_CDCD,
  SEG3_SEED,
  SEG4_ONES,
  V29_BIT_RATES,
  V29_RATES,
  type V29BitRate,
  type V29RateInfo,
} from './constellation.js';

// Module-local copies of imported tables used per symbol (an imported binding may cost a call per
// access under some module loaders).
const P_RE = POINT_RE;
const P_IM = POINT_IM;

/** Decision grid: the nearest point of a rate's set for every 1/16 × 1/16 cell of [−7, 7)². */
const GRID_SCALE = 16;
const GRID_HALF = 7;
const GRID_N = 2 * GRID_HALF * GRID_SCALE;
const grids = new Map<V29BitRate, Uint8Array>();

function decisionGrid(rate: V29BitRate): Uint8Array {
  let g = grids.get(rate);
  if (g === undefined) {
    const pts = V29_RATES[rate].points;
    g = new Uint8Array(GRID_N * GRID_N);
    for (let ix = 0; ix < GRID_N; ix++) {
      const x = (ix + 0.5) / GRID_SCALE - GRID_HALF;
      for (let iy = 0; iy < GRID_N; iy++) {
        const y = (iy + 0.5) / GRID_SCALE - GRID_HALF;
        let best = 0;
        let bestD = Infinity;
        for (const p of pts) {
          const d = (x - POINT_RE[p]!) ** 2 + (y - POINT_IM[p]!) ** 2;
          if (d < bestD) {
            bestD = d;
            best = p;
          }
        }
        g[ix * GRID_N + iy] = best;
      }
    }
    grids.set(rate, g);
  }
  return g;
}

/** Phase change (eighths) → bits: Q2 Q3 Q4 (Table 1), or Q2 Q3 at 4800 (quarter turns only). */
const STEP_BITS_3 = BITS_FOR_STEP_3BIT;
const STEP_BITS_2 = Uint8Array.from({ length: 8 }, (_, step) => BITS_FOR_STEP_2BIT[step >> 1]!);
const RATES: Record<V29BitRate, QamRxRate> = {
  9600: { bitsPerSymbol: 4, stepBits: 3, bitsForStep: STEP_BITS_3, pointsRe: P_RE, pointsIm: P_IM, minDistance: V29_RATES[9600].minDistance },
  7200: { bitsPerSymbol: 3, stepBits: 3, bitsForStep: STEP_BITS_3, pointsRe: P_RE, pointsIm: P_IM, minDistance: V29_RATES[7200].minDistance },
  4800: { bitsPerSymbol: 2, stepBits: 2, bitsForStep: STEP_BITS_2, pointsRe: P_RE, pointsIm: P_IM, minDistance: V29_RATES[4800].minDistance },
};

/**
 * Clause 3.3: segment 2 (ABAB) found, then the equalizer trained on segment 3 (CDCD, whose first
 * two symbols acquire() takes), judged on its last symbols and on segment 4's scrambled ones.
 */
const LAYOUT: TrainingLayout = {
  trainSymbols: SEG3_CDCD,
  testSymbols: SEG4_ONES,
  judgeTraining: true,
  seekRun: 16,
  fastUntil: 101,
  fineAfter: 251,
  narrowAt: 0,
};

export interface V29RxOptions extends QamRxOptions {
  /** 9600, 7200 or 4800: the rate of the bursts to expect. */
  bitRate: V29BitRate;
}

const RX_BETA = 0.5;
const RX_SPAN = 7.5;
const EQ_TAPS = 33;
/** Symbols over which the frequency error is measured. */
const ALIGN_FREQUENCY = 16;
/** After the frequency correction: symbols to let the equalizer's history refill, then to average. */
const ALIGN_SETTLE = 12;
const ALIGN_AVERAGE = 16;

export class V29Rx extends QamRx {
  bitRate: V29BitRate;
  private readonly fronts = new Map<V29BitRate, DemodFrontEnd>();
  private readonly lfsr = new Lfsr7(SEG3_SEED);
  private rate: V29RateInfo;
  private grid: Uint8Array;
  /** Segment 2 measured (frequency, phase, which point is A); now waiting for segment 3. */
  private aligned = false;
  private expectA = false;
  private candidate = false;
  private breakThreshold = 0;

  constructor(opts: V29RxOptions) {
    super('V29Rx', opts, V29_SCRAMBLER, 8);
    this.bitRate = checkOneOf('V29Rx', 'bitRate', opts?.bitRate, V29_BIT_RATES);
    this.rate = V29_RATES[this.bitRate];
    this.grid = decisionGrid(this.bitRate);
    this.restart(this.bitRate);
  }

  /** One front end per rate (its equalizer's reference gain is the rate's mean amplitude). */
  private frontEnd(rate: V29BitRate): DemodFrontEnd {
    let fe = this.fronts.get(rate);
    if (fe === undefined) {
      fe = new DemodFrontEnd({
        symbolRate: BAUD_RATE,
        carrierHz: CARRIER_HZ,
        beta: RX_BETA,
        spanSymbols: RX_SPAN,
        eqTaps: EQ_TAPS,
        eqGain: Math.sqrt(V29_RATES[rate].meanPower),
        carrierOnDbm0: this.onDbm0,
        carrierOffDbm0: this.offDbm0,
      });
      this.fronts.set(rate, fe);
    }
    return fe;
  }

  /** Waits for a new burst at `bitRate` (default: the current one). */
  restart(bitRate: V29BitRate = this.bitRate): void {
    this.bitRate = checkOneOf('V29Rx', 'bitRate', bitRate, V29_BIT_RATES);
    this.rate = V29_RATES[this.bitRate];
    this.grid = decisionGrid(this.bitRate);
    const r = this.rate;
    // Smallest step from segment 2's points to segment 3's first two (C, then D).
    let jump = Infinity;
    for (const p of [r.c, r.d]) {
      for (const q of [r.a, r.b]) jump = Math.min(jump, Math.hypot(P_RE[p]! - P_RE[q]!, P_IM[p]! - P_IM[q]!));
    }
    this.breakThreshold = (jump / 2) ** 2;
    this.setRate(this.frontEnd(this.bitRate), RATES[this.bitRate], LAYOUT, BAUD_RATE);
    this.resetBurst();
  }

  /** Segment 2: frequency, phase and which point is A (align), then the break into segment 3. */
  protected override acquireStart(): void {
    this.aligned = false;
  }

  protected acquire(): void {
    if (this.aligned) this.waitBreak();
    else this.align();
  }

  private align(): void {
    const alt = this.alt;
    alt.pushOf(this.fe);
    if (alt.run === 0) {
      this.fail();
      return;
    }
    const n = ++this.count;
    if (n === ALIGN_FREQUENCY) {
      // Coarse frequency from the turn between symbols two apart.
      this.fe.nco.adjustFrequency((alt.rotationPerTwoSymbols() * BAUD_RATE) / (4 * Math.PI));
      return;
    }
    if (n === ALIGN_FREQUENCY + ALIGN_SETTLE) alt.restartAverages();
    if (n < ALIGN_FREQUENCY + ALIGN_SETTLE + ALIGN_AVERAGE) return;
    // Which of the two positions is A: A/B has a known angle (+135° or +90°).
    const r = this.rate;
    const ar = P_RE[r.a]!;
    const ai = P_IM[r.a]!;
    const qAngle = Math.atan2(ai, ar) - Math.atan2(P_IM[r.b]!, P_RE[r.b]!);
    const rAngle = Math.atan2(alt.lastIm, alt.lastRe) - Math.atan2(alt.otherIm, alt.otherRe);
    const lastIsA = Math.abs(wrap(rAngle - qAngle)) < Math.abs(wrap(rAngle + qAngle));
    const pr = lastIsA ? alt.lastRe : alt.otherRe;
    const pi = lastIsA ? alt.lastIm : alt.otherIm;
    // Turn the measured A onto A, and scale it to A's amplitude.
    const pll = this.fe.pll;
    pll.setPhase(pll.phase + Math.atan2(pi, pr) - Math.atan2(ai, ar));
    const gain = Math.hypot(ar, ai) / Math.max(1e-9, Math.hypot(pr, pi));
    this.fe.eq.scaleCoefficients(gain, 0);
    this.expectA = !lastIsA;
    this.candidate = false;
    pll.setGains(0.1, 1);
    this.aligned = true;
    this.count = 0;
  }

  private waitBreak(): void {
    const zr = this.fe.re;
    const zi = this.fe.im;
    const r = this.rate;
    const e = this.expectA ? r.a : r.b;
    this.expectA = !this.expectA;
    const er = P_RE[e]!;
    const ei = P_IM[e]!;
    const dAB = (zr - er) ** 2 + (zi - ei) ** 2;
    if (dAB > this.breakThreshold) {
      // Off the alternation: segment 3 starts with C then D.
      const cd = this.candidate ? r.d : r.c;
      const dCD = (zr - P_RE[cd]!) ** 2 + (zi - P_IM[cd]!) ** 2;
      if (dCD < dAB) {
        if (this.candidate) {
          // The two symbols just seen were C and D: the generator's first two bits.
          this.lfsr.restart();
          this.lfsr.next();
          this.lfsr.next();
          this.startTraining(2);
          return;
        }
        this.candidate = true;
      } else {
        this.candidate = false;
      }
    } else {
      this.candidate = false;
      this.fe.pll.updateToward(P_RE, P_IM, e);
    }
    if (++this.count > SEG2_ABAB + 32) this.fail();
  }

  /** Segment 3: C for a 0 of the generator, D for a 1. */
  protected trainingPoint(): number {
    return this.lfsr.next() ? this.rate.d : this.rate.c;
  }

  protected trainingEnd(): void {}

  /** The nearest point of the rate's set, from the decision grid. */
  protected decide(): number {
    let gx = ((this.fe.re + GRID_HALF) * GRID_SCALE) | 0;
    let gy = ((this.fe.im + GRID_HALF) * GRID_SCALE) | 0;
    gx = gx < 0 ? 0 : gx >= GRID_N ? GRID_N - 1 : gx;
    gy = gy < 0 ? 0 : gy >= GRID_N ? GRID_N - 1 : gy;
    return this.grid[gx * GRID_N + gy]!;
  }
}

function wrap(a: number): number {
  return a - 2 * Math.PI * Math.round(a / (2 * Math.PI));
}
