// generated — do not edit. Made by scripts/gen-v17-tables.ts (node --import tsx scripts/gen-v17-tables.ts).
// ITU-T V.17 constellations (Figures 4-7), training points (Table 3) and the 8-state trellis (Figure 3).

/**
 * Constellation points as interleaved (x, y) pairs indexed by label: bit 0 = Y0, bit 1 = Y1, bit 2 = Y2,
 * bits 3.. = Q3, Q4, ... The subset of a point (what the trellis code protects) is label & 7.
 */
/** 14400 bit/s: 128 points; mean |p|² = 41, min distance² 2, within a subset 16. */
export const V17_CONSTELLATION_14400: Int8Array = Int8Array.from([
  -8, -3, 9, 2, 2, -9, -3, 8, 8, 3, -9, -2, -2, 9, 3, -8,
  -8, 1, 9, -2, -2, -9, 1, 8, 8, -1, -9, 2, 2, 9, -1, -8,
  -4, -3, 5, 2, 2, -5, -3, 4, 4, 3, -5, -2, -2, 5, 3, -4,
  -4, 1, 5, -2, -2, -5, 1, 4, 4, -1, -5, 2, 2, 5, -1, -4,
  4, -3, -3, 2, 2, 3, -3, -4, -4, 3, 3, -2, -2, -3, 3, 4,
  4, 1, -3, -2, -2, 3, 1, -4, -4, -1, 3, 2, 2, -3, -1, 4,
  0, -3, 1, 2, 2, -1, -3, 0, 0, 3, -1, -2, -2, 1, 3, 0,
  0, 1, 1, -2, -2, -1, 1, 0, 0, -1, -1, 2, 2, 1, -1, 0,
  8, -3, -7, 2, 2, 7, -3, -8, -8, 3, 7, -2, -2, -7, 3, 8,
  8, 1, -7, -2, -2, 7, 1, -8, -8, -1, 7, 2, 2, -7, -1, 8,
  -4, -7, 5, 6, 6, -5, -7, 4, 4, 7, -5, -6, -6, 5, 7, -4,
  -4, 5, 5, -6, -6, -5, 5, 4, 4, -5, -5, 6, 6, 5, -5, -4,
  4, -7, -3, 6, 6, 3, -7, -4, -4, 7, 3, -6, -6, -3, 7, 4,
  4, 5, -3, -6, -6, 3, 5, -4, -4, -5, 3, 6, 6, -3, -5, 4,
  0, -7, 1, 6, 6, -1, -7, 0, 0, 7, -1, -6, -6, 1, 7, 0,
  0, 5, 1, -6, -6, -1, 5, 0, 0, -5, -1, 6, 6, 1, -5, 0,
]);

/** 12000 bit/s: 64 points; mean |p|² = 42, min distance² 4, within a subset 32. */
export const V17_CONSTELLATION_12000: Int8Array = Int8Array.from([
  7, 1, -5, -1, -1, 5, 1, -7, -7, -1, 5, 1, 1, -5, -1, 7,
  3, -3, -1, 3, 3, 1, -3, -3, -3, 3, 1, -3, -3, -1, 3, 3,
  7, -7, -5, 7, 7, 5, -7, -7, -7, 7, 5, -7, -7, -5, 7, 7,
  -1, -7, 3, 7, 7, -3, -7, 1, 1, 7, -3, -7, -7, 3, 7, -1,
  3, 5, -1, -5, -5, 1, 5, -3, -3, -5, 1, 5, 5, -1, -5, 3,
  -1, 1, 3, -1, -1, -3, 1, 1, 1, -1, -3, 1, 1, 3, -1, -1,
  -5, 5, 7, -5, -5, -7, 5, 5, 5, -5, -7, 5, 5, 7, -5, -5,
  -5, -3, 7, 3, 3, -7, -3, 5, 5, 3, -7, -3, -3, 7, 3, -5,
]);

/** 9600 bit/s: 32 points; mean |p|² = 40, min distance² 8, within a subset 64. */
export const V17_CONSTELLATION_9600: Int8Array = Int8Array.from([
  -8, 2, -6, -4, -4, 6, 2, 8, 8, -2, 6, 4, 4, -6, -2, -8,
  0, 2, -6, 4, 4, 6, 2, 0, 0, -2, 6, -4, -4, -6, -2, 0,
  0, -6, 2, -4, -4, -2, -6, 0, 0, 6, -2, 4, 4, 2, 6, 0,
  8, 2, 2, 4, 4, -2, 2, -8, -8, -2, -2, -4, -4, 2, -2, 8,
]);

/** 7200 bit/s: 16 points; mean |p|² = 40, min distance² 16, within a subset 128. */
export const V17_CONSTELLATION_7200: Int8Array = Int8Array.from([
  6, -6, -2, 6, 6, 2, -6, -6, -6, 6, 2, -6, -6, -2, 6, 6,
  -2, 2, 6, -2, -2, -6, 2, 2, 2, -2, -6, 2, 2, 6, -2, -2,
]);

/** Training points A, B, C, D as interleaved (x, y); B = A turned by +90°, C = −A, D = −B. */
export const V17_TRAINING_ABCD: Int8Array = Int8Array.from([-6, -2, 2, -6, 6, 2, -2, 6]);

/** Trellis: next state = V17_TRELLIS_NEXT[state * 4 + (Y2 << 1 | Y1)]; the branch sends Y0 = state & 1. */
export const V17_TRELLIS_NEXT: Uint8Array = Uint8Array.from([
  0, 2, 3, 1, 4, 7, 5, 6, 1, 3, 2, 0, 7, 4, 6, 5,
  2, 0, 1, 3, 6, 5, 7, 4, 3, 1, 0, 2, 5, 6, 4, 7,
]);
