// Seeded pseudo-random numbers for test signals: xoshiro128** (Blackman & Vigna, 2018) for
// uniform 32-bit words, and Gaussian deviates two ways: the Marsaglia polar form of Box–Muller
// (nextGaussian, the default everywhere; its sequence per seed is what existing tests were tuned
// on, so it does not change), and the ziggurat method (Marsaglia & Tsang, 2000, 128 layers, the
// layer index taken from bits the magnitude does not use — Doornik's correction), about twice as
// fast, for long simulations. Never Math.random: every impaired line replays from its seed.

// Ziggurat tables: layer i spans x in [x[i+1], x[i]]; k[i] is the share of a layer's rectangle that
// lies wholly under the curve (scaled to 2^24), w[i] turns a 25-bit signed integer into x.
const ZIG_LAYERS = 128;
const ZIG_R = 3.442619855899; // start of the tail
const ZIG_V = 9.91256303526217e-3; // area of each layer
const ZIG_M = 2 ** 24;
const ZIG_K = new Uint32Array(ZIG_LAYERS);
const ZIG_W = new Float64Array(ZIG_LAYERS);
const ZIG_F = new Float64Array(ZIG_LAYERS);
{
  let dn = ZIG_R;
  let tn = dn;
  const q = ZIG_V / Math.exp(-0.5 * dn * dn);
  ZIG_K[0] = Math.floor((dn / q) * ZIG_M);
  ZIG_K[1] = 0;
  ZIG_W[0] = q / ZIG_M;
  ZIG_W[ZIG_LAYERS - 1] = dn / ZIG_M;
  ZIG_F[0] = 1;
  ZIG_F[ZIG_LAYERS - 1] = Math.exp(-0.5 * dn * dn);
  for (let i = ZIG_LAYERS - 2; i >= 1; i--) {
    dn = Math.sqrt(-2 * Math.log(ZIG_V / dn + Math.exp(-0.5 * dn * dn)));
    ZIG_K[i + 1] = Math.floor((dn / tn) * ZIG_M);
    tn = dn;
    ZIG_F[i] = Math.exp(-0.5 * dn * dn);
    ZIG_W[i] = dn / ZIG_M;
  }
}

/** Pairs addGaussian makes per pass, and its scratch for them (u, v and u² + v²). */
const PAIRS = 256;
const PAIR_U = new Float64Array(PAIRS);
const PAIR_V = new Float64Array(PAIRS);
const PAIR_Q = new Float64Array(PAIRS);

/** xoshiro128** with a SplitMix32-expanded seed; period 2^128 − 1. */
export class Xoshiro128 {
  /** The 128-bit state as four int32 words (a typed array keeps them unboxed). */
  private readonly s = new Int32Array(4);
  private spare = 0;
  private hasSpare = false;

  constructor(readonly seed: number) {
    this.reseed(seed);
  }

  reseed(seed: number): void {
    let z = seed >>> 0;
    const next = (): number => {
      z = (z + 0x9e3779b9) >>> 0;
      let t = z ^ (z >>> 16);
      t = Math.imul(t, 0x21f0aaad);
      t ^= t >>> 15;
      t = Math.imul(t, 0x735a2d97);
      return (t ^ (t >>> 15)) >>> 0;
    };
    const s = this.s;
    for (let i = 0; i < 4; i++) s[i] = next();
    if ((s[0]! | s[1]! | s[2]! | s[3]!) === 0) s[0] = 1;
    this.hasSpare = false;
  }

  /** Uniform 32-bit unsigned integer. */
  nextU32(): number {
    const s = this.s;
    const s0 = s[0]!;
    const s1 = s[1]!;
    const s2 = s[2]! ^ s0;
    const s3 = s[3]! ^ s1;
    const r = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    s[0] = s0 ^ s3;
    s[1] = s1 ^ s2;
    s[2] = s2 ^ (s1 << 9);
    s[3] = rotl(s3, 11);
    return r;
  }

  /** Uniform in [0, 1). */
  nextFloat(): number {
    return this.nextU32() / 4294967296;
  }

  /** Standard normal deviate (mean 0, variance 1), polar Box–Muller: deviates come in pairs. */
  nextGaussian(): number {
    if (this.hasSpare) {
      this.hasSpare = false;
      return this.spare;
    }
    let u: number;
    let v: number;
    let s: number;
    do {
      u = 2 * this.nextFloat() - 1;
      v = 2 * this.nextFloat() - 1;
      s = u * u + v * v;
    } while (s >= 1 || s === 0);
    const m = Math.sqrt((-2 * Math.log(s)) / s);
    this.spare = v * m;
    this.hasSpare = true;
    return u * m;
  }

  /**
   * Adds `scale` × nextGaussian() to buf[0…n), in order — the same deviates as n calls, with the
   * generator's state kept in locals for the whole block (the line model's hot loop).
   *
   * In two passes over up to PAIRS pairs at a time: first the accepted (u, v) pairs and their
   * u² + v², then each pair's factor and the two sums. The first pass stores every try and counts
   * only the accepted ones, so it has no branch on the accept test (rejected one try in five at
   * random, and as often mispredicted), and no call (Math.log is one, out of the JIT); the pairs of
   * the second do not depend on each other. The same operations on the same values: the same
   * sums, bit for bit. (addGaussian of 1024 samples: 13.3 → 10.4 ns a sample in turns.)
   */
  addGaussian(buf: Float64Array, n: number, scale: number): void {
    let i = 0;
    if (this.hasSpare && n > 0) {
      this.hasSpare = false;
      buf[i++]! += scale * this.spare;
    }
    const st = this.s;
    let s0 = st[0]!;
    let s1 = st[1]!;
    let s2 = st[2]!;
    let s3 = st[3]!;
    const pu = PAIR_U;
    const pv = PAIR_V;
    const pq = PAIR_Q;
    while (i < n) {
      const pairs = Math.min(PAIRS, (n - i + 1) >> 1);
      // Every try is stored and the count moves on only when u² + v² is inside the unit circle
      // (1 − ⌊q⌋ for q in [0, 2], q = 2 included): a branch on that is taken one try in five at
      // random, and mispredicted as often.
      for (let p = 0; p < pairs; ) {
        // Two xoshiro128** steps, as nextFloat() twice.
        let r = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
        let t = s1 << 9;
        s2 ^= s0;
        s3 ^= s1;
        s1 ^= s2;
        s0 ^= s3;
        s2 ^= t;
        s3 = rotl(s3, 11);
        const u = (2 * r) / 4294967296 - 1;
        r = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
        t = s1 << 9;
        s2 ^= s0;
        s3 ^= s1;
        s1 ^= s2;
        s0 ^= s3;
        s2 ^= t;
        s3 = rotl(s3, 11);
        const v = (2 * r) / 4294967296 - 1;
        const q = u * u + v * v;
        pu[p] = u;
        pv[p] = v;
        pq[p] = q;
        if (q !== 0) p += ((q | 0) - 1) >>> 31; // (q = 0: u = v = 0, once in 2^64 tries)
      }
      for (let p = 0; p < pairs; p++) {
        const q = pq[p]!;
        const m = Math.sqrt((-2 * Math.log(q)) / q);
        buf[i++]! += scale * (pu[p]! * m);
        if (i < n) buf[i++]! += scale * (pv[p]! * m);
        else {
          this.spare = pv[p]! * m;
          this.hasSpare = true;
        }
      }
    }
    st[0] = s0;
    st[1] = s1;
    st[2] = s2;
    st[3] = s3;
  }

  /** Standard normal deviate by the ziggurat (a different sequence from nextGaussian's). */
  nextGaussianZiggurat(): number {
    for (;;) {
      const u = this.nextU32() | 0;
      const i = u & (ZIG_LAYERS - 1);
      const h = u >> 7; // signed 25-bit magnitude from the other bits
      const x = h * ZIG_W[i]!;
      if ((h < 0 ? -h : h) < ZIG_K[i]!) return x; // inside the layer's core rectangle: ~98.8 %
      const y = this.zigguratEdge(i, h, x);
      if (y === y) return y;
    }
  }

  /**
   * Adds `scale` × nextGaussianZiggurat() to buf[0…n), in order — the same deviates as n calls,
   * with the generator's state in locals (in the array only around a rare try outside the core):
   * the call a deviate and the state's trip through memory were two thirds of the time.
   */
  addGaussianZiggurat(buf: Float64Array, n: number, scale: number): void {
    const st = this.s;
    let s0 = st[0]!;
    let s1 = st[1]!;
    let s2 = st[2]!;
    let s3 = st[3]!;
    for (let k = 0; k < n; k++) {
      let y: number;
      for (;;) {
        // One xoshiro128** step, as nextU32() | 0.
        const u = Math.imul(rotl(Math.imul(s1, 5), 7), 9);
        const t = s1 << 9;
        s2 ^= s0;
        s3 ^= s1;
        s1 ^= s2;
        s0 ^= s3;
        s2 ^= t;
        s3 = rotl(s3, 11);
        const i = u & (ZIG_LAYERS - 1);
        const h = u >> 7;
        const x = h * ZIG_W[i]!;
        const sign = h >> 31;
        if (((h ^ sign) - sign) < ZIG_K[i]!) {
          y = x;
          break;
        }
        st[0] = s0;
        st[1] = s1;
        st[2] = s2;
        st[3] = s3;
        y = this.zigguratEdge(i, h, x);
        s0 = st[0]!;
        s1 = st[1]!;
        s2 = st[2]!;
        s3 = st[3]!;
        if (y === y) break;
      }
      buf[k]! += scale * y;
    }
    st[0] = s0;
    st[1] = s1;
    st[2] = s2;
    st[3] = s3;
  }

  /** A try outside layer i's core rectangle: the deviate from the tail or the wedge, or NaN (rejected: try again). */
  private zigguratEdge(i: number, h: number, x: number): number {
    if (i === 0) {
      // The tail beyond R (Marsaglia 1964).
      let t: number;
      let y: number;
      do {
        t = -Math.log(1 - this.nextFloat()) / ZIG_R;
        y = -Math.log(1 - this.nextFloat());
      } while (y + y < t * t);
      return h > 0 ? ZIG_R + t : -ZIG_R - t;
    }
    // The wedge between the core and the curve.
    if (ZIG_F[i]! + this.nextFloat() * (ZIG_F[i - 1]! - ZIG_F[i]!) < Math.exp(-0.5 * x * x)) return x;
    return NaN;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
