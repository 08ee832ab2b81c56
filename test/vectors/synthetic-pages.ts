// Synthetic bilevel test charts for the codec and TIFF tests and the codec benchmark:
// deterministic (seeded), each stressing a different part of T.4/T.6 coding.

import { createBitmap, fillRow, setPixel, type Bitmap } from '../../src/codecs/bitmap.js';
import { seededRandom as rng } from '../../src/transport/t38/random.js';

/** mulberry32 (the transport's seeded PRNG), so every run sees the same pages. */
export { rng };

export const FAX_WIDTHS = [1728, 2048, 2432, 3456] as const;

export function allWhite(width: number, height: number): Bitmap {
  return createBitmap(width, height);
}

export function allBlack(width: number, height: number): Bitmap {
  const bm = createBitmap(width, height);
  for (let y = 0; y < height; y++) fillRow(bm, y, 0, width);
  return bm;
}

export function checkerboard(width: number, height: number, cell: number): Bitmap {
  const bm = createBitmap(width, height);
  for (let y = 0; y < height; y++) {
    const phase = Math.floor(y / cell) & 1;
    for (let x = phase * cell; x < width; x += 2 * cell) fillRow(bm, y, x, x + cell);
  }
  return bm;
}

/** Rows of alternating runs, lengths drawn from a mix of short, medium and page-long runs. */
export function randomRuns(width: number, height: number, seed: number): Bitmap {
  const rand = rng(seed);
  const bm = createBitmap(width, height);
  for (let y = 0; y < height; y++) {
    let x = 0;
    let black = rand() < 0.5;
    while (x < width) {
      const p = rand();
      const len = p < 0.6 ? 1 + Math.floor(rand() * 16) : p < 0.9 ? Math.floor(rand() * 300) : Math.floor(rand() * width);
      if (black) fillRow(bm, y, x, x + len);
      x += len;
      black = !black;
    }
  }
  return bm;
}

/** Independent random pixels (the worst case for every coder). */
export function noise(width: number, height: number, seed: number, density = 0.5): Bitmap {
  const rand = rng(seed);
  const bm = createBitmap(width, height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) if (rand() < density) setPixel(bm, x, y, 1);
  return bm;
}

/**
 * Runs at the code-table boundaries: 63/64/65, 127/128, 1727/1728/1729, 2559/2560/2561,
 * 2623/2624/2625 (where repeated 2560 make-ups begin) and runs as long as the width, in
 * both colours and both orders.
 */
export function boundaryRuns(width: number): Bitmap {
  const lengths = [0, 1, 2, 63, 64, 65, 127, 128, 129, 1727, 1728, 1729, 1791, 1792, 2559, 2560, 2561, 2623, 2624, 2625, 3455, width - 1, width];
  const rows: Array<[number, number]> = [];
  for (const a of lengths) for (const b of [1, 64, 2560, 2625]) rows.push([a, b]);
  const bm = createBitmap(width, rows.length * 2);
  rows.forEach(([a, b], i) => {
    // Row 2i: white a, black b, white rest; row 2i + 1: black a, white b, black rest.
    fillRow(bm, 2 * i, a, a + b);
    fillRow(bm, 2 * i + 1, 0, a);
    fillRow(bm, 2 * i + 1, a + b, width);
  });
  return bm;
}

/** One row per run length 0..width-ish for both colours: every terminating and make-up code. */
export function everyRunLength(width: number): Bitmap {
  const step = 1;
  const n = Math.min(width, 2700);
  const bm = createBitmap(width, Math.ceil(n / step) * 2);
  for (let i = 0, len = 0; len < n; i++, len += step) {
    fillRow(bm, 2 * i, 5, 5 + len); // white 5, black len, white rest
    fillRow(bm, 2 * i + 1, 0, 7); // black 7, white len, black rest
    fillRow(bm, 2 * i + 1, 7 + len, width);
  }
  return bm;
}

/** Vertical, diagonal and stair-step edges: every vertical mode, pass mode and horizontal fallback. */
export function edges(width: number, height: number): Bitmap {
  const bm = createBitmap(width, height);
  const slopes = [0, 1, -1, 2, -2, 3, -3, 4, -5, 17];
  for (let y = 0; y < height; y++) {
    slopes.forEach((s, i) => {
      const base = 40 + i * Math.floor((width - 80) / slopes.length);
      const x = base + ((s * y) % 100 + 100) % 100;
      fillRow(bm, y, x, x + 6 + (y % 3));
    });
    if (y % 7 < 3) fillRow(bm, y, width - 20 - (y % 5), width - 10); // pass-mode fodder
  }
  return bm;
}

/** Single black pixels at the corners and edges (first/last column, first/last row). */
export function edgePixels(width: number, height: number): Bitmap {
  const bm = createBitmap(width, height);
  for (const [x, y] of [[0, 0], [width - 1, 0], [0, height - 1], [width - 1, height - 1], [1, 1], [width - 2, 2], [width >> 1, height >> 1]] as const) {
    if (x >= 0 && x < width && y < height) setPixel(bm, x, y, 1);
  }
  for (let y = 3; y < height; y += 5) {
    setPixel(bm, 0, y, 1);
    setPixel(bm, width - 1, y, 1);
  }
  return bm;
}

/** A page that looks like typed text: header, paragraphs of glyph-like strokes, a table, a signature. */
export function textPage(width: number, height: number, seed = 1): Bitmap {
  const rand = rng(seed);
  const bm = createBitmap(width, height);
  const margin = Math.round(width * 0.08);
  const scale = height / 2200;
  const lineH = Math.max(6, Math.round(34 * scale));
  const glyphH = Math.max(4, Math.round(22 * scale));
  const glyphW = Math.max(4, Math.round(width / 110));
  let y = Math.round(120 * scale);
  // Heading: a bold bar of big glyphs.
  for (let x = margin; x < width * 0.6; x += glyphW * 2) box(bm, x, y, glyphW * 2 - 4, glyphH * 2, 3);
  y += lineH * 3;
  while (y + lineH < height * 0.85) {
    const words = 6 + Math.floor(rand() * 8);
    let x = margin;
    for (let w = 0; w < words && x < width - margin - glyphW * 4; w++) {
      const letters = 2 + Math.floor(rand() * 8);
      for (let l = 0; l < letters && x < width - margin - glyphW; l++) {
        glyph(bm, x, y, glyphW - 2, glyphH, rand);
        x += glyphW;
      }
      x += glyphW;
    }
    y += rand() < 0.15 ? lineH * 2 : lineH;
  }
  // A table: horizontal and vertical rules.
  const t0 = Math.round(height * 0.86);
  for (let r = 0; r < 4 && t0 + r * lineH < height; r++) fillRow(bm, t0 + r * lineH, margin, width - margin);
  for (let c = 0; c <= 4; c++) {
    const x = margin + Math.round(((width - 2 * margin - 2) * c) / 4);
    for (let yy = t0; yy <= t0 + 3 * lineH && yy < height; yy++) fillRow(bm, yy, x, x + 2);
  }
  return bm;
}

function box(bm: Bitmap, x: number, y: number, w: number, h: number, stroke: number): void {
  for (let yy = y; yy < y + h && yy < bm.height; yy++) {
    if (yy - y < stroke || y + h - yy <= stroke) fillRow(bm, yy, x, x + w);
    else {
      fillRow(bm, yy, x, x + stroke);
      fillRow(bm, yy, x + w - stroke, x + w);
    }
  }
}

function glyph(bm: Bitmap, x: number, y: number, w: number, h: number, rand: () => number): void {
  const stroke = Math.max(1, Math.round(w / 5));
  const kind = Math.floor(rand() * 5);
  for (let yy = y; yy < y + h && yy < bm.height; yy++) {
    const t = (yy - y) / h;
    switch (kind) {
      case 0: // o
        if (t > 0.35) {
          fillRow(bm, yy, x, x + stroke);
          fillRow(bm, yy, x + w - stroke, x + w);
        }
        if (Math.abs(t - 0.37) < 0.06 || t > 0.92) fillRow(bm, yy, x + stroke, x + w - stroke);
        break;
      case 1: // l
        fillRow(bm, yy, x + (w >> 1), x + (w >> 1) + stroke);
        break;
      case 2: // slanted stroke
        fillRow(bm, yy, x + Math.round(t * (w - stroke)), x + Math.round(t * (w - stroke)) + stroke + 1);
        break;
      case 3: // n
        if (t > 0.35) {
          fillRow(bm, yy, x, x + stroke);
          fillRow(bm, yy, x + w - stroke, x + w);
        }
        if (Math.abs(t - 0.4) < 0.06) fillRow(bm, yy, x, x + w);
        break;
      default: // e-ish
        if (t > 0.35) fillRow(bm, yy, x, x + stroke);
        if (Math.abs(t - 0.4) < 0.05 || Math.abs(t - 0.65) < 0.05 || t > 0.93) fillRow(bm, yy, x, x + w);
    }
  }
}

/** Named charts at one width, for table-driven tests (small heights keep tests quick). */
export function chartSet(width: number, height = 64): Array<{ name: string; bitmap: Bitmap }> {
  return [
    { name: 'all white', bitmap: allWhite(width, height) },
    { name: 'all black', bitmap: allBlack(width, height) },
    { name: 'checkerboard 1px', bitmap: checkerboard(width, height, 1) },
    { name: 'checkerboard 8px', bitmap: checkerboard(width, height, 8) },
    { name: 'random runs', bitmap: randomRuns(width, height, width) },
    { name: 'noise', bitmap: noise(width, Math.min(height, 16), width + 1) },
    { name: 'boundary runs', bitmap: boundaryRuns(width) },
    { name: 'edges', bitmap: edges(width, height) },
    { name: 'edge pixels', bitmap: edgePixels(width, height) },
    { name: 'text', bitmap: textPage(width, height * 4, width) },
  ];
}
