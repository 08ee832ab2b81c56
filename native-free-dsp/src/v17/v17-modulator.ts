// V.17's passband modulator (ITU-T V.17 clause 2: 2400 baud on 1800 Hz): the common
// PassbandModulator's table-driven shaping and modulation (common/modulator.ts) with a table a
// quarter of the size, kept here because the trick needs V.17's numbers. The carrier advances
// 3/4 of a turn a symbol, so each symbol is turned by (−j)^(n+1) as it enters (a relabelling: every
// V.17 alphabet is symmetric under quarter turns) and the carrier's phase at an output sample then
// depends only on where the sample falls between symbols (10 phases, not the 40 samples after
// which the carrier repeats). At 14400 the table is 124 KB instead of 545 KB: the transmitter was
// waiting on cache misses (with four distinct points it ran 1.4× as fast). Output is sample for
// sample that of PassbandModulator with the same alphabet (v17-modulator.test.ts compares them).
// The symbols come in as a block the caller filled beforehand, not one call each: a call per
// symbol left the speed to whether V8 inlined the transmitter's symbol code into this loop, which
// it did in some processes and not in others (64 or 40 M samples/s at 14400).
//
//   const mod = new V17Modulator(pointsRe, pointsIm);   // a point (0, 0) among them: silence
//   const due = mod.symbolsDue(out.length);              // symbols that fall due in out[0…]
//   const n = mod.modulate(out, 0, gain, syms, count);   // syms[0…count): point indices
import { doubleArray, intArray } from '../common/complex.js';
import { rrcWindowed } from '../common/rrc.js';
import { SAMPLE_RATE } from '../common/types.js';
import { CARRIER_HZ, RRC_BETA } from './types.js';

/** Symbols the pulse spans (modulate() is written out for 12). */
export const V17_TX_SPAN = 12;
/** Phases of the baud clock: 10 per symbol, 3 per output sample (8000 / 2400 = 10 / 3). */
const PHASES = 10;
const STEP = 3;
const SPAN = V17_TX_SPAN;

interface Table {
  /** table[(slot·points + point)·PHASES + phase], slot 0 the oldest: a rotated point's weight. */
  table: number[];
  /** rot[r·points + q]: the index of point q turned by (−j)^r, times PHASES. */
  rot: number[];
  silence: number;
  powerGain: number;
}

const cache = new Map<string, Table>();

export class V17Modulator {
  /** Mean |baseband output|² per unit mean |point|² of independent symbols. */
  readonly powerGain: number;
  /** Index of the point (0, 0). */
  readonly silence: number = 0;
  private readonly table: number[];
  private readonly rot: number[];
  private readonly slotStride: number = 0;
  /** The last SPAN symbols (rotated, as row offsets), in a doubled ring (oldest at pos + 1). */
  private readonly ring: number[];
  private acc = 0;
  private pos = 0;
  /** The quarter turns the next symbol gets, times the alphabet's size. */
  private turn = 0;

  constructor(pointsRe: ArrayLike<number>, pointsIm: ArrayLike<number>) {
    const key = `${Array.from(pointsRe).join(',')}/${Array.from(pointsIm).join(',')}`;
    let t = cache.get(key);
    if (t === undefined) {
      t = build(pointsRe, pointsIm);
      cache.set(key, t);
    }
    this.table = t.table;
    this.rot = t.rot;
    this.silence = t.silence;
    this.powerGain = t.powerGain;
    this.slotStride = pointsRe.length * PHASES;
    this.ring = intArray(2 * SPAN);
    this.restart();
  }

  restart(): void {
    this.ring.fill(this.silence * PHASES);
    this.acc = 0;
    this.pos = 0;
    this.turn = this.slotStride / PHASES; // the first symbol is turned once
  }

  /** How many symbols fall due while the next `samples` samples are made. */
  symbolsDue(samples: number): number {
    return Math.floor((this.acc + STEP * samples) / PHASES);
  }

  /**
   * Fills out[from…] with 16-bit samples × gain, taking syms[0], syms[1], … as each symbol falls
   * due; stops early, at the sample where symbol number `count` would fall due, when there are
   * no more (a later call goes on from there). Returns the index after the last sample written.
   */
  modulate(out: Int16Array, from: number, gain: number, syms: Int32Array, count: number): number {
    const S = this.slotStride;
    const S2 = 2 * S;
    const points = S / PHASES;
    const table = this.table;
    const rot = this.rot;
    const ring = this.ring;
    const end = out.length;
    let acc = this.acc;
    let pos = this.pos;
    let turn = this.turn;
    // The newest symbol's row offset in a local: read back from the ring in the iteration that
    // stored it, it waited on the store (V8 stores a small integer as 64 bits and loads its upper
    // 32, which this CPU does not forward; README "Issue 17, session 14").
    let newest = ring[pos + SPAN]!;
    let next = 0;
    let i = from;
    while (i < end) {
      acc += STEP;
      if (acc >= PHASES) {
        if (next === count) {
          acc -= STEP;
          break;
        }
        const sym = syms[next++]!;
        acc -= PHASES;
        pos = pos === SPAN - 1 ? 0 : pos + 1;
        const v = rot[turn + sym]!;
        ring[pos] = v;
        ring[pos + SPAN] = v;
        newest = v;
        turn += points;
        if (turn === 4 * points) turn = 0;
      }
      // Samples from this one to the next symbol (4 from phase 0, 3 from 1…3, …), or to the end
      // of `out`: four sums are made at phases acc, acc + 3, acc + 6, acc + 9 (the table runs on
      // past its last row for the unused ones) and `samples` of them kept.
      let samples = acc === 0 ? 4 : acc < 4 ? 3 : acc < 7 ? 2 : 1;
      if (samples > end - i) samples = end - i;
      let y0 = 0;
      let y1 = 0;
      let y2 = 0;
      let y3 = 0;
      // Two slots at a time, each sum in slot order (as PassbandModulator: the same doubles), the
      // SPAN = 12 slots written out and the index sums marked `| 0`: in a loop V8 checked both
      // arrays' maps on every pass, and each index sum for overflow (−9 % of this function's
      // instructions; they stay far inside 31 bits). The fourth sum is made only when it is kept
      // (a group in three): made always, a sixth of the loads went to sums thrown away.
      let j = pos + 1;
      let base = acc;
      let b: number;
      let c: number;
      b = (base + ring[j]!) | 0;
      c = (base + S + ring[(j + 1) | 0]!) | 0;
      y0 += table[b]! + table[c]!;
      y1 += table[(b + 3) | 0]! + table[(c + 3) | 0]!;
      y2 += table[(b + 6) | 0]! + table[(c + 6) | 0]!;
      base = (base + S2) | 0;
      j = (j + 2) | 0;
      b = (base + ring[j]!) | 0;
      c = (base + S + ring[(j + 1) | 0]!) | 0;
      y0 += table[b]! + table[c]!;
      y1 += table[(b + 3) | 0]! + table[(c + 3) | 0]!;
      y2 += table[(b + 6) | 0]! + table[(c + 6) | 0]!;
      base = (base + S2) | 0;
      j = (j + 2) | 0;
      b = (base + ring[j]!) | 0;
      c = (base + S + ring[(j + 1) | 0]!) | 0;
      y0 += table[b]! + table[c]!;
      y1 += table[(b + 3) | 0]! + table[(c + 3) | 0]!;
      y2 += table[(b + 6) | 0]! + table[(c + 6) | 0]!;
      base = (base + S2) | 0;
      j = (j + 2) | 0;
      b = (base + ring[j]!) | 0;
      c = (base + S + ring[(j + 1) | 0]!) | 0;
      y0 += table[b]! + table[c]!;
      y1 += table[(b + 3) | 0]! + table[(c + 3) | 0]!;
      y2 += table[(b + 6) | 0]! + table[(c + 6) | 0]!;
      base = (base + S2) | 0;
      j = (j + 2) | 0;
      b = (base + ring[j]!) | 0;
      c = (base + S + ring[(j + 1) | 0]!) | 0;
      y0 += table[b]! + table[c]!;
      y1 += table[(b + 3) | 0]! + table[(c + 3) | 0]!;
      y2 += table[(b + 6) | 0]! + table[(c + 6) | 0]!;
      base = (base + S2) | 0;
      j = (j + 2) | 0;
      b = (base + ring[j]!) | 0;
      c = (base + S + newest) | 0;
      y0 += table[b]! + table[c]!;
      y1 += table[(b + 3) | 0]! + table[(c + 3) | 0]!;
      y2 += table[(b + 6) | 0]! + table[(c + 6) | 0]!;
      if (samples > 3) {
        j = pos + 1;
        base = acc;
        b = (base + ring[j]!) | 0;
        c = (base + S + ring[(j + 1) | 0]!) | 0;
        y3 += table[(b + 9) | 0]! + table[(c + 9) | 0]!;
        base = (base + S2) | 0;
        j = (j + 2) | 0;
        b = (base + ring[j]!) | 0;
        c = (base + S + ring[(j + 1) | 0]!) | 0;
        y3 += table[(b + 9) | 0]! + table[(c + 9) | 0]!;
        base = (base + S2) | 0;
        j = (j + 2) | 0;
        b = (base + ring[j]!) | 0;
        c = (base + S + ring[(j + 1) | 0]!) | 0;
        y3 += table[(b + 9) | 0]! + table[(c + 9) | 0]!;
        base = (base + S2) | 0;
        j = (j + 2) | 0;
        b = (base + ring[j]!) | 0;
        c = (base + S + ring[(j + 1) | 0]!) | 0;
        y3 += table[(b + 9) | 0]! + table[(c + 9) | 0]!;
        base = (base + S2) | 0;
        j = (j + 2) | 0;
        b = (base + ring[j]!) | 0;
        c = (base + S + ring[(j + 1) | 0]!) | 0;
        y3 += table[(b + 9) | 0]! + table[(c + 9) | 0]!;
        base = (base + S2) | 0;
        j = (j + 2) | 0;
        b = (base + ring[j]!) | 0;
        c = (base + S + newest) | 0;
        y3 += table[(b + 9) | 0]! + table[(c + 9) | 0]!;
      }
      // Rounded to 16 bits, saturating, and stored at once (written out: a helper taking the
      // double would box it whenever V8 declines to inline it).
      y0 *= gain;
      out[i] = y0 >= 32767 ? 32767 : y0 <= -32768 ? -32768 : ((y0 + 32768.5) | 0) - 32768;
      if (samples > 1) {
        y1 *= gain;
        out[i + 1] = y1 >= 32767 ? 32767 : y1 <= -32768 ? -32768 : ((y1 + 32768.5) | 0) - 32768;
        if (samples > 2) {
          y2 *= gain;
          out[i + 2] = y2 >= 32767 ? 32767 : y2 <= -32768 ? -32768 : ((y2 + 32768.5) | 0) - 32768;
          if (samples > 3) {
            y3 *= gain;
            out[i + 3] = y3 >= 32767 ? 32767 : y3 <= -32768 ? -32768 : ((y3 + 32768.5) | 0) - 32768;
          }
        }
      }
      i += samples;
      acc += (samples - 1) * STEP;
    }
    this.acc = acc;
    this.pos = pos;
    this.turn = turn;
    return i;
  }
}

function build(re: ArrayLike<number>, im: ArrayLike<number>): Table {
  const np = re.length;
  let silence = -1;
  for (let q = 0; q < np; q++) if (re[q] === 0 && im[q] === 0) silence = q;
  if (silence < 0) throw new RangeError('V17Modulator: the alphabet needs the point (0, 0)');
  // rot: (x, y)·(−j) = (y, −x).
  const rot = intArray(4 * np);
  for (let q = 0; q < np; q++) {
    let x = re[q]!;
    let y = im[q]!;
    for (let r = 0; r < 4; r++) {
      let found = -1;
      for (let p = 0; p < np; p++) if (re[p] === x && im[p] === y) found = p;
      if (found < 0) throw new RangeError(`V17Modulator: the alphabet is not symmetric under quarter turns (point ${q})`);
      rot[r * np + q] = found * PHASES;
      [x, y] = [y, -x];
    }
  }
  // Pulse weight of the symbol j places before the newest when the output lies p/PHASES of a
  // symbol after it (as PassbandModulator's), times the carrier at that distance: the symbol's
  // nominal instant is (10/3)(m + 1) − 1 samples for the m-th since restart (the phase accumulator
  // wraps at sample k when 3(k + 1) reaches 10(m + 1)), where the carrier has turned by
  // (−j)^(m+1) · e^(−jω), so what is left is e^(jω(τ − 1)), τ the distance in samples.
  const half = SPAN / 2;
  const g = (p: number, j: number): number => rrcWindowed(p / PHASES + j - half, RRC_BETA, half + 0.5);
  const w = (2 * Math.PI * CARRIER_HZ) / SAMPLE_RATE;
  let energy = 0;
  for (let p = 0; p < PHASES; p++) for (let j = 0; j < SPAN; j++) energy += g(p, j) ** 2;
  const table = doubleArray(SPAN * np * PHASES + PHASES);
  for (let slot = 0; slot < SPAN; slot++) {
    const j = SPAN - 1 - slot;
    for (let p = 0; p < PHASES; p++) {
      // ω(τ − 1) = (3π/20)(p + 10j − 3) is ω·k for k = 27(p + 10j − 3) mod 40 (9·27 ≡ 3 mod 40):
      // the cos/sin of a sample of the carrier's 40-sample cycle, as the common table's.
      const k = (((27 * (p + PHASES * j - 3)) % 40) + 40) % 40;
      const c = Math.cos(w * k);
      const s = Math.sin(w * k);
      const h = g(p, j);
      for (let q = 0; q < np; q++) table[(slot * np + q) * PHASES + p] = Math.fround(h * (re[q]! * c - im[q]! * s));
    }
  }
  return { table, rot, silence, powerGain: energy / PHASES };
}
