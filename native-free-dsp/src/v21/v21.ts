// V.21 300 bit/s FSK modem (ITU-T V.21 §2-§7), as T.30 uses channel 2 for its control messages:
// channel 1 marks 980 Hz / spaces 1180 Hz, channel 2 marks 1650 Hz / spaces 1850 Hz (a "1" is the
// mark). The transmitter keeps phase across bit changes. The receiver correlates the input with
// both tones over a sliding one-bit window (a noncoherent matched filter), recovers the bit clock
// from the zero crossings of |mark|² − |space|², and detects the carrier with hysteresis on the
// power the correlators see (in band only: line noise elsewhere does not raise it).
import { checkFunction, checkNumber, checkOneOf } from '../errors.js';
import { dbm0ToAmplitude, meanSquareToDbm0, dbm0ToMeanSquare, DEFAULT_LAW } from '../power/levels.js';
import { DDS_SHIFT, DDS_SINE, ddsPhaseRate } from '../tones/dds.js';
import { END_OF_DATA, SAMPLE_RATE, type GetBit, type ModemRxStatus, type ModemTxStatus, type PutBit } from '../common/types.js';

/** V.21 modulation rate, bit/s. */
export const V21_BIT_RATE = 300;

/** Mark (binary 1) and space (binary 0) frequencies per channel, V.21 §2. */
export const V21_CHANNELS = {
  1: { markHz: 980, spaceHz: 1180 },
  2: { markHz: 1650, spaceHz: 1850 },
} as const;
export type V21Channel = keyof typeof V21_CHANNELS;

// ---------------------------------------------------------------------------------- transmitter

export interface V21TxOptions {
  /** 1 or 2; default 2 (the channel T.30 uses both ways). */
  channel?: V21Channel;
  /** Transmit level, dBm0 (−60…+3); default −13 (V.2's nominal maximum for data on the PSTN, about what fax machines send). */
  levelDbm0?: number;
  /** Supplies the bits to send: 0 or 1, or END_OF_DATA (−1) when there is nothing more (the carrier then stops). */
  getBit: GetBit;
  /** 'endOfData' then 'shutdownComplete' (FSK has no shutdown sequence), both when the source runs dry. */
  onStatus?: (status: ModemTxStatus) => void;
}

export class V21Tx {
  readonly channel: V21Channel;
  readonly levelDbm0: number;
  private readonly getBit: GetBit;
  private readonly onStatus: ((status: ModemTxStatus) => void) | undefined;
  /** One cycle of the sine at the transmit level, indexed by the top bits of the phase. */
  private readonly wave: Int16Array;
  private readonly markRate: number;
  private readonly spaceRate: number;
  private phase = 0;
  private rate = 0;
  /** Bit clock in units of 1/8000 bit: a new bit every time it reaches 8000 (exact, no drift). */
  private baud = 0;
  private ended = false;

  constructor(opts: V21TxOptions) {
    this.getBit = checkFunction('V21Tx', 'getBit', opts?.getBit);
    this.channel = checkOneOf('V21Tx', 'channel', opts.channel ?? 2, [1, 2] as const);
    this.levelDbm0 = checkNumber('V21Tx', 'levelDbm0', opts.levelDbm0 ?? -13, -60, 3);
    this.onStatus = opts.onStatus === undefined ? undefined : checkFunction('V21Tx', 'onStatus', opts.onStatus);
    const amplitude = dbm0ToAmplitude(this.levelDbm0, DEFAULT_LAW);
    this.wave = Int16Array.from(DDS_SINE.subarray(0, 1 << (32 - DDS_SHIFT)), (v) => Math.round(amplitude * v));
    const ch = V21_CHANNELS[this.channel];
    // Phases run as int32 (wrapping), which keeps the loop in integer arithmetic.
    this.markRate = ddsPhaseRate(ch.markHz) | 0;
    this.spaceRate = ddsPhaseRate(ch.spaceHz) | 0;
    this.restart();
  }

  restart(): void {
    this.phase = 0;
    this.rate = this.markRate;
    this.baud = SAMPLE_RATE; // fetch a bit at the first sample
    this.ended = false;
  }

  /** Whether the bit source has run out (tx() then returns 0 until restart()). */
  get done(): boolean {
    return this.ended;
  }

  /**
   * Fills `out` with modem audio; returns the number of samples written — out.length, or fewer
   * when the bit source ran out (the carrier stops at the end of the last bit).
   */
  tx(out: Int16Array): number {
    if (this.ended) return 0;
    const wave = this.wave;
    const mark = this.markRate;
    const space = this.spaceRate;
    let phase = this.phase;
    let rate = this.rate;
    let baud = this.baud;
    const n = out.length;
    let i = 0;
    while (i < n) {
      if (baud >= SAMPLE_RATE) {
        baud -= SAMPLE_RATE;
        const bit = this.getBit();
        if (bit === END_OF_DATA) {
          this.ended = true;
          this.onStatus?.('endOfData');
          this.onStatus?.('shutdownComplete');
          break;
        }
        rate = bit ? mark : space;
      }
      // Samples until the next bit boundary (the bit clock gains 300 per sample), or the buffer end.
      const end = Math.min(n, i + Math.ceil((SAMPLE_RATE - baud) / V21_BIT_RATE));
      baud += (end - i) * V21_BIT_RATE;
      // Two samples an iteration: their phases do not wait on each other.
      const rate2 = (rate + rate) | 0;
      for (; i + 1 < end; i += 2) {
        out[i] = wave[phase >>> DDS_SHIFT]!;
        out[i + 1] = wave[((phase + rate) | 0) >>> DDS_SHIFT]!;
        phase = (phase + rate2) | 0;
      }
      if (i < end) {
        out[i++] = wave[phase >>> DDS_SHIFT]!;
        phase = (phase + rate) | 0;
      }
    }
    this.phase = phase;
    this.rate = rate;
    this.baud = baud;
    return i;
  }
}

// ------------------------------------------------------------------------------------- receiver

export interface V21RxOptions {
  channel?: V21Channel;
  /** Receives each demodulated bit (0 or 1) while the carrier is up. */
  putBit: PutBit;
  /** 'carrierUp' and 'carrierDown' (signalLevelDbm0 tells the level). */
  onStatus?: (status: ModemRxStatus) => void;
  /**
   * In-band level at which the carrier is declared present, dBm0 (−70…0); default −43 and
   * carrierOffDbm0 −48: the data-channel received line signal detector thresholds of V.21 §7 (on
   * above −43 dBm, off below −48 dBm, with hysteresis). spandsp's fax front end sets its V.21
   * cutoff at −39.09 dBm0, i.e. on ≈ −36.6 and off ≈ −41.6 dBm0; pass those to match it.
   */
  carrierOnDbm0?: number;
  /** Level below which the carrier is declared lost, dBm0; must be below carrierOnDbm0. */
  carrierOffDbm0?: number;
}

/** Correlation window, samples: one bit (8000/300 = 26.7) rounded up. */
const WINDOW = 27;
/** Power smoothing factor per sample (time constant 64 samples = 8 ms). */
const POWER_ALPHA = 1 / 64;
/** Clock-recovery gains (fraction of the measured phase error corrected per zero crossing). */
const GAIN_ACQUIRE = 1 / 2;
const GAIN_TRACK = 1 / 10;
/** Zero crossings handled with the acquisition gain after the carrier comes up. */
const ACQUIRE_CROSSINGS = 12;

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

export class V21Rx {
  readonly channel: V21Channel;
  readonly carrierOnDbm0: number;
  readonly carrierOffDbm0: number;
  private readonly putBit: PutBit;
  private readonly onStatus: ((status: ModemRxStatus) => void) | undefined;
  /** cos/sin of mark and space over their common period, interleaved [cm, sm, cs, ss]. */
  private readonly osc: Float64Array;
  private readonly period: number;
  private readonly ring = new Float64Array(4 * WINDOW);
  /** Correlator power → mean square of the received tone. */
  private readonly powerScale: number;
  private readonly onPower: number;
  private readonly offPower: number;
  private k = 0;
  private pos = 0;
  private mr = 0;
  private mi = 0;
  private sr = 0;
  private si = 0;
  private power = 0;
  private carrier = false;
  private lastD = 0;
  private baud = 0;
  private crossings = 0;

  constructor(opts: V21RxOptions) {
    this.putBit = checkFunction('V21Rx', 'putBit', opts?.putBit);
    this.channel = checkOneOf('V21Rx', 'channel', opts.channel ?? 2, [1, 2] as const);
    this.onStatus = opts.onStatus === undefined ? undefined : checkFunction('V21Rx', 'onStatus', opts.onStatus);
    this.carrierOnDbm0 = checkNumber('V21Rx', 'carrierOnDbm0', opts.carrierOnDbm0 ?? -43, -70, 0);
    this.carrierOffDbm0 = checkNumber('V21Rx', 'carrierOffDbm0', opts.carrierOffDbm0 ?? -48, -80, this.carrierOnDbm0 - 0.5);
    const { markHz, spaceHz } = V21_CHANNELS[this.channel];
    // Both tones repeat exactly every `period` samples: tabulate them once, no drift, no DDS.
    this.period = SAMPLE_RATE / gcd(gcd(markHz, spaceHz), SAMPLE_RATE);
    this.osc = new Float64Array(4 * this.period);
    for (let n = 0; n < this.period; n++) {
      const wm = (2 * Math.PI * markHz * n) / SAMPLE_RATE;
      const ws = (2 * Math.PI * spaceHz * n) / SAMPLE_RATE;
      this.osc.set([Math.cos(wm), Math.sin(wm), Math.cos(ws), Math.sin(ws)], 4 * n);
    }
    // A tone of amplitude A gives |C|² ≈ (A·W/2)² in its own correlator and leaks
    // (sin(πΔfW/fs)/(W sin(πΔf/fs)))² of that into the other; mean square is A²/2.
    const x = (Math.PI * (spaceHz - markHz)) / SAMPLE_RATE;
    const leak = (Math.sin(x * WINDOW) / (WINDOW * Math.sin(x))) ** 2;
    this.powerScale = 2 / (WINDOW * WINDOW * (1 + leak));
    this.onPower = dbm0ToMeanSquare(this.carrierOnDbm0) / this.powerScale;
    this.offPower = dbm0ToMeanSquare(this.carrierOffDbm0) / this.powerScale;
    this.restart();
  }

  restart(): void {
    this.ring.fill(0);
    this.k = 0;
    this.pos = 0;
    this.mr = this.mi = this.sr = this.si = 0;
    this.power = 0;
    this.carrier = false;
    this.lastD = 0;
    this.baud = 0;
    this.crossings = 0;
  }

  /** Whether the carrier is present now. */
  get carrierUp(): boolean {
    return this.carrier;
  }

  /** In-band received level, dBm0 (smoothed over a few ms). */
  get signalLevelDbm0(): number {
    return meanSquareToDbm0(this.power * this.powerScale);
  }

  /** Demodulates a block of samples. */
  rx(samples: Int16Array): void {
    const osc = this.osc;
    const ring = this.ring;
    const period = this.period;
    let k = this.k;
    let pos = this.pos;
    let mr = this.mr;
    let mi = this.mi;
    let sr = this.sr;
    let si = this.si;
    let power = this.power;
    let lastD = this.lastD;
    let baud = this.baud;
    for (let i = 0; i < samples.length; i++) {
      const x = samples[i]!;
      const o = 4 * k;
      const j = 4 * pos;
      const a = x * osc[o]!;
      const b = x * osc[o + 1]!;
      const c = x * osc[o + 2]!;
      const d = x * osc[o + 3]!;
      mr += a - ring[j]!;
      mi += b - ring[j + 1]!;
      sr += c - ring[j + 2]!;
      si += d - ring[j + 3]!;
      ring[j] = a;
      ring[j + 1] = b;
      ring[j + 2] = c;
      ring[j + 3] = d;
      if (++k === period) k = 0;
      if (++pos === WINDOW) pos = 0;

      const pm = mr * mr + mi * mi;
      const ps = sr * sr + si * si;
      power += (pm + ps - power) * POWER_ALPHA;
      if (this.carrier) {
        if (power < this.offPower) {
          this.carrier = false;
          this.onStatus?.('carrierDown');
          continue;
        }
      } else {
        if (power <= this.onPower) continue;
        this.carrier = true;
        this.crossings = 0;
        baud = SAMPLE_RATE / 2;
        lastD = pm - ps;
        this.onStatus?.('carrierUp');
        continue;
      }

      // Bit clock: `baud` counts 1/8000 bit per 1/300 … it reaches 8000 once per bit, when the
      // window lines up with a bit. A zero crossing of pm − ps comes half a bit earlier.
      const dec = pm - ps;
      if ((dec > 0) !== (lastD > 0)) {
        const t = lastD / (lastD - dec); // where between the two samples the crossing fell
        const err = baud - V21_BIT_RATE * (1 - t) - SAMPLE_RATE / 2;
        baud -= err * (this.crossings < ACQUIRE_CROSSINGS ? GAIN_ACQUIRE : GAIN_TRACK);
        this.crossings++;
      }
      lastD = dec;
      baud += V21_BIT_RATE;
      if (baud >= SAMPLE_RATE) {
        baud -= SAMPLE_RATE;
        this.putBit(dec > 0 ? 1 : 0);
      }
    }
    this.k = k;
    this.pos = pos;
    this.mr = mr;
    this.mi = mi;
    this.sr = sr;
    this.si = si;
    this.power = power;
    this.lastD = lastD;
    this.baud = baud;
  }
}

/** V.21 bits per sample, for sizing buffers: 300 / 8000. */
export const V21_BITS_PER_SAMPLE = V21_BIT_RATE / SAMPLE_RATE;
