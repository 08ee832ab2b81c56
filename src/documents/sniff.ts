// Document format from the bytes alone (magic numbers), never from the file name or a
// Content-Type. PDF 1.7 (ISO 32000-1) 7.5.2, TIFF 6.0 section 2 and BigTIFF, PNG 5.2,
// JPEG (ITU-T T.81 B.1.1.3 SOI), GIF89a 17, RIFF/WebP, BMP (BITMAPFILEHEADER).

export type DocumentFormat = 'pdf' | 'tiff' | 'png' | 'jpeg' | 'gif' | 'webp' | 'bmp' | 'text';

/** How far into the file a PDF header may start (readers tolerate leading junk, Acrobat: 1024). */
const PDF_HEADER_WINDOW = 1024;
/** Prefix examined to decide whether a file is text. */
export const TEXT_SNIFF_BYTES = 64 * 1024;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** BITMAPINFOHEADER family sizes: CORE, INFO, V2, V3, OS/2 v2 (16 and 64), V4, V5. */
const BMP_DIB_SIZES = new Set([12, 16, 40, 52, 56, 64, 108, 124]);

const startsWith = (b: Buffer, ascii: string, at = 0): boolean =>
  b.length >= at + ascii.length && b.toString('latin1', at, at + ascii.length) === ascii;

export function sniffFormat(bytes: Buffer): DocumentFormat | null {
  if (bytes.length === 0) return null;
  if (isTiff(bytes)) return 'tiff';
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (startsWith(bytes, 'GIF87a') || startsWith(bytes, 'GIF89a')) return 'gif';
  if (startsWith(bytes, 'RIFF') && startsWith(bytes, 'WEBP', 8)) return 'webp';
  if (isBmp(bytes)) return 'bmp';
  if (bytes.subarray(0, PDF_HEADER_WINDOW + 5).includes('%PDF-', 0, 'latin1')) return 'pdf';
  if (isText(bytes)) return 'text';
  return null;
}

function isTiff(b: Buffer): boolean {
  if (b.length < 8) return false;
  const le = b[0] === 0x49 && b[1] === 0x49;
  const be = b[0] === 0x4d && b[1] === 0x4d;
  if (!le && !be) return false;
  const magic = le ? b.readUInt16LE(2) : b.readUInt16BE(2);
  return magic === 42 || magic === 43; // 43: BigTIFF
}

function isBmp(b: Buffer): boolean {
  if (b.length < 26 || !startsWith(b, 'BM')) return false;
  const dataOffset = b.readUInt32LE(10);
  const dibSize = b.readUInt32LE(14);
  // A plausible header: a known DIB size, pixel data after both headers, reserved fields zero.
  return BMP_DIB_SIZES.has(dibSize) && dataOffset >= 14 + dibSize && b.readUInt32LE(6) === 0;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Text: valid UTF-8 (ASCII included) with no NUL byte and mostly printable characters (control
 * characters other than tab, line breaks and form feed at most 2 % of the sample, and a little
 * ESC/backspace from printer output is still text).
 */
function isText(b: Buffer): boolean {
  let sample = b.length > TEXT_SNIFF_BYTES ? b.subarray(0, TEXT_SNIFF_BYTES) : b;
  if (sample.length < b.length) sample = cutAtCharBoundary(sample);
  if (sample.includes(0)) return false;
  let text: string;
  try {
    text = utf8.decode(sample);
  } catch {
    return false;
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return false;
  let control = 0;
  let chars = 0;
  for (const ch of text) {
    chars++;
    const c = ch.codePointAt(0) as number;
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x0c) || c === 0x7f || (c >= 0x80 && c < 0xa0)) control++;
  }
  return control * 50 <= chars;
}

/** Drops a multibyte UTF-8 sequence cut off at the end of a prefix, so the decoder sees whole characters. */
export function cutAtCharBoundary(b: Buffer): Buffer {
  // Walk back over at most 3 continuation bytes (10xxxxxx) to the lead byte of the last character.
  let i = b.length - 1;
  let back = 0;
  while (i >= 0 && back < 3 && ((b[i] as number) & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i < 0) return b;
  const lead = b[i] as number;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return b.length - i < need ? b.subarray(0, i) : b;
}
