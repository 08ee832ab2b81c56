// Automatic gain control and carrier (energy) detection of the modem receivers.
//
// Agc: scales a complex stream to a target mean power. While adapting it follows the measured
// power with a one-pole average; freeze() holds the gain (a receiver freezes it once training
// has begun, so the equalizer sees a steady scale).
//   agc.update(re*re + im*im); y = x * agc.gain      (or agc.measure(holder): no double argument)
//
// CarrierDetector: the on/off decision of V.27ter/V.29/V.17 §"received signal detector": the
// input is DC-blocked, its power averaged over `timeConstantMs`; carrier is on above `onDbm0`
// and off below `offDbm0` (hysteresis) once it has stayed below for `hangoverMs`. A receiver may
// raise the off threshold relative to the level it trained on (setRelativeOff), so a carrier
// that ends into a noisy line is still seen to end (and the noise left behind is not taken for a
// new carrier: after such a drop, coming back needs a level within 3 dB of the old one, until the
// line goes quiet below the absolute off threshold).
//   const ev = det.push(sample);  // 0, CARRIER_UP or CARRIER_DOWN
import { checkNumber } from '../errors.js';
import { dbm0ToMeanSquare, meanSquareToDbm0 } from '../power/levels.js';
import type { Complex } from './complex.js';
import { SAMPLE_RATE } from './types.js';

export interface AgcOptions {
  /** Mean power of the scaled output, > 0. */
  targetPower: number;
  /** One-pole coefficient of the power average per update, 0 < rate ≤ 1; default 1/16. */
  rate?: number;
  /** Lowest power considered signal (below it the gain stops growing), > 0; default 1e-6. */
  floorPower?: number;
}

export class Agc {
  readonly targetPower: number = 0;
  readonly rate: number = 0;
  readonly floorPower: number = 0;
  /** Current gain. */
  gain = 1;
  /** Current power estimate (before scaling). */
  power = 0;
  frozen = false;

  constructor(opts: AgcOptions) {
    this.targetPower = checkNumber('Agc', 'targetPower', opts?.targetPower, 1e-12, 1e12);
    this.rate = checkNumber('Agc', 'rate', opts.rate ?? 1 / 16, 1e-6, 1);
    this.floorPower = checkNumber('Agc', 'floorPower', opts.floorPower ?? 1e-6, 1e-30, 1e12);
    this.gain = this.power = 0.5; // doubles from the start (see complex.ts)
    this.restart();
  }

  restart(): void {
    this.gain = 1;
    this.power = 0;
    this.frozen = false;
  }

  /** Starts the average at `power` (skips the ramp from zero). */
  prime(power: number): void {
    this.power = power;
    this.gain = Math.sqrt(this.targetPower / Math.max(power, this.floorPower));
  }

  /** Feeds |s|² of an unscaled sample (the allocation-free form of update(): no double argument). */
  measure(s: Complex): void {
    if (this.frozen === true) return; // (see complex.ts)
    const power = s.re * s.re + s.im * s.im;
    if (this.power === 0) {
      this.prime(power);
      return;
    }
    const p = this.power + this.rate * (power - this.power);
    this.power = p;
    this.gain = Math.sqrt(this.targetPower / (p > this.floorPower ? p : this.floorPower));
  }

  /** Feeds one power measurement (|x|² of an unscaled sample). */
  update(power: number): void {
    if (this.frozen === true) return; // (see complex.ts)
    const p = this.power + this.rate * (power - this.power);
    this.power = p;
    this.gain = Math.sqrt(this.targetPower / (p > this.floorPower ? p : this.floorPower));
  }

  freeze(): void {
    this.frozen = true;
  }

  unfreeze(): void {
    this.frozen = false;
  }
}

// push() returns the module-local twins: V8 reads an exported binding from its cell, with a
// hole check, on every use, where it folds a local const into the code.
const UP = 1;
const DOWN = -1;
/** (A local const: the global `Infinity` in a branch V8 has not seen run is a generic global load.) */
const NO_LIMIT = Infinity;
/** The carrier detector's DC blocker pole (flat above ~15 Hz); DemodFrontEnd.run runs the same blocker. */
const POLE = 0.99;
export const DC_BLOCKER_POLE = POLE;
export const CARRIER_UP = UP;
export const CARRIER_DOWN = DOWN;

export interface CarrierDetectorOptions {
  /** Carrier on above this level, dBm0, −70…0. */
  onDbm0: number;
  /** Carrier off below this level, dBm0, −75…onDbm0. */
  offDbm0: number;
  /** Averaging time constant, ms, 0.5…100; default 3. */
  timeConstantMs?: number;
  /** Time the level must stay below the off threshold before carrier off, ms, 0…500; default 15. */
  hangoverMs?: number;
  sampleRate?: number;
}

export class CarrierDetector {
  readonly onPower: number = 0;
  readonly offPower: number = 0;
  readonly hangoverSamples: number = 0;
  /** Whether carrier is present. */
  present = false;
  /** Averaged power of the DC-blocked input (16-bit scale, mean square). */
  power = 0;
  /** The power average's coefficient per sample. */
  readonly alpha: number = 0;
  private offThreshold: number = 0;
  private onThreshold: number = 0;
  private below = 0;
  /**
   * An average within [quietLow, quietHigh] changes nothing in decide() (kept up to date as the
   * state changes: DemodFrontEnd.run reads them as fields — a getter V8 does not inline returns a
   * boxed number).
   */
  quietLow = 0;
  quietHigh = 0;
  /** The DC blocker's last input and output (DemodFrontEnd.run keeps them in locals over a block). */
  x1 = 0;
  y1 = 0;

  constructor(opts: CarrierDetectorOptions) {
    const B = 'CarrierDetector';
    const on = checkNumber(B, 'onDbm0', opts?.onDbm0, -70, 0);
    const off = checkNumber(B, 'offDbm0', opts.offDbm0, -75, on);
    const fs = checkNumber(B, 'sampleRate', opts.sampleRate ?? SAMPLE_RATE, 1000, 1e6);
    const tc = checkNumber(B, 'timeConstantMs', opts.timeConstantMs ?? 3, 0.5, 100);
    const hang = checkNumber(B, 'hangoverMs', opts.hangoverMs ?? 15, 0, 500);
    this.onPower = dbm0ToMeanSquare(on);
    this.offPower = dbm0ToMeanSquare(off);
    this.alpha = 1 - Math.exp(-1000 / (tc * fs));
    this.hangoverSamples = Math.round((hang * fs) / 1000);
    this.offThreshold = this.offPower;
    this.onThreshold = this.onPower;
    this.power = this.y1 = this.quietLow = this.quietHigh = 0.5; // doubles from the start (see complex.ts)
    this.restart();
  }

  restart(): void {
    this.present = false;
    this.power = 0;
    this.below = 0;
    this.x1 = 0;
    this.y1 = 0;
    this.offThreshold = this.offPower;
    this.onThreshold = this.onPower;
    this.band();
  }

  /** quietLow and quietHigh from the state. */
  private band(): void {
    const on = this.present === true;
    // (off: below offPower the on threshold goes back to onPower, nothing to do once it is there)
    this.quietLow = on ? (this.below === 0 ? this.offThreshold : NO_LIMIT) : this.onThreshold === this.onPower ? -NO_LIMIT : this.offPower;
    this.quietHigh = on ? NO_LIMIT : this.onThreshold;
  }

  /** Level now, dBm0. */
  get levelDbm0(): number {
    return meanSquareToDbm0(this.power);
  }

  /**
   * Raises the off threshold to `dbBelow` dB under the current level (never lowers it below the
   * absolute off threshold); cleared when the carrier goes off.
   */
  setRelativeOff(dbBelow: number): void {
    this.offThreshold = Math.max(this.offPower, this.power * 10 ** (-dbBelow / 10));
    this.band();
  }

  /** Takes one sample; returns 0, CARRIER_UP or CARRIER_DOWN. */
  push(x: number): number {
    // DC blocker (DC_BLOCKER_POLE), then a one-pole power average.
    const y = x - this.x1 + POLE * this.y1;
    this.x1 = x;
    this.y1 = y;
    const p = this.power + this.alpha * (y * y - this.power);
    this.power = p;
    return this.decide();
  }

  /**
   * The decision on the new average in `power`; returns 0, CARRIER_UP or CARRIER_DOWN. An
   * average within [quietLow, quietHigh] changes nothing and gives 0, so a caller that runs the
   * average itself (DemodFrontEnd.run) calls this only outside that band. (No argument: a double
   * passed to a call V8 does not inline is boxed, an allocation.)
   */
  decide(): number {
    const p = this.power;
    if (this.present === true) {
      if (p < this.offThreshold) {
        if (++this.below > this.hangoverSamples) {
          this.present = false;
          this.below = 0;
          // After a relative drop, coming back needs a level near the old one again (or the
          // level falling below the absolute on threshold first): noise left on the line after
          // a burst is not a new carrier.
          if (this.offThreshold > this.offPower) this.onThreshold = Math.max(this.onPower, 2 * this.offThreshold);
          this.offThreshold = this.offPower;
          this.band();
          return DOWN;
        }
        this.band();
      } else if (this.below !== 0) {
        this.below = 0;
        this.band();
      }
    } else if (p > this.onThreshold) {
      this.present = true;
      this.below = 0;
      this.band();
      return UP;
    } else if (p < this.offPower && this.onThreshold !== this.onPower) {
      this.onThreshold = this.onPower;
      this.band();
    }
    return 0;
  }

}
