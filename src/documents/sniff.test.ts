import { describe, expect, it } from 'vitest';
import { cutAtCharBoundary, sniffFormat, TEXT_SNIFF_BYTES, type DocumentFormat } from './sniff.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const ascii = (s: string): Buffer => Buffer.from(s, 'latin1');

/** A BMP file header + BITMAPINFOHEADER (40 bytes) for a 1×1 24-bit image. */
function bmpHeader(dibSize = 40): Buffer {
  const b = Buffer.alloc(14 + dibSize + 4);
  b.write('BM', 0, 'latin1');
  b.writeUInt32LE(b.length, 2);
  b.writeUInt32LE(14 + dibSize, 10);
  b.writeUInt32LE(dibSize, 14);
  b.writeInt32LE(1, 18);
  b.writeInt32LE(1, 22);
  return b;
}

describe('sniffFormat', () => {
  it.each<[string, Buffer, DocumentFormat | null]>([
    ['PDF at the start', ascii('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj'), 'pdf'],
    ['PDF after junk within 1024 bytes', Buffer.concat([Buffer.alloc(1000, 0x01), ascii('%PDF-1.4\n')]), 'pdf'],
    ['"%PDF-" further than 1024 bytes in is not a PDF', Buffer.concat([Buffer.alloc(1100, 0x01), ascii('%PDF-1.4\n')]), null],
    ['TIFF little-endian', hex('49492a00 08000000'), 'tiff'],
    ['TIFF big-endian', hex('4d4d002a 00000008'), 'tiff'],
    ['BigTIFF', hex('49492b00 08000000 1000000000000000'), 'tiff'],
    ['"II" followed by something else', ascii('II is not a tiff at all'), 'text'],
    ['PNG', hex('89504e470d0a1a0a 0000000d 49484452'), 'png'],
    ['JPEG', hex('ffd8ffe0 00104a46 494600'), 'jpeg'],
    ['JPEG (EXIF)', hex('ffd8ffe1 1234 45786966'), 'jpeg'],
    ['GIF87a', ascii('GIF87a\x01\x00\x01\x00'), 'gif'],
    ['GIF89a', ascii('GIF89a\x01\x00\x01\x00'), 'gif'],
    ['WebP', ascii('RIFF\x24\x00\x00\x00WEBPVP8L'), 'webp'],
    ['RIFF that is not WebP (WAV)', ascii('RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00'), null],
    ['BMP with a plausible header', bmpHeader(), 'bmp'],
    ['BMP with a V5 header', bmpHeader(124), 'bmp'],
    ['"BM" text is text, not a bitmap', ascii('BMW service invoice\nTotal: 120 EUR\n'), 'text'],
    ['plain ASCII text', ascii('Dear Sir,\r\n\tplease find attached.\f'), 'text'],
    ['UTF-8 text with a BOM', Buffer.from('\ufeffGrüße aus Köln — 東京', 'utf8'), 'text'],
    ['text with a few ANSI escapes', ascii(`${'report line\n'.repeat(20)}\x1b[1mbold\x1b[0m\n`), 'text'],
    ['Latin-1 (not UTF-8) text', ascii('caf\xe9 cr\xe8me'), null],
    ['text with a NUL byte', ascii('abc\x00def'), null],
    ['UTF-16 text', Buffer.from('\ufeffhello', 'utf16le'), null],
    ['mostly control characters', Buffer.from(Array.from({ length: 100 }, (_, i) => (i % 3 === 0 ? 0x01 : 0x41))), null],
    ['random binary', hex('00ff13 37c0de 0badf00d deadbeef'), null],
    ['an empty buffer', Buffer.alloc(0), null],
    ['a ZIP (docx) file', hex('504b0304 14000600 0800'), null],
  ])('%s', (_n, bytes, expected) => {
    expect(sniffFormat(bytes)).toBe(expected);
  });

  it('ignores what a file claims to be: only the bytes count', () => {
    // A "PDF" that is really PNG bytes, and text that mentions PDF but is not one.
    expect(sniffFormat(hex('89504e470d0a1a0a'))).toBe('png');
    expect(sniffFormat(ascii('this is report.pdf, %PDF in name only'))).toBe('text');
  });

  it('treats long UTF-8 text as text even when the sample cuts a character in half', () => {
    const prefix = 'a'.repeat(TEXT_SNIFF_BYTES - 1); // the 3-byte "€" straddles the sample's end
    const bytes = Buffer.from(`${prefix}€ and more text after the cut`, 'utf8');
    expect(bytes[TEXT_SNIFF_BYTES - 1]).toBe(0xe2);
    expect(sniffFormat(bytes)).toBe('text');
  });

  it('still refuses invalid UTF-8 right before the cut', () => {
    const bytes = Buffer.concat([Buffer.alloc(TEXT_SNIFF_BYTES - 2, 0x61), hex('ff61'), Buffer.alloc(10, 0x61)]);
    expect(sniffFormat(bytes)).toBeNull();
  });
});

describe('cutAtCharBoundary', () => {
  it.each<[string, Buffer, number]>([
    ['ASCII is untouched', ascii('abc'), 3],
    ['a complete 2-byte char is kept', Buffer.from('aé', 'utf8'), 3],
    ['half of a 2-byte char is dropped', Buffer.from('aé', 'utf8').subarray(0, 2), 1],
    ['2 of 3 bytes of € are dropped', Buffer.from('a€', 'utf8').subarray(0, 3), 1],
    ['3 of 4 bytes of an emoji are dropped', Buffer.from('a😀', 'utf8').subarray(0, 4), 1],
    ['a complete emoji is kept', Buffer.from('a😀', 'utf8'), 5],
  ])('%s', (_n, bytes, length) => {
    expect(cutAtCharBoundary(bytes).length).toBe(length);
  });
});
