// HDLC frame check sequences (ISO/IEC 13239 §4.2.5; ITU-T T.30 §5.3.7 uses the 16-bit one, T.30
// Annex A ECM frames may use the 32-bit one of V.42 §8.1.1.6.2). Both are reflected CRCs: the
// register shifts right because HDLC sends every octet least significant bit first, and the FCS
// is sent complemented, low-order octet first.
import { CRC16_TABLE, CRC32_TABLE } from './crc-tables.js';

export { CRC16_TABLE, CRC32_TABLE };

// Module-local copies: some loaders (tsx's, vitest's) turn every use of an imported name into a
// getter call, once per octet here.
const T16 = CRC16_TABLE;
const T32 = CRC32_TABLE;

/** CRC-16/ITU-T register after `data` (pass the previous register to continue; start 0xffff). */
export function crc16Update(crc: number, data: Uint8Array, start = 0, end = data.length): number {
  let c = crc & 0xffff;
  for (let i = start; i < end; i++) c = (c >>> 8) ^ T16[(c ^ data[i]!) & 0xff]!;
  return c;
}

/** CRC-32 register after `data` (start 0xffffffff). */
export function crc32Update(crc: number, data: Uint8Array, start = 0, end = data.length): number {
  let c = crc >>> 0;
  for (let i = start; i < end; i++) c = (c >>> 8) ^ T32[(c ^ data[i]!) & 0xff]!;
  return c >>> 0;
}

/** The 16-bit FCS of `data` as sent (complemented register); octets on the line: low, high. */
export function fcs16(data: Uint8Array): number {
  return ~crc16Update(0xffff, data) & 0xffff;
}

/** The 32-bit FCS of `data` as sent; octets on the line: lowest first. */
export function fcs32(data: Uint8Array): number {
  return ~crc32Update(0xffffffff, data) >>> 0;
}

/** Register left by a frame followed by its correct 16-bit FCS (the "good FCS" residue). */
export const FCS16_GOOD = 0xf0b8;
/** Register left by a frame followed by its correct 32-bit FCS. */
export const FCS32_GOOD = 0xdebb20e3;

/** Whether `bytes` (a frame and its FCS as received) check out. */
export function fcsOk(bytes: Uint8Array, crcBits: 16 | 32, length = bytes.length): boolean {
  return crcBits === 16 ? crc16Update(0xffff, bytes, 0, length) === FCS16_GOOD : crc32Update(0xffffffff, bytes, 0, length) === FCS32_GOOD;
}
