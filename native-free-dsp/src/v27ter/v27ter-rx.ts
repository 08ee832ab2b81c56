// V.27 ter receiver (ITU-T V.27 ter): the common front end (carrier detection, T/2 band-pass
// matched filter with Gardner timing, AGC, T/2 LMS equalizer, carrier loop) and the training of
// clause 8: segment 3's 180° reversals found (and their rotation measured for the frequency
// error), the first symbol of segment 4 found (the first conditioning bit is 0: no reversal), the
// equalizer trained on segment 4 (the scrambler fed with ones, from the known seed), segment 5
// checked; then differential decoding and descrambling (with the scrambler's guard).
//
//   const rx = new V27terRx({ bitRate: 4800, putBit, onStatus });
//   rx.rx(samples);
//   rx.restart(2400);                      // expect a new long training at 2400
//   rx.restart(4800, { shortTrain: true }); // short training: reuses the last trained equalizer
// Status: carrierUp → trainingInProgress → trained | trainingFailed → carrierDown.
import { checkOneOf } from '../errors.js';
import type { Complex } from '../common/complex.js';
import { DemodFrontEnd } from '../common/demod-front-end.js';
import { QamRx, type QamRxOptions, type QamRxRate, type TrainingLayout } from '../common/qam-rx.js';
import { Scrambler, V27TER_SCRAMBLER } from '../common/scrambler.js';
import {
  BITS_FOR_STEP_DIBIT,
  BITS_FOR_STEP_TRIBIT,
  CARRIER_HZ,
  POINT_IM,
  POINT_RE,
  SCRAMBLER_SEED,
  SEG3_LONG,
  SEG4_LONG,
  SEG4_SHORT,
  SEG5_ONES,
  V27TER_BIT_RATES,
  V27TER_RATES,
  type V27terBitRate,
} from './constellation.js';

const COS_22_5 = Math.cos(Math.PI / 8);
const SIN_22_5 = Math.sin(Math.PI / 8);

/** Nearest 8-PSK point (eighths of a turn): the octant of z turned by +22.5°. */
function octant(z: Complex): number {
  const zr = z.re;
  const zi = z.im;
  const u = zr * COS_22_5 - zi * SIN_22_5;
  const v = zr * SIN_22_5 + zi * COS_22_5;
  if (v >= 0) return u >= 0 ? (u >= v ? 0 : 1) : -u < v ? 2 : 3;
  return u < 0 ? (-u >= -v ? 4 : 5) : u < -v ? 6 : 7;
}

/** Nearest of the 0°/90°/180°/270° points, in eighths of a turn. */
function quadrant(z: Complex): number {
  const zr = z.re;
  const zi = z.im;
  if (Math.abs(zr) >= Math.abs(zi)) return zr >= 0 ? 0 : 4;
  return zi >= 0 ? 2 : 6;
}

/** Phase change (eighths) → bits: tribits (4800), dibits (2400: quarter turns only). */
const RATES: Record<V27terBitRate, QamRxRate> = {
  4800: { bitsPerSymbol: 3, stepBits: 3, bitsForStep: BITS_FOR_STEP_TRIBIT, pointsRe: POINT_RE, pointsIm: POINT_IM, minDistance: V27TER_RATES[4800].minDistance },
  2400: {
    bitsPerSymbol: 2,
    stepBits: 2,
    bitsForStep: Uint8Array.from({ length: 8 }, (_, step) => BITS_FOR_STEP_DIBIT[step >> 1]!),
    pointsRe: POINT_RE,
    pointsIm: POINT_IM,
    minDistance: V27TER_RATES[2400].minDistance,
  },
};

export interface V27terRxOptions extends QamRxOptions {
  /** 4800 or 2400: the rate of the bursts to expect. */
  bitRate: V27terBitRate;
}

const RX_BETA = 0.5;
/** Receive filter length, symbols: 25 taps at 1600 baud, 27 at 1200. */
const RX_SPAN: Record<V27terBitRate, number> = { 4800: 5, 2400: 4 };
const EQ_TAPS = 33;

/** Table 3: the equalizer trains on segment 4 (from its first symbol, which acquire() takes). */
function layout(shortTrain: boolean): TrainingLayout {
  return {
    trainSymbols: shortTrain ? SEG4_SHORT : SEG4_LONG,
    testSymbols: SEG5_ONES,
    judgeTraining: false,
    // Reversals in a row before segment 3 is believed.
    seekRun: shortTrain ? 5 : 10,
    fastUntil: 100,
    fineAfter: 600,
    narrowAt: 300,
  };
}
const LAYOUTS = { long: layout(false), short: layout(true) };

export class V27terRx extends QamRx {
  bitRate: V27terBitRate;
  shortTrain = false;
  private readonly fronts: Record<V27terBitRate, DemodFrontEnd>;
  /** The conditioning pattern's generator (the scrambler fed with ones, from the known seed). */
  private readonly gen = new Scrambler(V27TER_SCRAMBLER);
  private refState = 0;

  constructor(opts: V27terRxOptions) {
    super('V27terRx', opts, V27TER_SCRAMBLER, 6);
    this.bitRate = checkOneOf('V27terRx', 'bitRate', opts?.bitRate, V27TER_BIT_RATES);
    const make = (r: V27terBitRate): DemodFrontEnd =>
      new DemodFrontEnd({
        symbolRate: V27TER_RATES[r].baud,
        carrierHz: CARRIER_HZ,
        beta: RX_BETA,
        spanSymbols: RX_SPAN[r],
        eqTaps: EQ_TAPS,
        eqGain: Math.SQRT2,
        carrierOnDbm0: this.onDbm0,
        carrierOffDbm0: this.offDbm0,
      });
    this.fronts = { 4800: make(4800), 2400: make(2400) };
    this.restart(this.bitRate);
  }

  /** Waits for a new burst at `bitRate`; a short training reuses the last trained equalizer. */
  restart(bitRate: V27terBitRate = this.bitRate, opts: { shortTrain?: boolean } = {}): void {
    this.bitRate = checkOneOf('V27terRx', 'bitRate', bitRate, V27TER_BIT_RATES);
    const fe = this.fronts[this.bitRate];
    this.shortTrain = (opts.shortTrain ?? false) && fe.hasSavedTraining;
    this.resumeTraining = this.shortTrain;
    this.setRate(fe, RATES[this.bitRate], this.shortTrain ? LAYOUTS.short : LAYOUTS.long, V27TER_RATES[this.bitRate].baud);
    this.resetBurst();
  }

  /**
   * Segment 3's reversals (their rotation measured) until the first symbol of segment 4: a
   * conditioning bit 0, no reversal.
   */
  protected acquire(): void {
    const fe = this.fe;
    const zr = fe.re;
    const zi = fe.im;
    // A reversal turns the point by 180°; segment 4 opens with a 0 (no turn).
    if (zr * this.z1r + zi * this.z1i <= 0) {
      this.alt.pushOf(fe);
      if (++this.count > SEG3_LONG + 8) this.fail();
      return;
    }
    if (!this.shortTrain) {
      // Coarse frequency from the turn between symbols two apart over the reversals.
      fe.nco.adjustFrequency((this.alt.rotationPerTwoSymbols() * V27TER_RATES[this.bitRate].baud) / (4 * Math.PI));
    }
    // This symbol and the one before are both at the transmitter's state 0 (50 or 14 reversals
    // from 0), the one before that at 180°: turn and scale their mean onto the 0° point.
    const mr = (zr + this.z1r - this.z2r) / 3;
    const mi = (zi + this.z1i - this.z2i) / 3;
    fe.pll.setPhase(fe.pll.phase + Math.atan2(mi, mr));
    fe.eq.scaleCoefficients(Math.SQRT2 / Math.max(1e-9, Math.hypot(mr, mi)), 0);
    this.gen.restart(SCRAMBLER_SEED);
    this.genBit(); // the 0 just received
    this.refState = 0;
    this.startTraining(1);
  }

  /** Next bit of the conditioning pattern: the first of three scrambled ones. */
  private genBit(): number {
    const b = this.gen.scramble(1);
    this.gen.scramble(1);
    this.gen.scramble(1);
    return b;
  }

  /** Segment 4: 0° or 180° from the last point by the conditioning bit. */
  protected trainingPoint(): number {
    this.refState = (this.refState + 4 * this.genBit()) & 7;
    return this.refState;
  }

  /**
   * Segment 5 follows through the data path: the descrambler takes over the generator's register
   * and guard counter, so it is in step from the first bit; the phase goes on from the last point.
   */
  protected trainingEnd(): void {
    this.descrambler.setState(this.gen.state, this.gen.guardCount);
    this.lastPhase = this.refState;
  }

  protected decide(): number {
    return this.bitRate === 4800 ? octant(this.fe) : quadrant(this.fe);
  }
}
