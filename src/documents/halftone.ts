// Clustered-dot ordered halftone for photographs on fax pages: a 45° screen of round dots that
// grow from their centres (and, past 50 %, white holes that shrink), so every scan line is a few
// long runs per dot period instead of the one-pixel alternation of error diffusion — short T.4
// code words (MH/MR/MMR all code run lengths), and no line longer than a decoder's buffer.

/** A threshold matrix tiled over the page: black where gray < thresholds[(y % size) * size + x % size]. */
export interface Screen {
  size: number;
  thresholds: Uint8Array;
}

/**
 * A 45° clustered-dot screen of `period` × `period` pixels holding two dots (dot pitch
 * period/√2: 6 → 48 lines per inch at 204 dpi). Thresholds come from ranking the pixels by the
 * spot function cos 2πu + cos 2πv (u, v along the 45° axes), so a tone of k/period² black
 * blackens exactly k pixels per tile, dot centres first; ties go to the pixel nearer a dot centre.
 */
export function clusteredScreen(period: number): Screen {
  if (!Number.isInteger(period) || period < 2 || period > 16 || period % 2 !== 0) {
    throw new RangeError(`clusteredScreen: period must be an even integer in 2..16, got ${period}`);
  }
  const n = period * period;
  const spot = new Float64Array(n);
  for (let y = 0; y < period; y++) {
    for (let x = 0; x < period; x++) {
      // Pixel centres; the dot centres sit at (0, 0) and (period/2, period/2) of the tile.
      const u = (x + y + 1) / period;
      const v = (x - y) / period;
      spot[y * period + x] = Math.cos(2 * Math.PI * u) + Math.cos(2 * Math.PI * v) + 1e-6 * (y * period + x);
    }
  }
  // Highest spot value first: those pixels turn black at the lightest tones.
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => spot[b]! - spot[a]!);
  const thresholds = new Uint8Array(n);
  order.forEach((pixel, rank) => {
    // Rank r is black for gray < (r + 0.5)·256/n: rounded so that 0 is always black and 255 white.
    thresholds[pixel] = Math.max(1, Math.min(255, Math.round(((rank + 0.5) * 256) / n)));
  });
  return { size: period, thresholds };
}

/**
 * The default photo screen: period 6 (48 lpi at 204 dpi, 37 tones per tile). Chosen by
 * bench/halftone.ts: period 4 (72 lpi) costs 1.7× the bytes, period 8 (36 lpi) saves a quarter
 * but shows its dots; see docs/halftone.md.
 */
export const PHOTO_SCREEN: Screen = clusteredScreen(6);
const HD_SCREEN: Screen = clusteredScreen(12);

/**
 * The screen for a horizontal density: the same 48 lpi at 408 dpi (HD) as at 204. Low (98 lines
 * per inch) keeps the 204-dpi screen, its dots twice as tall as wide, which costs no bytes.
 */
export function screenFor(xDpi: number): Screen {
  return xDpi > 300 ? HD_SCREEN : PHOTO_SCREEN;
}
