// Clustered-dot ordered halftone for photographs on fax pages: a 45° screen of round dots that
// grow from their centres (and, past 50 %, white holes that shrink), so every scan line is a few
// long runs per dot period instead of the one-pixel alternation of error diffusion — short T.4
// code words (MH/MR/MMR all code run lengths), and no line longer than a decoder's buffer.

/** A threshold matrix tiled over the page: black where gray < thresholds[(y % height) * width + x % width]. */
export interface Screen {
  /** Tile size in pixels across and in lines down. */
  width: number;
  height: number;
  thresholds: Uint8Array;
}

/**
 * A 45° clustered-dot screen of `period` pixels across and `rows` lines down holding two dots
 * (dot pitch period/√2: 6 → 48 lines per inch at 204 dpi). `rows` is `period` scaled by the
 * line density over the pixel density, so the dots are round on paper (3 at 98 lines per inch).
 * Thresholds come from ranking the pixels by the spot function cos 2πu + cos 2πv (u, v along
 * the 45° axes), so a tone of k/(period·rows) black blackens exactly k pixels per tile, dot
 * centres first; ties go to the pixel nearer a dot centre.
 */
export function clusteredScreen(period: number, rows = period): Screen {
  if (!Number.isInteger(period) || period < 2 || period > 16 || period % 2 !== 0) {
    throw new RangeError(`clusteredScreen: period must be an even integer in 2..16, got ${period}`);
  }
  if (!Number.isInteger(rows) || rows < 2 || rows > 16) throw new RangeError(`clusteredScreen: rows must be an integer in 2..16, got ${rows}`);
  const n = period * rows;
  const spot = new Float64Array(n);
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < period; x++) {
      // Pixel centres, in tile units along each axis; the dot centres sit at (0, 0) and
      // (period/2, rows/2) of the tile. With rows = period: u = (x + y + 1)/period, v = (x − y)/period.
      const ox = (x + 0.5) / period;
      const oy = (y + 0.5) / rows;
      spot[y * period + x] = Math.cos(2 * Math.PI * (ox + oy)) + Math.cos(2 * Math.PI * (ox - oy)) + 1e-6 * (y * period + x);
    }
  }
  // Highest spot value first: those pixels turn black at the lightest tones.
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => spot[b]! - spot[a]!);
  const thresholds = new Uint8Array(n);
  order.forEach((pixel, rank) => {
    // Rank r is black for gray < (r + 0.5)·256/n: rounded so that 0 is always black and 255 white.
    thresholds[pixel] = Math.max(1, Math.min(255, Math.round(((rank + 0.5) * 256) / n)));
  });
  return { width: period, height: rows, thresholds };
}

/** The three screens, made on first use: not at every start of `faxstack render`, whose text pages need none (about 1 ms). */
let screens: { photo: Screen; low: Screen; hd: Screen } | undefined;

/**
 * The default photo screen: period 6 (48 lpi at 204 dpi, 37 tones per tile). Chosen by
 * bench/halftone.ts: period 4 (72 lpi) costs 1.7× the bytes, period 8 (36 lpi) saves a quarter
 * but shows its dots; see docs/halftone.md.
 */
export function photoScreen(): Screen {
  return (screens ??= { photo: clusteredScreen(6), low: clusteredScreen(8, 4), hd: clusteredScreen(12) }).photo;
}

/**
 * The screen for a pixel density across and a line density down, its dots round on paper: 6 × 6
 * at 204 × 196 and 12 × 12 at 408 × 391 (48 lpi); 8 × 4 at 204 × 98 (Low: 36 lpi each way —
 * a 48-lpi 6 × 3 tile costs 1.7× the MMR bytes, bench/halftone.ts; docs/halftone.md).
 */
export function screenFor(xDpi: number, yDpi = xDpi): Screen {
  photoScreen();
  if (xDpi > 300) return screens!.hd;
  return yDpi < 0.75 * xDpi ? screens!.low : screens!.photo;
}
