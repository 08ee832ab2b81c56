// Code tables of ITU-T T.4 (modified Huffman, 4.1.2; modified READ, 4.2.1.3), also used by
// T.6: Table 2/T.4 terminating codes, Table 3/T.4 make-up codes (incl. the extended make-up
// codes 1792–2560 shared by both colours), Table 4/T.4 two-dimensional mode codes.
// Decode lookup tables are built from them once at module load.

/** [run length, code bits] — Table 2/T.4, white terminating codes (runs 0–63). */
const WHITE_TERMINATING = [
  '00110101', '000111', '0111', '1000', '1011', '1100', '1110', '1111',
  '10011', '10100', '00111', '01000', '001000', '000011', '110100', '110101',
  '101010', '101011', '0100111', '0001100', '0001000', '0010111', '0000011', '0000100',
  '0101000', '0101011', '0010011', '0100100', '0011000', '00000010', '00000011', '00011010',
  '00011011', '00010010', '00010011', '00010100', '00010101', '00010110', '00010111', '00101000',
  '00101001', '00101010', '00101011', '00101100', '00101101', '00000100', '00000101', '00001010',
  '00001011', '01010010', '01010011', '01010100', '01010101', '00100100', '00100101', '01011000',
  '01011001', '01011010', '01011011', '01001010', '01001011', '00110010', '00110011', '00110100',
] as const;

/** Table 2/T.4, black terminating codes (runs 0–63). */
const BLACK_TERMINATING = [
  '0000110111', '010', '11', '10', '011', '0011', '0010', '00011',
  '000101', '000100', '0000100', '0000101', '0000111', '00000100', '00000111', '000011000',
  '0000010111', '0000011000', '0000001000', '00001100111', '00001101000', '00001101100', '00000110111', '00000101000',
  '00000010111', '00000011000', '000011001010', '000011001011', '000011001100', '000011001101', '000001101000', '000001101001',
  '000001101010', '000001101011', '000011010010', '000011010011', '000011010100', '000011010101', '000011010110', '000011010111',
  '000001101100', '000001101101', '000011011010', '000011011011', '000001010100', '000001010101', '000001010110', '000001010111',
  '000001100100', '000001100101', '000001010010', '000001010011', '000000100100', '000000110111', '000000111000', '000000100111',
  '000000101000', '000001011000', '000001011001', '000000101011', '000000101100', '000001011010', '000001100110', '000001100111',
] as const;

/** Table 3/T.4, white make-up codes (runs 64, 128, … 1728). */
const WHITE_MAKEUP = [
  '11011', '10010', '010111', '0110111', '00110110', '00110111', '01100100', '01100101',
  '01101000', '01100111', '011001100', '011001101', '011010010', '011010011', '011010100', '011010101',
  '011010110', '011010111', '011011000', '011011001', '011011010', '011011011', '010011000', '010011001',
  '010011010', '011000', '010011011',
] as const;

/** Table 3/T.4, black make-up codes (runs 64, 128, … 1728). */
const BLACK_MAKEUP = [
  '0000001111', '000011001000', '000011001001', '000001011011', '000000110011', '000000110100', '000000110101', '0000001101100',
  '0000001101101', '0000001001010', '0000001001011', '0000001001100', '0000001001101', '0000001110010', '0000001110011', '0000001110100',
  '0000001110101', '0000001110110', '0000001110111', '0000001010010', '0000001010011', '0000001010100', '0000001010101', '0000001011010',
  '0000001011011', '0000001100100', '0000001100101',
] as const;

/** Table 3/T.4, extended make-up codes for both colours (runs 1792, 1856, … 2560). */
const EXTENDED_MAKEUP = [
  '00000001000', '00000001100', '00000001101', '000000010010', '000000010011', '000000010100', '000000010101',
  '000000010110', '000000010111', '000000011100', '000000011101', '000000011110', '000000011111',
] as const;

/** EOL, 4.1.2: eleven 0s and a 1. */
export const EOL_CODE = 0x001;
export const EOL_BITS = 12;

/** Longest make-up code value (2560); longer runs repeat it (4.1.1.3 note). */
export const MAX_MAKEUP = 2560;

/** Runs that one make-up code (or none) and a terminating code cover: 0 … 2560 + 63. */
export const ONE_CODE_RUNS = MAX_MAKEUP + 64;

/** Encoder tables, index = run (terminating, 0–63) or run/64 (make-up, 1–40): code and length. */
export interface RunCodes {
  termCode: Uint16Array;
  termLen: Uint8Array;
  makeupCode: Uint16Array;
  makeupLen: Uint8Array;
  /** Index = run < ONE_CODE_RUNS: its make-up code (if any) and terminating code as one code of up to 25 bits. */
  runCode: Uint32Array;
  runLen: Uint8Array;
}

// The tables below are built when the module loads, in V8's interpreter (it runs once): in loops
// over locals, without closures or a check per entry — built entry by entry with a closure they
// took 4–6 ms of every `faxstack render`'s start (docs/benchmarks.md, issue 13 session 17).
// t4-tables.test.ts checks every entry of them against the codes.
function encoderTables(term: readonly string[], makeup: readonly string[]): RunCodes {
  const termCode = new Uint16Array(64);
  const termLen = new Uint8Array(64);
  const makeupCode = new Uint16Array(41);
  const makeupLen = new Uint8Array(41);
  const runCode = new Uint32Array(ONE_CODE_RUNS);
  const runLen = new Uint8Array(ONE_CODE_RUNS);
  for (let run = 0; run < 64; run++) {
    termCode[run] = parseInt(term[run]!, 2);
    termLen[run] = term[run]!.length;
  }
  const makeups = makeup.concat(EXTENDED_MAKEUP);
  for (let i = 0; i < makeups.length; i++) {
    makeupCode[i + 1] = parseInt(makeups[i]!, 2);
    makeupLen[i + 1] = makeups[i]!.length;
  }
  // A run is its make-up (run >>> 6, none for 0) then its terminating code (run & 63).
  for (let m = 0, run = 0; run < ONE_CODE_RUNS; m++) {
    const code = makeupCode[m]!; // 0 (and length 0) for m = 0
    const len = makeupLen[m]!;
    for (let t = 0; t < 64; t++, run++) {
      runCode[run] = (code << termLen[t]!) | termCode[t]!;
      runLen[run] = len + termLen[t]!;
    }
  }
  return { termCode, termLen, makeupCode, makeupLen, runCode, runLen };
}

export const WHITE_CODES = encoderTables(WHITE_TERMINATING, WHITE_MAKEUP);
export const BLACK_CODES = encoderTables(BLACK_TERMINATING, BLACK_MAKEUP);

/**
 * runCode/runLen of both colours in one table for the 1-D coder's inner loop: index run
 * (white) or ONE_CODE_RUNS + run (black), entry (code << 5) | length.
 */
export const RUN_PACKED: Int32Array = packRuns(WHITE_CODES, BLACK_CODES);

function packRuns(white: RunCodes, black: RunCodes): Int32Array {
  const t = new Int32Array(2 * ONE_CODE_RUNS);
  for (const [at, codes, lens] of [[0, white.runCode, white.runLen] as const, [ONE_CODE_RUNS, black.runCode, black.runLen] as const]) {
    for (let run = 0; run < ONE_CODE_RUNS; run++) t[at + run] = (codes[run]! << 5) | lens[run]!;
  }
  return t;
}

// Decode tables: indexed by the next WHITE_LOOKUP_BITS / BLACK_LOOKUP_BITS bits (MSB first).
// Entry = (run << 4) | code length; 0 = no valid code; DECODE_EOL = the EOL prefix.
export const WHITE_LOOKUP_BITS = 12;
export const BLACK_LOOKUP_BITS = 13;
export const DECODE_EOL = -1;

function decoderTable(lookupBits: number, codes: RunCodes): Int32Array {
  const table = new Int32Array(1 << lookupBits);
  // Each code fills the entries its bits begin (codes are prefix-free: no two blocks meet).
  const { termCode, termLen, makeupCode, makeupLen } = codes;
  for (let run = 0; run < 64; run++) {
    const shift = lookupBits - termLen[run]!;
    table.fill((run << 4) | termLen[run]!, termCode[run]! << shift, (termCode[run]! + 1) << shift);
  }
  for (let i = 1; i <= 40; i++) {
    const shift = lookupBits - makeupLen[i]!;
    table.fill(((i * 64) << 4) | makeupLen[i]!, makeupCode[i]! << shift, (makeupCode[i]! + 1) << shift);
  }
  table.fill(DECODE_EOL, EOL_CODE << (lookupBits - EOL_BITS), (EOL_CODE + 1) << (lookupBits - EOL_BITS));
  return table;
}

export const WHITE_DECODE = decoderTable(WHITE_LOOKUP_BITS, WHITE_CODES);
export const BLACK_DECODE = decoderTable(BLACK_LOOKUP_BITS, BLACK_CODES);

// Table 4/T.4: two-dimensional mode codes.
export const MODE_PASS = 1;
export const MODE_HORIZONTAL = 2;
/** Vertical modes: MODE_V0 + (a1 − b1), i.e. VL3 … VR3 = 3 … 9. */
export const MODE_V0 = 6;
export const MODE_EXTENSION = 10;

export const PASS_CODE = { code: 0b0001, len: 4 } as const;
export const HORIZONTAL_CODE = { code: 0b001, len: 3 } as const;
/** Index d + 3 for a1 − b1 = d ∈ [−3, 3]: VL3, VL2, VL1, V0, VR1, VR2, VR3. */
export const VERTICAL_CODES: ReadonlyArray<{ code: number; len: number }> = [
  { code: 0b0000010, len: 7 },
  { code: 0b000010, len: 6 },
  { code: 0b010, len: 3 },
  { code: 0b1, len: 1 },
  { code: 0b011, len: 3 },
  { code: 0b000011, len: 6 },
  { code: 0b0000011, len: 7 },
];

/**
 * Bytes a coded line of this width can take at most, 1-D or 2-D: a code costs at most 7 bits
 * per pixel it moves a0 on (VL3/VR3 over one pixel; a horizontal mode's two runs of one pixel
 * 3 + 6 + 3 bits; a white run of one 6), so 8 bits a pixel leave room for a first white run
 * of zero and a 2560 make-up repeated in a run past ONE_CODE_RUNS.
 */
export function lineBytesBound(width: number): number {
  return width + 16;
}

/** VERTICAL_CODES packed for the encoder's inner loop: (code << 5) | len, index d + 3. */
export const VERTICAL_PACKED = Int32Array.from(VERTICAL_CODES, (c) => (c.code << 5) | c.len);

export const MODE_LOOKUP_BITS = 7;

/** Indexed by the next 7 bits: (mode << 4) | code length; 0 = not a mode code (EOL or garbage). */
export const MODE_DECODE: Int32Array = (() => {
  const table = new Int32Array(1 << MODE_LOOKUP_BITS);
  const add = (code: number, len: number, mode: number): void => {
    const shift = MODE_LOOKUP_BITS - len;
    for (let i = code << shift; i < (code + 1) << shift; i++) {
      if (table[i] !== 0) throw new Error('t4-tables: mode codes overlap');
      table[i] = (mode << 4) | len;
    }
  };
  add(PASS_CODE.code, PASS_CODE.len, MODE_PASS);
  add(HORIZONTAL_CODE.code, HORIZONTAL_CODE.len, MODE_HORIZONTAL);
  VERTICAL_CODES.forEach((c, i) => add(c.code, c.len, MODE_V0 - 3 + i));
  add(0b0000001, 7, MODE_EXTENSION);
  return table;
})();

/**
 * K factor of T.4 4.2.1.3.1 for a vertical resolution: the largest number of lines in a row
 * coded two-dimensionally plus one. 2 for standard (98 dpi), 4 for fine (196 dpi), and — as
 * spandsp does for the higher resolutions — 6 for 300 dpi, 8 for superfine (391/400 dpi),
 * 12 for 600 dpi, 16 for 800 dpi, 24 for 1200 dpi.
 */
export function kFactorForYDpi(yDpi: number): number {
  if (yDpi < 150) return 2;
  if (yDpi < 250) return 4;
  if (yDpi < 350) return 6;
  if (yDpi < 500) return 8;
  if (yDpi < 700) return 12;
  if (yDpi < 1000) return 16;
  return 24;
}

/** Minimum bits per coded line for a bit rate and minimum scan-line time (T.30 DIS/DCS bits 21–23). */
export function minScanLineBits(bitRate: number, minScanLineTimeMs: number): number {
  if (!(bitRate > 0) || !(minScanLineTimeMs >= 0)) {
    throw new RangeError(`minScanLineBits: bitRate must be > 0 and minScanLineTimeMs ≥ 0, got ${bitRate}, ${minScanLineTimeMs}`);
  }
  return Math.ceil((bitRate * minScanLineTimeMs) / 1000);
}
