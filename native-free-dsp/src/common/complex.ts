// Complex arithmetic on plain numbers and typed arrays, for hot loops: no object per sample.
// Complex vectors are kept as two arrays (re, im) of equal length; scalar results come back
// through a caller-owned Float64Array(2) (`out[0]` re, `out[1]` im).
//
//   cdot(out, ar, ai, aOff, br, bi, bOff, n)   out = Σ a[aOff+k]·b[bOff+k]
//   cdotReal(out, x, xOff, cr, ci, n)          out = Σ x[xOff+k]·c[k]   (real x, complex c)
//   crotate(re, im, n, c, s)                   v[k] ·= (c + js), in place
//   phaseError(zr, zi, dr, di)                 Im(z·conj(d))/|d|² ≈ angle of z relative to d
//   angleOf / cabs2                            scalar helpers
//   doubleArray(n), intArray(n), toDoubles(src)  plain packed arrays of doubles / small integers: for
//                                              vectors read in the hottest loops (V8 checks a typed
//                                              array's buffer on every read, a plain array only its
//                                              length)
//   Complex, complexHolder()                   a mutable { re, im } for passing values between
//                                              blocks on hot paths (V8 boxes a double passed as an
//                                              argument to a call it does not inline; a number
//                                              kept in an object field is updated in place)
//   `flag === true`                            how a hot path tests a boolean field: TurboFan does not
//                                              know that a field holds only booleans, so a bare
//                                              `if (flag)` compiles to the generic truth test (false,
//                                              '', undetectable, HeapNumber, BigInt: five compares);
//                                              `=== true` is one compare with the true value

/** A mutable complex value; blocks read and write these instead of taking doubles as arguments. */
export interface Complex {
  re: number;
  im: number;
}

/** A fresh holder (its fields start as doubles, so they stay unboxed-in-place from the start). */
export function complexHolder(): Complex {
  const h = { re: 0.5, im: 0.5 };
  h.re = 0;
  h.im = 0;
  return h;
}

/** Σ_k a[aOff+k]·b[bOff+k] over n complex elements, written to out[0] (re), out[1] (im). */
export function cdot(
  out: Float64Array,
  ar: Float64Array, ai: Float64Array, aOff: number,
  br: Float64Array, bi: Float64Array, bOff: number,
  n: number,
): void {
  let sr = 0;
  let si = 0;
  for (let k = 0; k < n; k++) {
    const xr = ar[aOff + k]!;
    const xi = ai[aOff + k]!;
    const yr = br[bOff + k]!;
    const yi = bi[bOff + k]!;
    sr += xr * yr - xi * yi;
    si += xr * yi + xi * yr;
  }
  out[0] = sr;
  out[1] = si;
}

/** Σ_k x[xOff+k]·(cr[k] + j·ci[k]) for a real vector x and complex weights c. */
export function cdotReal(out: Float64Array, x: Float64Array, xOff: number, cr: Float64Array, ci: Float64Array, n: number): void {
  let sr = 0;
  let si = 0;
  for (let k = 0; k < n; k++) {
    const v = x[xOff + k]!;
    sr += v * cr[k]!;
    si += v * ci[k]!;
  }
  out[0] = sr;
  out[1] = si;
}

/** Multiplies the first n elements of (re, im) by (c + j·s) in place. */
export function crotate(re: Float64Array, im: Float64Array, n: number, c: number, s: number): void {
  for (let k = 0; k < n; k++) {
    const r = re[k]!;
    const i = im[k]!;
    re[k] = r * c - i * s;
    im[k] = r * s + i * c;
  }
}

/** |z|². */
export function cabs2(re: number, im: number): number {
  return re * re + im * im;
}

/** Angle of z in radians, (−π, π]. */
export function angleOf(re: number, im: number): number {
  return Math.atan2(im, re);
}

/**
 * Phase of z relative to the reference point d, for small angles: Im(z·conj(d)) / |d|²
 * (radians; positive when z lies anticlockwise of d). 0 when d is the origin.
 */
export function phaseError(zr: number, zi: number, dr: number, di: number): number {
  const p = dr * dr + di * di;
  return p > 0 ? (zi * dr - zr * di) / p : 0;
}

/** A plain array of `n` zeros, packed double elements from the start (it must only ever hold numbers). */
export function doubleArray(n: number): number[] {
  // Pushed one by one, a double array stays packed (new Array(n) would be holey: a hole check per read).
  const a: number[] = [];
  for (let i = 0; i < n; i++) a.push(0.5);
  a.fill(0);
  return a;
}

/** A plain array of `n` zeros with packed small-integer elements (it must only ever hold small integers). */
export function intArray(n: number): number[] {
  const a: number[] = [];
  for (let i = 0; i < n; i++) a.push(0);
  return a;
}

/** A plain double array (doubleArray) holding a copy of `src`. */
export function toDoubles(src: ArrayLike<number>): number[] {
  const a = doubleArray(src.length);
  for (let i = 0; i < src.length; i++) a[i] = src[i]!;
  return a;
}
