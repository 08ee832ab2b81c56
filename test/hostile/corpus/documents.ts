// Hostile documents, generated (nothing big is committed): broken and lying PDFs, pixel and
// decompression bombs, TIFFs with absurd tags, BMPs whose headers lie, text that is not text.
// Each entry says what the service must answer (docs/api.md: codes, decision 5, the
// transmission codes): refused at fax-send with a code and field, or accepted and then failed before
// any call with a transmission code (nothing charged), or delivered when the input is merely odd.
import { deflateSync } from 'node:zlib';
import { crc32 } from 'node:zlib';
import { buildTiff, bilevelEntries, type BuildEntry } from '../../vectors/tiff-builder.js';
import { fixture, textPdf } from '../../helpers/documents.js';

export type DocExpect =
  /** fax-send refuses it: HTTP, envelope status, code, field. */
  | { at: 'request'; http: number; status: number; code: number; field: string }
  /** fax-send accepts it; the job fails before dialing with this code, charging nothing. */
  | { at: 'job'; code: number }
  /** A valid if odd document: delivered. */
  | { at: 'delivered' };

export interface HostileDoc {
  name: string;
  bytes: () => Buffer;
  expect: DocExpect;
}

const refused = (code: number, field = 'faxData[0]'): DocExpect => ({ at: 'request', http: code === -3005 ? 413 : 400, status: -2, code, field });
const jobFails = (code: number): DocExpect => ({ at: 'job', code });
const INVALID_FORMAT = -3006;
const TIFF_EMPTY = -3004;
const TOO_LARGE = -3005;
const INVALID_PARAMETER = -3000;

// ------------------------------------------------------------------------------------ PDF

/** A PDF from raw object bodies (1-based numbering), with a correct xref table unless told otherwise. */
export function rawPdf(objects: (string | Buffer)[], o: { root?: number; trailerExtra?: string; xrefShift?: number } = {}): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let pos = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(pos);
    const b = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), typeof body === 'string' ? Buffer.from(body, 'latin1') : body, Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(b);
    pos += b.length;
  });
  const shift = o.xrefShift ?? 0;
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((n) => `${String(n + shift).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root ${o.root ?? 1} 0 R ${o.trailerExtra ?? ''}>>\nstartxref\n${pos}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

const streamObj = (dict: string, data: Buffer): Buffer =>
  Buffer.concat([Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);

/** One page with `content`, MediaBox `box`, extra page entries and extra objects after the content (object 4…). */
function onePagePdf(content: string, box = '0 0 612 792', pageExtra = '', extra: (string | Buffer)[] = [], catalogExtra = ''): Buffer {
  return rawPdf([
    `<< /Type /Catalog /Pages 2 0 R ${catalogExtra}>>`,
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [${box}] /Contents 4 0 R ${pageExtra}>>`,
    streamObj('', Buffer.from(content, 'latin1')),
    ...extra,
  ]);
}

const goodPdf = (): Buffer => textPdf([{ lines: ['hostile corpus: a valid page'] }]);

/** `n` pages in a flat page tree (each page shares one empty content stream). */
function manyPagesPdf(n: number): Buffer {
  const kids = Array.from({ length: n }, (_, i) => `${i + 4} 0 R`).join(' ');
  const pages = Array.from({ length: n }, () => '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R >>');
  return rawPdf(['<< /Type /Catalog /Pages 2 0 R >>', `<< /Type /Pages /Kids [${kids}] /Count ${n} >>`, streamObj('', Buffer.alloc(0)), ...pages]);
}

/** An image XObject that declares `w`×`h` 8-bit gray pixels and carries a small Flate stream. */
function imageBombPdf(w: number, h: number, inflated: number): Buffer {
  const data = deflateSync(Buffer.alloc(inflated), { level: 9 });
  return onePagePdf('q 612 0 0 792 0 0 cm /Im1 Do Q', '0 0 612 792', '/Resources << /XObject << /Im1 5 0 R >> >>', [
    streamObj(`/Type /XObject /Subtype /Image /Width ${w} /Height ${h} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode`, data),
  ]);
}

export const PDFS: HostileDoc[] = [
  // Its page is cut off: the page tree says so, so the request is refused before any job exists.
  { name: 'PDF truncated in the middle', bytes: () => goodPdf().subarray(0, Math.floor(goodPdf().length / 2)), expect: refused(INVALID_FORMAT) },
  { name: 'PDF header only', bytes: () => Buffer.from('%PDF-1.7\n'), expect: refused(INVALID_FORMAT) },
  { name: 'PDF encrypted (RC4, user password)', bytes: () => fixture('encrypted.pdf'), expect: refused(INVALID_FORMAT) },
  { name: 'PDF with every xref offset wrong', bytes: () => rawPdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>'], { xrefShift: 1_000_000 }), expect: { at: 'delivered' } },
  { name: 'PDF xref shifted by 7 bytes (repairable)', bytes: () => rawPdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>'], { xrefShift: 7 }), expect: { at: 'delivered' } },
  { name: 'PDF whose xref is garbage', bytes: () => Buffer.from(goodPdf().toString('latin1').replace(/xref[\s\S]*trailer/, 'xref\nGARBAGE GARBAGE\ntrailer'), 'latin1'), expect: { at: 'delivered' } },
  { name: 'PDF page tree that loops', bytes: () => rawPdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [2 0 R] /Count 1 >>']), expect: jobFails(INVALID_FORMAT) },
  { name: 'PDF /Count 1e12 with no pages', bytes: () => rawPdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [] /Count 1000000000000 >>']), expect: refused(TOO_LARGE) },
  { name: 'PDF with a 10^9-point page (MediaBox)', bytes: () => onePagePdf('0 0 m 1000 1000 l S', '0 0 1000000000 1000000000'), expect: { at: 'delivered' } },
  { name: 'PDF with a negative/inverted MediaBox', bytes: () => onePagePdf('0 0 m 100 100 l S', '612 792 -1e30 -1e30'), expect: { at: 'delivered' } },
  { name: 'PDF with 201 pages (fax limit 200)', bytes: () => manyPagesPdf(201), expect: refused(INVALID_PARAMETER, 'faxData') },
  { name: 'PDF with 10 001 pages (document cap)', bytes: () => manyPagesPdf(10_001), expect: refused(TOO_LARGE) },
  { name: 'PDF with a JavaScript OpenAction', bytes: () => onePagePdf('BT /F1 12 Tf 72 700 Td (js) Tj ET', undefined, '', ['<< /S /JavaScript /JS (while(true){}) >>'], '/OpenAction 5 0 R '), expect: { at: 'delivered' } },
  { name: 'PDF image declaring 100k x 100k pixels (1 MB of Flate)', bytes: () => imageBombPdf(100_000, 100_000, 1 << 20), expect: { at: 'delivered' } },
  { name: 'PDF content stream deflate bomb (200 MB of zeros)', bytes: () => onePagePdfStream(deflateSync(Buffer.alloc(200 << 20), { level: 9 })), expect: { at: 'delivered' } },
  { name: 'PDF with an operator storm (1 M path segments)', bytes: () => onePagePdf('0 0 m ' + '1 1 l '.repeat(1_000_000) + 'S'), expect: { at: 'delivered' } },
  { name: 'PDF of one array of 2.3 million references (14 MB)', bytes: () => Buffer.from(`%PDF-1.7\n1 0 obj [${'1 0 R '.repeat(2_300_000)}] endobj\nstartxref\n0\n%%EOF\n`, 'latin1'), expect: refused(INVALID_FORMAT) },
  { name: 'PDF of 400 000 trailers (14 MB)', bytes: () => Buffer.from(`%PDF-1.7\n${'trailer << /Root 1 0 R /Prev 9 >>\n'.repeat(400_000)}startxref\n0\n%%EOF\n`, 'latin1'), expect: refused(INVALID_FORMAT) },
  // PDFium reads the page past the junk key (pdfjs could not): the empty page is what readers show.
  { name: 'PDF nested arrays 100k deep', bytes: () => onePagePdf('', '0 0 612 792', `/Junk ${'['.repeat(100_000)}${']'.repeat(100_000)}`), expect: { at: 'delivered' } },
];

function onePagePdfStream(flate: Buffer): Buffer {
  return rawPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>',
    streamObj('/Filter /FlateDecode', flate),
  ]);
}

// ---------------------------------------------------------------------------------- images

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td) >>> 0);
  return Buffer.concat([len, td, crc]);
}

/** A PNG declaring w×h 8-bit gray (colour type 0) or RGBA (6), IDAT the deflated zero rows (capped at `maxRaw`). */
export function png(w: number, h: number, o: { colorType?: number; maxRaw?: number; idat?: Buffer } = {}): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = o.colorType ?? 0;
  const channels = o.colorType === 6 ? 4 : 1;
  const raw = Math.min(o.maxRaw ?? 64 << 20, (w * channels + 1) * h);
  const idat = o.idat ?? deflateSync(Buffer.alloc(raw), { level: 9 });
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr), pngChunk('IDAT', idat), pngChunk('IEND', Buffer.alloc(0))]);
}

/** A baseline JPEG header declaring w×h with no scan data worth the name. */
export function jpegHeader(w: number, h: number): Buffer {
  const sof = Buffer.from([0xff, 0xc0, 0, 11, 8, h >> 8, h & 0xff, w >> 8, w & 0xff, 1, 1, 0x11, 0]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), sof, Buffer.from([0xff, 0xd9])]);
}

/** A BMP with a BITMAPINFOHEADER; every field can lie. */
export function bmp(o: { width: number; height: number; bpp?: number; compression?: number; dataOffset?: number; clrUsed?: number; pixels?: Buffer }): Buffer {
  const h = Buffer.alloc(54);
  const pixels = o.pixels ?? Buffer.alloc(0);
  h.write('BM', 0, 'latin1');
  h.writeUInt32LE(54 + pixels.length, 2);
  h.writeUInt32LE(o.dataOffset ?? 54, 10);
  h.writeUInt32LE(40, 14);
  h.writeInt32LE(o.width, 18);
  h.writeInt32LE(o.height, 22);
  h.writeUInt16LE(1, 26);
  h.writeUInt16LE(o.bpp ?? 24, 28);
  h.writeUInt32LE(o.compression ?? 0, 30);
  h.writeUInt32LE(o.clrUsed ?? 0, 46);
  return Buffer.concat([h, pixels]);
}

export const IMAGES: HostileDoc[] = [
  { name: 'PNG declaring 100k x 100k (pixel bomb, tiny file)', bytes: () => png(100_000, 100_000, { maxRaw: 1 << 20 }), expect: refused(INVALID_FORMAT) },
  { name: 'PNG 30 000 x 30 000 (900 MP, under the side cap)', bytes: () => png(30_000, 30_000, { maxRaw: 4 << 20 }), expect: jobFails(INVALID_FORMAT) },
  { name: 'PNG 10 000 x 10 000 RGBA, deflate bomb (400 MB raw)', bytes: () => png(10_000, 10_000, { colorType: 6, maxRaw: 400_010_000 }), expect: { at: 'delivered' } },
  { name: 'PNG with a truncated IDAT', bytes: () => png(2000, 2000, { idat: deflateSync(Buffer.alloc(4_002_000)).subarray(0, 100) }), expect: jobFails(INVALID_FORMAT) },
  { name: 'PNG with a corrupt IHDR (header truncated)', bytes: () => png(10, 10).subarray(0, 20), expect: refused(INVALID_FORMAT) },
  { name: 'PNG of 0 x 0', bytes: () => png(0, 0), expect: refused(INVALID_FORMAT) },
  { name: 'JPEG declaring 65 535 x 65 535', bytes: () => jpegHeader(65_535, 65_535), expect: refused(INVALID_FORMAT) },
  { name: 'JPEG declaring 20 000 x 20 000 with no scan', bytes: () => jpegHeader(20_000, 20_000), expect: jobFails(INVALID_FORMAT) },
  { name: 'JPEG SOI only', bytes: () => Buffer.from([0xff, 0xd8, 0xff]), expect: refused(INVALID_FORMAT) },
  { name: 'GIF declaring 65 535 x 65 535', bytes: () => Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0])]), expect: refused(INVALID_FORMAT) },
  { name: 'BMP 10 000 x 10 000 with no pixel data', bytes: () => bmp({ width: 10_000, height: 10_000, pixels: Buffer.alloc(4) }), expect: refused(INVALID_FORMAT) },
  { name: 'BMP with the pixel offset past EOF', bytes: () => bmp({ width: 4, height: 4, dataOffset: 1 << 30, pixels: Buffer.alloc(64) }), expect: refused(INVALID_FORMAT) },
  { name: 'BMP with a negative width', bytes: () => bmp({ width: -4, height: 4, pixels: Buffer.alloc(64) }), expect: refused(INVALID_FORMAT) },
  { name: 'BMP with height -2^31', bytes: () => bmp({ width: 4, height: -0x80000000, pixels: Buffer.alloc(64) }), expect: refused(INVALID_FORMAT) },
  { name: 'BMP with 7 bits per pixel', bytes: () => bmp({ width: 4, height: 4, bpp: 7, pixels: Buffer.alloc(64) }), expect: refused(INVALID_FORMAT) },
  { name: 'BMP with a palette of 2^31 colours', bytes: () => bmp({ width: 4, height: 4, bpp: 8, clrUsed: 0x80000000, pixels: Buffer.alloc(64) }), expect: { at: 'delivered' } },
  { name: 'BMP RLE8 whose runs stop early', bytes: () => bmp({ width: 100, height: 100, bpp: 8, compression: 1, pixels: Buffer.from([10, 1]) }), expect: jobFails(INVALID_FORMAT) },
  { name: 'BMP RLE8 9 000 x 9 000 with a 2-byte end-of-bitmap', bytes: () => bmp({ width: 9000, height: 9000, bpp: 8, compression: 1, pixels: Buffer.from([0, 1]) }), expect: { at: 'delivered' } },
];

// ------------------------------------------------------------------------------------ TIFF

const strip = (n: number): Uint8Array => new Uint8Array(n);
const tiff = (entries: BuildEntry[], strips?: Uint8Array[], opts: Parameters<typeof buildTiff>[1] = {}): Buffer => Buffer.from(buildTiff([{ entries, ...(strips ? { strips } : {}) }], opts));
const page = (w: number, h: number, extra: Parameters<typeof bilevelEntries>[2] = {}): BuildEntry[] => bilevelEntries(w, h, extra);
const replace = (entries: BuildEntry[], tag: number, e: Partial<BuildEntry>): BuildEntry[] => entries.map((x) => (x.tag === tag ? { ...x, ...e } : x));

/** A chain of `n` tiny IFDs (each page 8×8, uncompressed). */
function manyIfds(n: number): Buffer {
  return Buffer.from(buildTiff(Array.from({ length: n }, () => ({ entries: page(8, 8), strips: [strip(8)] }))));
}

export const TIFFS: HostileDoc[] = [
  { name: 'TIFF with a width of 2^32-1', bytes: () => tiff(replace(page(8, 8), 256, { values: [0xffffffff] }), [strip(8)]), expect: refused(INVALID_FORMAT) },
  { name: 'TIFF with a height of 2^32-1', bytes: () => tiff(replace(page(8, 8), 257, { values: [0xffffffff] }), [strip(8)]), expect: refused(INVALID_FORMAT) },
  { name: 'TIFF 29 999 x 29 999 bilevel with one empty strip', bytes: () => tiff(page(29_999, 29_999), [strip(16)]), expect: jobFails(INVALID_FORMAT) },
  { name: 'TIFF strip offset past EOF', bytes: () => tiff([...page(8, 8), { tag: 273, type: 4, values: [1 << 30] }, { tag: 279, type: 4, values: [8] }]), expect: jobFails(INVALID_FORMAT) },
  { name: 'TIFF strip byte count 2^32-1', bytes: () => tiff([...page(8, 8), { tag: 273, type: 4, values: [8] }, { tag: 279, type: 4, values: [0xffffffff] }]), expect: jobFails(INVALID_FORMAT) },
  { name: 'TIFF StripOffsets with a count of 2^32-1', bytes: () => tiff([...page(8, 8), { tag: 273, type: 4, values: [8], count: 0xffffffff }, { tag: 279, type: 4, values: [8] }]), expect: jobFails(INVALID_FORMAT) },
  { name: 'TIFF IFD chain that loops to itself', bytes: () => tiff(page(8, 8), [strip(8)], { next: (_i, offs) => offs[0] }), expect: refused(INVALID_FORMAT) },
  { name: 'TIFF first IFD past EOF', bytes: () => tiff(page(8, 8), [strip(8)], { firstIfd: 0x7fffffff }), expect: refused(INVALID_FORMAT) },
  { name: 'TIFF first IFD at 0 (no pages)', bytes: () => tiff(page(8, 8), [strip(8)], { firstIfd: 0 }), expect: refused(TIFF_EMPTY) },
  { name: 'TIFF with 300 IFDs (fax limit 200)', bytes: () => manyIfds(300), expect: refused(INVALID_PARAMETER, 'faxData') },
  { name: 'TIFF with 10 001 IFDs (document cap)', bytes: () => manyIfds(10_001), expect: refused(TOO_LARGE) },
  { name: 'TIFF 16 bits per sample', bytes: () => tiff(replace(page(8, 8), 258, { values: [16] }), [strip(128)]), expect: { at: 'delivered' } },
  { name: 'TIFF 0 bits per sample', bytes: () => tiff(replace(page(8, 8), 258, { values: [0] }), [strip(8)]), expect: jobFails(INVALID_FORMAT) },
  { name: 'TIFF unknown compression 65000', bytes: () => tiff(page(8, 8, { compression: 65000 }), [strip(8)]), expect: jobFails(INVALID_FORMAT) },
  { name: 'TIFF MMR strip of garbage', bytes: () => tiff(page(1728, 100, { compression: 4 }), [Uint8Array.from({ length: 64 }, (_, i) => (i * 37) & 0xff)]), expect: jobFails(INVALID_FORMAT) },
  { name: 'TIFF dimension tag of type ASCII', bytes: () => tiff(replace(page(8, 8), 256, { type: 2, values: 'eight' }), [strip(8)]), expect: refused(INVALID_FORMAT) },
  { name: 'TIFF header only', bytes: () => Buffer.from([0x49, 0x49, 42, 0, 8, 0, 0, 0]), expect: refused(INVALID_FORMAT) },
];

// ------------------------------------------------------------------------------------ text

export const TEXTS: HostileDoc[] = [
  { name: 'text with NUL bytes', bytes: () => Buffer.from('hello\0world\0'.repeat(50)), expect: refused(INVALID_FORMAT) },
  { name: 'text with invalid UTF-8', bytes: () => Buffer.concat([Buffer.from('hello '), Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xff, 0xfe])]), expect: refused(INVALID_FORMAT) },
  { name: 'text of control characters only', bytes: () => Buffer.from('\x01\x02\x03'.repeat(30)), expect: refused(INVALID_FORMAT) },
  { name: 'text of whitespace only', bytes: () => Buffer.from(' \n\t\r\n'.repeat(100)), expect: refused(INVALID_FORMAT) },
  { name: 'text: one 1 MB line (219 pages)', bytes: () => Buffer.alloc(1_050_000, 'x'), expect: refused(INVALID_PARAMETER, 'faxData') },
  { name: 'text: one 15 MB line of tabs (10 001+ pages)', bytes: () => Buffer.from('x' + '\t'.repeat(15_000_000)), expect: refused(TOO_LARGE) },
  { name: 'text: 7 million short lines (10 001+ pages)', bytes: () => Buffer.from('a\n'.repeat(7_000_000)), expect: refused(TOO_LARGE) },
  { name: 'text: 20 000 form feeds (10 001+ pages)', bytes: () => Buffer.from('x\f'.repeat(20_000)), expect: refused(TOO_LARGE) },
  { name: 'text with a BOM, RTL overrides and astral characters', bytes: () => Buffer.from('\ufeffabc \u202edlrow\u202c \u{1f4e0}\u{10ffff} \u0301\u0301\u0301'), expect: { at: 'delivered' } },
  { name: 'an empty file', bytes: () => Buffer.alloc(0), expect: refused(INVALID_FORMAT) },
  { name: 'random bytes', bytes: () => Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 2654435761) >>> 24)), expect: refused(INVALID_FORMAT) },
];

export const ALL_DOCUMENTS: HostileDoc[] = [...PDFS, ...IMAGES, ...TIFFS, ...TEXTS];
