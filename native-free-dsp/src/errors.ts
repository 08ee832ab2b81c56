// The one error kind of native-free-dsp: a block's constructor (or setter) was given an argument
// outside its documented range. Everything that happens on the line — no carrier, bad CRC, a tone
// that never came — is reported through the blocks' status callbacks, never thrown.

/** An argument outside its valid range; `block` and `arg` name the culprit. */
export class DspArgumentError extends RangeError {
  readonly code = 'DSP_BAD_ARGUMENT';
  constructor(
    readonly block: string,
    readonly arg: string,
    message: string,
  ) {
    super(`${block}: ${arg} ${message}`);
    this.name = 'DspArgumentError';
  }
}

/** Checks a finite number in [min, max]; returns it. */
export function checkNumber(block: string, arg: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new DspArgumentError(block, arg, `must be a number in [${min}, ${max}], got ${describe(value)}`);
  }
  return value;
}

/** Checks an integer in [min, max]; returns it. */
export function checkInt(block: string, arg: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new DspArgumentError(block, arg, `must be an integer in [${min}, ${max}], got ${describe(value)}`);
  }
  return value;
}

/** Checks that `value` is one of `allowed`; returns it. */
export function checkOneOf<T>(block: string, arg: string, value: unknown, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) {
    throw new DspArgumentError(block, arg, `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, got ${describe(value)}`);
  }
  return value as T;
}

/** Checks a function (a callback); returns it. */
export function checkFunction<F>(block: string, arg: string, value: unknown): F {
  if (typeof value !== 'function') throw new DspArgumentError(block, arg, `must be a function, got ${describe(value)}`);
  return value as F;
}

function describe(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  return typeof v;
}
