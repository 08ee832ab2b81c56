// Generates the constant tables of native-free-dsp's own blocks (G.711 decoding, HDLC FCS):
//   node --import tsx scripts/gen-dsp-tables.ts
// The outputs are committed; a test checks them against the rules they come from, so a hand
// edit of an output fails the tests.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DSP = join(dirname(fileURLToPath(import.meta.url)), '..', 'native-free-dsp', 'src');

const HEADER = (what: string): string =>
  `// generated — do not edit. Made by scripts/gen-dsp-tables.ts (${what}).\n` +
  `// Regenerate with: node --import tsx scripts/gen-dsp-tables.ts\n`;

function rows(values: ArrayLike<number>, perRow: number, fmt: (v: number) => string): string {
  const out: string[] = [];
  for (let i = 0; i < values.length; i += perRow) {
    const row: string[] = [];
    for (let j = i; j < Math.min(values.length, i + perRow); j++) row.push(fmt(values[j]!));
    out.push(`  ${row.join(', ')},`);
  }
  return out.join('\n');
}

// ---------------------------------------------------------------- G.711 (Tables 1a/2a, §3-4)

/**
 * µ-law quantized value of a character signal, 16-bit scale (14-bit value × 4). G.711 Table 2a:
 * segment s (0-7) of 16 steps of 2^(s+1) units; the step value is the middle of its decision
 * interval: y = (2q + 33)·2^s − 33. The polarity bit (most significant) is 1 for positive
 * values; the seven magnitude bits are sent inverted.
 */
function ulawValue(code: number): number {
  const c = ~code & 0xff;
  const s = (c >> 4) & 7;
  const q = c & 15;
  const y = ((2 * q + 33) << s) - 33;
  return (c & 0x80 ? -y : y) * 4;
}

/**
 * A-law quantized value, 16-bit scale (13-bit value × 8). G.711 Table 1a: segments 0 and 1 have
 * steps of 2 units, segment s ≥ 1 steps of 2^s; y = 2q + 1 in segment 0, (2q + 33)·2^(s−1)
 * above. The polarity bit (most significant) is 1 for positive values; the even bits are sent
 * inverted (XOR 0x55).
 */
function alawValue(code: number): number {
  const c = code ^ 0x55;
  const s = (c >> 4) & 7;
  const q = c & 15;
  const y = s === 0 ? 2 * q + 1 : (2 * q + 33) << (s - 1);
  return c & 0x80 ? y * 8 : -y * 8;
}

function g711(): string {
  const ulaw = Int16Array.from({ length: 256 }, (_, i) => ulawValue(i));
  const alaw = Int16Array.from({ length: 256 }, (_, i) => alawValue(i));
  return `${HEADER('G.711 Tables 1a and 2a: decoder output per character signal')}
/** µ-law character signal (octet as sent) → linear sample, 16-bit scale (the 14-bit value × 4). */
export const ULAW_TO_LINEAR: Int16Array = Int16Array.from([
${rows(ulaw, 8, (v) => String(v).padStart(6))}
]);

/** A-law character signal (octet as sent) → linear sample, 16-bit scale (the 13-bit value × 8). */
export const ALAW_TO_LINEAR: Int16Array = Int16Array.from([
${rows(alaw, 8, (v) => String(v).padStart(6))}
]);
`;
}

// ------------------------------------------------------------- HDLC FCS (ISO/IEC 13239 / V.42)

/** Table of a reflected CRC (bits processed LSB first, as HDLC sends them). */
function crcTable(poly: number, bits: 16 | 32): number[] {
  const t: number[] = [];
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1;
    t.push(bits === 16 ? c & 0xffff : c >>> 0);
  }
  return t;
}

function crc(): string {
  const hex = (w: number) => (v: number) => `0x${v.toString(16).padStart(w, '0')}`;
  return `${HEADER('HDLC frame check sequences, reflected tables')}
/** CRC-16/ITU-T (x^16 + x^12 + x^5 + 1, reflected polynomial 0x8408), byte-at-a-time table. */
export const CRC16_TABLE: Uint16Array = Uint16Array.from([
${rows(crcTable(0x8408, 16), 8, hex(4))}
]);

/** CRC-32 (ISO 3309 / V.42, reflected polynomial 0xedb88320), byte-at-a-time table. */
export const CRC32_TABLE: Uint32Array = Uint32Array.from([
${rows(crcTable(0xedb88320, 32), 6, hex(8))}
]);
`;
}

writeFileSync(join(DSP, 'g711', 'tables.ts'), g711());
writeFileSync(join(DSP, 'hdlc', 'crc-tables.ts'), crc());
process.stdout.write('wrote native-free-dsp/src/g711/tables.ts, native-free-dsp/src/hdlc/crc-tables.ts\n');
