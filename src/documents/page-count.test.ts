import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { ErrorName } from '../shared/errors.js';
import { countPages, imageDimensions, layoutText, MAX_DOCUMENT_PAGES, TEXT_COLUMNS, TEXT_LINES_PER_PAGE } from './page-count.js';
import { sniffFormat } from './sniff.js';
import { caughtFaxError } from '../../test/helpers/fax-errors.js';
import { fixture } from '../../test/helpers/documents.js';


function expectRefusal(fn: () => unknown, name: ErrorName, message: RegExp): void {
  const err = caughtFaxError(fn);
  expect(err.def.name).toBe(name);
  expect(err.message).toMatch(message);
}

// ------------------------------------------------------------------ a minimal PDF writer

/** Objects (number → body, latin1) written with a correct classic xref table and trailer. */
function buildPdf(objs: Record<number, string>, opts: { trailer?: string; noTrailer?: boolean; prefix?: string } = {}): Buffer {
  let out = `${opts.prefix ?? ''}%PDF-1.7\n%\xe2\xe3\xcf\xd3\n`;
  const offsets = new Map<number, number>();
  for (const [n, body] of Object.entries(objs)) {
    offsets.set(Number(n), out.length);
    out += `${n} 0 obj\n${body}\nendobj\n`;
  }
  if (!opts.noTrailer) {
    const max = Math.max(...offsets.keys());
    const xrefAt = out.length;
    out += `xref\n0 ${max + 1}\n0000000000 65535 f \n`;
    for (let i = 1; i <= max; i++) {
      const o = offsets.get(i);
      out += o === undefined ? '0000000000 65535 f \n' : `${String(o).padStart(10, '0')} 00000 n \n`;
    }
    out += `trailer\n<< /Size ${max + 1} /Root 1 0 R ${opts.trailer ?? ''} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  }
  return Buffer.from(out, 'latin1');
}

const stream = (data: string, dict = ''): string => `<< /Length ${Buffer.byteLength(data, 'latin1')} ${dict} >>\nstream\n${data}\nendstream`;

/** Catalog 1, page tree 2, pages 3.., one shared content stream. */
function flatPdf(pages: number, opts: Parameters<typeof buildPdf>[1] = {}): Buffer {
  const kids = Array.from({ length: pages }, (_, i) => `${i + 4} 0 R`).join(' ');
  const objs: Record<number, string> = {
    1: '<< /Type /Catalog /Pages 2 0 R >>',
    2: `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
    3: stream('BT /F1 12 Tf 72 720 Td (Hello fax) Tj ET'),
  };
  for (let i = 0; i < pages; i++) objs[i + 4] = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R >>';
  return buildPdf(objs, opts);
}

/**
 * A PDF 1.5 file as modern writers emit it: the page tree and pages inside a compressed object
 * stream, and a binary cross-reference stream instead of a trailer (ISO 32000-1 7.5.7, 7.5.8).
 */
function objectStreamPdf(pages: number): Buffer {
  const inner: [number, string][] = [[2, `<< /Type /Pages /Kids [${Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(' ')}] /Count ${pages} >>`]];
  for (let i = 0; i < pages; i++) inner.push([i + 3, '<< /Type/Page/Parent 2 0 R/MediaBox[0 0 595 842] >>']);
  let header = '';
  let body = '';
  for (const [num, text] of inner) {
    header += `${num} ${body.length} `;
    body += `${text}\n`;
  }
  const objStmNum = pages + 3;
  const xrefNum = pages + 4;
  const packed = deflateSync(Buffer.from(header + body, 'latin1'));
  let out = '%PDF-1.5\n%\xe2\xe3\xcf\xd3\n';
  const catalogAt = out.length;
  out += '1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n';
  const objStmAt = out.length;
  out += `${objStmNum} 0 obj\n<< /Type /ObjStm /N ${inner.length} /First ${header.length} /Filter /FlateDecode /Length ${packed.length} >>\nstream\n${packed.toString('latin1')}\nendstream\nendobj\n`;
  const xrefAt = out.length;
  // W [1 4 2]: type, offset or object-stream number, generation or index
  const rows: Buffer[] = [];
  const row = (type: number, a: number, b: number): void => {
    const r = Buffer.alloc(7);
    r.writeUInt8(type, 0);
    r.writeUInt32BE(a, 1);
    r.writeUInt16BE(b, 5);
    rows.push(r);
  };
  row(0, 0, 0xffff);
  row(1, catalogAt, 0);
  inner.forEach((_, idx) => row(2, objStmNum, idx));
  row(1, objStmAt, 0);
  row(1, xrefAt, 0);
  const xrefData = deflateSync(Buffer.concat(rows));
  out += `${xrefNum} 0 obj\n<< /Type /XRef /Size ${xrefNum + 1} /W [1 4 2] /Root 1 0 R /Filter /FlateDecode /Length ${xrefData.length} >>\nstream\n${xrefData.toString('latin1')}\nendstream\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

describe('countPages: PDF', () => {
  it.each([1, 3, 12])('a %d-page PDF', (n) => {
    const pdf = flatPdf(n);
    expect(sniffFormat(pdf)).toBe('pdf');
    expect(countPages(pdf, 'pdf')).toBe(n);
  });

  it('walks a nested page tree', () => {
    const pdf = buildPdf({
      1: '<< /Type /Catalog /Pages 2 0 R >>',
      2: '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 5 >>',
      3: '<< /Type /Pages /Parent 2 0 R /Kids [5 0 R 6 0 R] /Count 2 >>',
      4: '<< /Type /Pages /Parent 2 0 R /Kids [7 0 R 8 0 R 9 0 R] /Count 3 >>',
      5: '<< /Type /Page /Parent 3 0 R >>',
      6: '<< /Type /Page /Parent 3 0 R >>',
      7: '<< /Type /Page /Parent 4 0 R >>',
      8: '<< /Type /Page /Parent 4 0 R >>',
      9: '<< /Type /Page /Parent 4 0 R >>',
    });
    expect(countPages(pdf, 'pdf')).toBe(5);
  });

  it('trusts the walked tree over a wrong /Count', () => {
    const pdf = buildPdf({
      1: '<< /Type /Catalog /Pages 2 0 R >>',
      2: '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 99 >>',
      3: '<< /Type /Page /Parent 2 0 R >>',
      4: '<< /Type /Page /Parent 2 0 R >>',
    });
    expect(countPages(pdf, 'pdf')).toBe(2);
  });

  it('refuses as truncated a page tree whose kids are not in the file', () => {
    const pdf = buildPdf({
      1: '<< /Type /Catalog /Pages 2 0 R >>',
      2: '<< /Type /Pages /Kids [3 0 R 9 0 R 10 0 R] /Count 4 0 R >>',
      3: '<< /Type /Page /Parent 2 0 R >>',
      4: '3',
    });
    expectRefusal(() => countPages(pdf, 'pdf'), 'INVALID_FILE_FORMAT', /PDF is truncated: 2 of its 3 pages are missing or cut off/);
  });

  it('does not call a page that is in the file but unreadable (nesting too deep) missing', () => {
    const pdf = buildPdf({
      1: '<< /Type /Catalog /Pages 2 0 R >>',
      2: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      3: `<< /Type /Page /Parent 2 0 R /Junk ${'['.repeat(1000)}${']'.repeat(1000)} >>`,
    });
    expect(countPages(pdf, 'pdf')).toBe(1);
  });

  it('refuses as truncated a page whose content stream is cut off', () => {
    const pdf = buildPdf({
      1: '<< /Type /Catalog /Pages 2 0 R >>',
      2: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      3: '<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>',
    });
    const cut = Buffer.concat([pdf, Buffer.from('4 0 obj\n<< /Length 999 >>\nstream\nBT /F1 12 Tf 72 700 Td (cut he', 'latin1')]);
    expectRefusal(() => countPages(cut, 'pdf'), 'INVALID_FILE_FORMAT', /PDF is truncated: 1 of its 1 page is missing or cut off/);
  });

  it('counts a PDF without %%EOF or startxref whose pages are all there', () => {
    const pdf = buildPdf({
      1: '<< /Type /Catalog /Pages 2 0 R >>',
      2: '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>',
      3: '<< /Type /Page /Parent 2 0 R >>',
      4: '<< /Type /Page /Parent 2 0 R >>',
    });
    const s = pdf.toString('latin1');
    expect(countPages(Buffer.from(s.slice(0, s.lastIndexOf('startxref')), 'latin1'), 'pdf')).toBe(2);
  });

  it('survives a page tree that loops back on itself', () => {
    const pdf = buildPdf({
      1: '<< /Type /Catalog /Pages 2 0 R >>',
      2: '<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 1 >>',
      3: '<< /Type /Page /Parent 2 0 R >>',
    });
    expect(countPages(pdf, 'pdf')).toBe(1);
  });

  it('counts the pages reached when a kid loops back into the tree, not the /Count', () => {
    // pdf.js Pages-tree-refs.pdf: the second kid is a chain of /Pages nodes leading back to itself.
    const pdf = buildPdf({
      1: '<< /Type /Catalog /Pages 2 0 R >>',
      2: '<< /Type /Pages /Kids [6 0 R 3 0 R] /Count 2 >>',
      3: '<< /Type /Pages /Kids [4 0 R] /Count 1 >>',
      4: '<< /Type /Pages /Kids [5 0 R] /Count 1 >>',
      5: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      6: '<< /Type /Page /Parent 2 0 R >>',
    });
    expect(countPages(pdf, 'pdf')).toBe(1);
  });

  it('refuses a PDF whose catalog /Pages is no page tree and which has no page anywhere', () => {
    // pdf.js issue15590.pdf: /Pages names a JavaScript action.
    const pdf = buildPdf({
      1: '<< /Type /Catalog /Pages 2 0 R /OpenAction 2 0 R >>',
      2: '<< /S /JavaScript /JS (app.alert(1)) >>',
    });
    expectRefusal(() => countPages(pdf, 'pdf'), 'INVALID_FILE_FORMAT', /PDF has no pages/);
  });

  describe('a damaged file (no trailer) whose pages came out empty is refused, an intact blank one is not', () => {
    const tree = { 1: '<< /Type /Catalog /Pages 2 0 R >>', 2: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' };
    it.each([
      ['no content at all', { 3: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>' }],
      ['an empty content stream', { 3: '<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>', 4: stream('') }],
      ['content streams of white space only', { 3: '<< /Type /Page /Parent 2 0 R /Contents [4 0 R 5 0 R] >>', 4: stream(' \r\n'), 5: stream('') }],
    ])('%s', (_n, page) => {
      expectRefusal(() => countPages(buildPdf({ ...tree, ...page }, { noTrailer: true }), 'pdf'), 'INVALID_FILE_FORMAT', /PDF is damaged \(its cross-reference is missing or broken\) and nothing is left on its page$/);
      expect(countPages(buildPdf({ ...tree, ...page }), 'pdf')).toBe(1);
    });

    it.each([
      ['annotations only (a form)', { 3: '<< /Type /Page /Parent 2 0 R /Annots [4 0 R] >>', 4: '<< /Subtype /Widget /Rect [0 0 9 9] >>' }],
      ['content that may draw nothing visible', { 3: '<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>', 4: stream('q Q') }],
    ])('a damaged file with %s is counted', (_n, page) => {
      expect(countPages(buildPdf({ ...tree, ...page }, { noTrailer: true }), 'pdf')).toBe(1);
    });

    it('a cross-reference stream whose data is not as long as its /Length says is damaged', () => {
      // pdf.js issue18986.pdf: the xref stream's bytes were mangled on the way (U+FFFD for each byte ≥ 0x80).
      const pdf = buildPdf({ ...tree, 3: '<< /Type /Page /Parent 2 0 R >>', 4: `<< /Type /XRef /Root 1 0 R /Size 5 /W [1 4 2] /Length 14 >>\nstream\n${'\x01\x00\x00\x00\xef\xbf\xbd'.repeat(3)}\nendstream` }, { noTrailer: true });
      expectRefusal(() => countPages(pdf, 'pdf'), 'INVALID_FILE_FORMAT', /PDF is damaged/);
    });
  });

  it.each([
    ['no spaces', '<</Type/Page/Parent 2 0 R>>'],
    ['line breaks and a comment', '<<\r\n/Type\r\n%comment\n/Page\n/Parent 2 0 R\n>>'],
    ['a #-escaped name', '<< /Type /Pa#67e /Parent 2 0 R >>'],
  ])('recognizes /Type /Page written with %s', (_n, pageDict) => {
    const pdf = buildPdf({
      1: '<</Type/Catalog/Pages 2 0 R>>',
      2: '<</Type/Pages/Kids[3 0 R 4 0 R]/Count 2>>',
      3: pageDict,
      4: pageDict,
    });
    expect(countPages(pdf, 'pdf')).toBe(2);
  });

  it('reads pages inside compressed object streams with a cross-reference stream', () => {
    const pdf = objectStreamPdf(4);
    expect(pdf.includes('/Type/Page')).toBe(false); // nothing to find without inflating
    expect(countPages(pdf, 'pdf')).toBe(4);
  });

  it('uses the newest definition after an incremental update', () => {
    const base = flatPdf(2);
    const update =
      '5 0 obj\n<< /Type /Page /Parent 2 0 R >>\nendobj\n' +
      '2 0 obj\n<< /Type /Pages /Kids [4 0 R 5 0 R 6 0 R] /Count 3 >>\nendobj\n' +
      '6 0 obj\n<< /Type /Page /Parent 2 0 R >>\nendobj\n' +
      'trailer\n<< /Size 7 /Root 1 0 R /Prev 0 >>\n%%EOF\n';
    expect(countPages(Buffer.concat([base, Buffer.from(update, 'latin1')]), 'pdf')).toBe(3);
  });

  it('repairs a file without xref or trailer (finds the catalog)', () => {
    expect(countPages(flatPdf(3, { noTrailer: true }), 'pdf')).toBe(3);
  });

  it('skips a damaged object and keeps reading the ones after it', () => {
    const pdf = buildPdf({
      1: '<< /Type /Catalog /Pages 2 0 R >>',
      2: '<< /Type /Pages /Kids [4 0 R 5 0 R] /Count 2 >>',
      3: '<< /Broken ) ] >>',
      4: '<< /Type /Page /Parent 2 0 R >>',
      5: '<< /Type /Page /Parent 2 0 R >>',
    });
    expect(countPages(pdf, 'pdf')).toBe(2);
  });

  it('counts /Type /Page objects when there is no catalog at all', () => {
    const pdf = buildPdf({ 2: '<< /Type /Page >>', 3: '<< /Type /Page >>', 4: '<< /Type /Pages /Kids [] >>' }, { noTrailer: true });
    expect(countPages(pdf, 'pdf')).toBe(2);
  });

  it('accepts junk before the header (within 1024 bytes)', () => {
    expect(countPages(flatPdf(2, { prefix: 'x'.repeat(500) }), 'pdf')).toBe(2);
  });

  it.each<[string, () => Buffer, ErrorName, RegExp]>([
    ['an encrypted PDF', () => flatPdf(2, { trailer: '/Encrypt 9 0 R /ID [<00> <00>]' }), 'INVALID_FILE_FORMAT', /encrypted PDF/],
    ['an encrypted PDF with a cross-reference stream', () => Buffer.from(objectStreamPdf(1).toString('latin1').replace('/Root 1 0 R', '/Root 1 0 R /Encrypt 2 0 R'), 'latin1'), 'INVALID_FILE_FORMAT', /encrypted PDF/],
    ['a PDF with an empty page tree', () => buildPdf({ 1: '<< /Type /Catalog /Pages 2 0 R >>', 2: '<< /Type /Pages /Kids [] /Count 0 >>' }), 'INVALID_FILE_FORMAT', /PDF has no pages or is corrupt/],
    ['a header and nothing else', () => Buffer.from('%PDF-1.4\n%%EOF\n'), 'INVALID_FILE_FORMAT', /PDF has no pages or is corrupt/],
    ['no PDF header', () => Buffer.from('hello'), 'INVALID_FILE_FORMAT', /PDF has no pages or is corrupt/],
    ['a /Count beyond the sanity cap', () => buildPdf({ 1: '<< /Type /Catalog /Pages 2 0 R >>', 2: `<< /Type /Pages /Kids [7 0 R] /Count ${MAX_DOCUMENT_PAGES + 1} >>` }), 'FILE_TOO_LARGE', /more than 10000 pages/],
  ])('refuses %s', (_n, make, name, message) => {
    expectRefusal(() => countPages(make(), 'pdf'), name, message);
  });

  it.each([
    ['owner-rc4.pdf', 'RC4 128, R3'],
    ['owner-aes128-noprint.pdf', 'AES-128, R4, printing not allowed'],
    ['owner-aes256.pdf', 'AES-256, R6'],
  ])('counts %s (owner password only, %s; page tree in encrypted object streams)', (name) => {
    expect(countPages(fixture(name), 'pdf')).toBe(5);
  });

  it.each(['user-aes256.pdf', 'encrypted.pdf'])('refuses %s (a user password is needed)', (name) => {
    expectRefusal(() => countPages(fixture(name), 'pdf'), 'INVALID_FILE_FORMAT', /^Invalid file format: encrypted PDF \(remove the password protection/);
  });

  it('counts a scanner-style PDF that ends without startxref and %%EOF', () => {
    expect(countPages(fixture('no-eof.pdf'), 'pdf')).toBe(5);
  });

  it('refuses as truncated a real PDF cut inside its pages, its page tree lost', () => {
    const pdf = fixture('standard-fonts.pdf');
    expectRefusal(() => countPages(pdf.subarray(0, Math.floor(pdf.length * 0.4)), 'pdf'), 'INVALID_FILE_FORMAT', /PDF is truncated: its page tree is not in the file/);
  });

  it('counts the same bytes once, and a cut copy of them in the same memory afresh', () => {
    const pdf = Buffer.from(fixture('standard-fonts.pdf'));
    const n = countPages(pdf, 'pdf');
    expect(countPages(pdf, 'pdf')).toBe(n);
    expect(countPages(Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength), 'pdf')).toBe(n);
    expectRefusal(() => countPages(pdf.subarray(0, Math.floor(pdf.length * 0.4)), 'pdf'), 'INVALID_FILE_FORMAT', /PDF is truncated/);
    expectRefusal(() => countPages(pdf.subarray(1), 'pdf'), 'INVALID_FILE_FORMAT', /.+/);
  });

  it('refuses an object stream that inflates past 50 MB (decompression bomb)', () => {
    const bomb = deflateSync(Buffer.alloc(51 * 1024 * 1024, 0x20), { level: 9 });
    const pdf = buildPdf({
      1: '<< /Type /Catalog /Pages 2 0 R >>',
      3: `<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${bomb.length} >>\nstream\n${bomb.toString('latin1')}\nendstream`,
    });
    expectRefusal(() => countPages(pdf, 'pdf'), 'INVALID_FILE_FORMAT', /expand to more than 50 MB/);
  });
});

// ----------------------------------------------------------------- a minimal TIFF writer

type TiffPage = { width: number; height: number; omit?: number };

/**
 * Bilevel uncompressed TIFF (TIFF 6.0 section 3): one IFD per page with the baseline tags and a
 * single white strip. `big` writes BigTIFF (8-byte offsets, 20-byte entries).
 */
function buildTiff(pages: TiffPage[], opts: { be?: boolean; big?: boolean } = {}): Buffer {
  const le = !opts.be;
  const big = opts.big === true;
  const chunks: Buffer[] = [];
  let size = 0;
  const put = (b: Buffer): number => {
    const at = size;
    chunks.push(b);
    size += b.length;
    return at;
  };
  const num = (bytes: number, v: number): Buffer => {
    const b = Buffer.alloc(bytes);
    if (bytes === 2) le ? b.writeUInt16LE(v) : b.writeUInt16BE(v);
    else if (bytes === 4) le ? b.writeUInt32LE(v) : b.writeUInt32BE(v);
    else le ? b.writeBigUInt64LE(BigInt(v)) : b.writeBigUInt64BE(BigInt(v));
    return b;
  };
  const header = big
    ? Buffer.concat([Buffer.from(le ? 'II' : 'MM'), num(2, 43), num(2, 8), num(2, 0), num(8, 0)])
    : Buffer.concat([Buffer.from(le ? 'II' : 'MM'), num(2, 42), num(4, 0)]);
  put(header);
  const offSize = big ? 8 : 4;
  let patchAt = big ? 8 : 4; // where the offset of the next IFD goes
  const out = (): Buffer => Buffer.concat(chunks);
  for (const page of pages) {
    const strip = Buffer.alloc(Math.ceil(page.width / 8) * page.height); // WhiteIsZero: all white
    const stripAt = put(strip);
    if (size % 2) put(Buffer.alloc(1)); // IFDs start on a word boundary
    const tags: [number, number, number][] = [
      [256, 4, page.width], // ImageWidth LONG
      [257, 4, page.height], // ImageLength LONG
      [258, 3, 1], // BitsPerSample
      [259, 3, 1], // Compression none
      [262, 3, 0], // Photometric WhiteIsZero
      [273, 4, stripAt], // StripOffsets
      [277, 3, 1], // SamplesPerPixel
      [278, 4, page.height], // RowsPerStrip
      [279, 4, strip.length], // StripByteCounts
    ].filter(([t]) => t !== page.omit) as [number, number, number][];
    const entries = tags.map(([tag, type, value]) => {
      const count = big ? num(8, 1) : num(4, 1);
      const slot = Buffer.alloc(offSize);
      num(type === 3 ? 2 : 4, value).copy(slot);
      return Buffer.concat([num(2, tag), num(2, type), count, slot]);
    });
    const ifdAt = put(Buffer.concat([big ? num(8, entries.length) : num(2, entries.length), ...entries, Buffer.alloc(offSize)]));
    const whole = out();
    num(offSize, ifdAt).copy(whole, patchAt);
    chunks.length = 0;
    chunks.push(whole);
    patchAt = ifdAt + (big ? 8 : 2) + entries.length * (big ? 20 : 12);
  }
  return out();
}

const page = (width = 1728, height = 40): TiffPage => ({ width, height });

describe('countPages: TIFF', () => {
  it.each<[string, Buffer, number]>([
    ['little-endian, 1 page', buildTiff([page()]), 1],
    ['little-endian, 3 pages', buildTiff([page(), page(1728, 80), page()]), 3],
    ['big-endian, 2 pages', buildTiff([page(), page()], { be: true }), 2],
    ['BigTIFF, 2 pages', buildTiff([page(), page()], { big: true }), 2],
    ['big-endian BigTIFF, 3 pages', buildTiff([page(), page(), page()], { big: true, be: true }), 3],
  ])('%s', (_n, tiff, n) => {
    expect(sniffFormat(tiff)).toBe('tiff');
    expect(countPages(tiff, 'tiff')).toBe(n);
  });

  const withFirstIfd = (b: Buffer, off: number): Buffer => {
    const c = Buffer.from(b);
    c.writeUInt32LE(off, 4);
    return c;
  };
  /** Offset of the "next IFD" field of the last directory of a little-endian classic TIFF. */
  const lastNextField = (b: Buffer): number => {
    let off = b.readUInt32LE(4);
    for (;;) {
      const field = off + 2 + b.readUInt16LE(off) * 12;
      const next = b.readUInt32LE(field);
      if (next === 0) return field;
      off = next;
    }
  };

  it.each<[string, () => Buffer, ErrorName, RegExp]>([
    ['no directories at all (-3004)', () => withFirstIfd(buildTiff([page()]), 0), 'TIFF_EMPTY', /TIFF file is empty/],
    ['a first offset past the end', () => withFirstIfd(buildTiff([page()]), 1_000_000), 'INVALID_FILE_FORMAT', /offset 1000000 is outside the file/],
    ['a first offset inside the header', () => withFirstIfd(buildTiff([page()]), 4), 'INVALID_FILE_FORMAT', /offset 4 is outside the file/],
    [
      'a chain that loops',
      () => {
        const b = buildTiff([page(), page()]);
        b.writeUInt32LE(b.readUInt32LE(4), lastNextField(b));
        return b;
      },
      'INVALID_FILE_FORMAT',
      /loops back to offset/,
    ],
    [
      'a directory with no entries',
      () => {
        const b = buildTiff([page()]);
        b.writeUInt16LE(0, b.readUInt32LE(4));
        return b;
      },
      'INVALID_FILE_FORMAT',
      /has no entries/,
    ],
    [
      'a directory cut off by the end of the file',
      () => {
        const b = buildTiff([page()]);
        return b.subarray(0, b.length - 10);
      },
      'INVALID_FILE_FORMAT',
      /runs past the end of the file/,
    ],
    ['a page without ImageLength', () => buildTiff([page(), { ...page(), omit: 257 }]), 'INVALID_FILE_FORMAT', /TIFF page 2 has no ImageLength tag/],
    ['a page 0 pixels wide', () => buildTiff([page(0, 10)]), 'INVALID_FILE_FORMAT', /TIFF page 1 is 0×10 pixels/],
    ['a page 40000 pixels tall', () => buildTiff([page(8, 40_000)]), 'INVALID_FILE_FORMAT', /is 8×40000 pixels/],
    ['a truncated header', () => Buffer.from('II*\0'), 'INVALID_FILE_FORMAT', /header is truncated/],
  ])('refuses %s', (_n, make, name, message) => {
    expectRefusal(() => countPages(make(), 'tiff'), name, message);
  });

  it('TIFF_EMPTY carries code -3004', () => {
    expect(caughtFaxError(() => countPages(withFirstIfd(buildTiff([page()]), 0), 'tiff')).code).toBe(-3004);
  });
});

// ------------------------------------------------------------------------------- images

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

/** A complete, decodable greyscale PNG of width × height white pixels. */
function buildPng(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.writeUInt8(8, 8); // bit depth
  ihdr.writeUInt8(0, 9); // greyscale
  const raw = Buffer.alloc((width + 1) * Math.min(height, 4), 0xff);
  for (let y = 0; y < Math.min(height, 4); y++) raw[y * (width + 1)] = 0; // filter type None
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** JPEG header segments up to a baseline SOF0 (T.81 B.2.2), with an APP0 JFIF and a DQT before it. */
function buildJpeg(width: number, height: number, sof = 0xc0): Buffer {
  const seg = (marker: number, body: Buffer): Buffer => {
    const h = Buffer.from([0xff, marker, 0, 0]);
    h.writeUInt16BE(body.length + 2, 2);
    return Buffer.concat([h, body]);
  };
  const sofBody = Buffer.alloc(15);
  sofBody.writeUInt8(8, 0); // precision
  sofBody.writeUInt16BE(height, 1);
  sofBody.writeUInt16BE(width, 3);
  sofBody.writeUInt8(3, 5); // components
  sofBody.set([1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1], 6);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    seg(0xe0, Buffer.from('JFIF\0\x01\x01\0\0\x01\0\x01\0\0', 'latin1')),
    seg(0xdb, Buffer.concat([Buffer.from([0]), Buffer.alloc(64, 1)])),
    Buffer.from([0xff, 0xff]), // fill byte before a marker
    seg(sof, sofBody),
    seg(0xda, Buffer.from([1, 1, 0, 0, 0x3f, 0])),
    Buffer.from([0x12, 0x34, 0xff, 0xd9]),
  ]);
}

/** The classic 1×1 transparent GIF89a (43 bytes), with its logical screen size patched. */
function buildGif(width: number, height: number): Buffer {
  const b = Buffer.from('47494638396101000100800000ffffff00000021f90401000000002c00000000010001000002024401003b', 'hex');
  b.writeUInt16LE(width, 6);
  b.writeUInt16LE(height, 8);
  return b;
}

/** A 24-bit bottom-up BMP with BITMAPINFOHEADER and white pixels (rows padded to 4 bytes). */
function buildBmp(width: number, height: number, dib = 40): Buffer {
  const row = Math.ceil((width * 3) / 4) * 4;
  const pixels = Buffer.alloc(row * Math.abs(height), 0xff);
  const h = Buffer.alloc(14 + dib);
  h.write('BM', 0, 'latin1');
  h.writeUInt32LE(h.length + pixels.length, 2);
  h.writeUInt32LE(14 + dib, 10);
  h.writeUInt32LE(dib, 14);
  if (dib === 12) {
    h.writeUInt16LE(width, 18);
    h.writeUInt16LE(height, 20);
    h.writeUInt16LE(1, 22);
    h.writeUInt16LE(24, 24);
  } else {
    h.writeInt32LE(width, 18);
    h.writeInt32LE(height, 22);
    h.writeUInt16LE(1, 26);
    h.writeUInt16LE(24, 28);
  }
  return Buffer.concat([h, pixels]);
}

function riff(chunk: string, payload: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(chunk, 'latin1'), Buffer.alloc(4), payload]);
  body.writeUInt32LE(payload.length, 4);
  const head = Buffer.from('RIFF\0\0\0\0WEBP', 'latin1');
  head.writeUInt32LE(4 + body.length, 4);
  return Buffer.concat([head, body]);
}

/** WebP lossless header (signature 0x2f, 14-bit width-1 and height-1). */
function buildWebpLossless(width: number, height: number): Buffer {
  const p = Buffer.alloc(10);
  p[0] = 0x2f;
  p.writeUInt32LE(((width - 1) | ((height - 1) << 14)) >>> 0, 1);
  return riff('VP8L', p);
}

/** WebP lossy key frame header (RFC 6386 9.1). */
function buildWebpLossy(width: number, height: number): Buffer {
  const p = Buffer.alloc(12);
  p.set([0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a], 0);
  p.writeUInt16LE(width, 6);
  p.writeUInt16LE(height, 8);
  return riff('VP8 ', p);
}

function buildWebpExtended(width: number, height: number): Buffer {
  const p = Buffer.alloc(10);
  p.writeUIntLE(width - 1, 4, 3);
  p.writeUIntLE(height - 1, 7, 3);
  return riff('VP8X', p);
}

describe('countPages: images are one page, with dimensions checked', () => {
  it.each<[string, Buffer, 'png' | 'jpeg' | 'gif' | 'webp' | 'bmp', number, number]>([
    ['PNG', buildPng(3, 2), 'png', 3, 2],
    ['JPEG baseline', buildJpeg(640, 480), 'jpeg', 640, 480],
    ['JPEG progressive', buildJpeg(1700, 2200, 0xc2), 'jpeg', 1700, 2200],
    ['GIF', buildGif(10, 20), 'gif', 10, 20],
    ['BMP', buildBmp(5, 3), 'bmp', 5, 3],
    ['BMP top-down', buildBmp(5, -3), 'bmp', 5, 3],
    ['BMP core header', buildBmp(7, 2, 12), 'bmp', 7, 2],
    ['WebP lossless', buildWebpLossless(300, 200), 'webp', 300, 200],
    ['WebP lossy', buildWebpLossy(320, 240), 'webp', 320, 240],
    ['WebP extended', buildWebpExtended(4000, 3000), 'webp', 4000, 3000],
  ])('%s', (_n, bytes, format, width, height) => {
    expect(sniffFormat(bytes)).toBe(format);
    expect(imageDimensions(bytes, format)).toEqual({ width, height });
    expect(countPages(bytes, format)).toBe(1);
  });

  it.each<[string, Buffer, 'png' | 'jpeg' | 'gif' | 'webp' | 'bmp', RegExp]>([
    ['a 0-wide PNG', buildPng(0, 2), 'png', /PNG image is 0×2 pixels/],
    ['a PNG 40000 tall', buildPng(1, 40_000), 'png', /1×40000 pixels; each side must be 1 to 30000/],
    ['a truncated PNG', buildPng(3, 2).subarray(0, 20), 'png', /PNG header is truncated/],
    ['a PNG whose first chunk is not IHDR', Buffer.concat([buildPng(1, 1).subarray(0, 8), pngChunk('tEXt', Buffer.alloc(13))]), 'png', /IHDR/],
    ['a JPEG of height 0', buildJpeg(10, 0), 'jpeg', /JPEG image is 10×0 pixels/],
    ['a JPEG without a frame header', Buffer.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x08, 1, 1, 0, 0, 0x3f, 0, 0xff, 0xd9]), 'jpeg', /no frame header/],
    ['a JPEG cut before its frame header', buildJpeg(10, 10).subarray(0, 30), 'jpeg', /JPEG header is truncated/],
    ['a JPEG with garbage between segments', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0, 0, 0x12, 0x34, 0, 0]), 'jpeg', /marker expected at byte 8/],
    ['a GIF 0×0', buildGif(0, 0), 'gif', /GIF image is 0×0/],
    [
      'a BMP 50000 wide',
      (() => {
        const b = buildBmp(1, 1);
        b.writeInt32LE(50_000, 18);
        return b;
      })(),
      'bmp',
      /BMP image is 50000×1 pixels/,
    ],
    ['a WebP lossy without a start code', Buffer.from(buildWebpLossy(1, 1)).fill(0, 23, 26), 'webp', /no start code/],
  ])('refuses %s', (_n, bytes, format, message) => {
    expectRefusal(() => countPages(bytes, format), 'INVALID_FILE_FORMAT', message);
  });
});

// --------------------------------------------------------------------------------- text

const text = (s: string): Buffer => Buffer.from(s, 'utf8');
const lines = (n: number, width = 10): string => Array.from({ length: n }, (_, i) => `${i}`.padEnd(width, 'x')).join('\n');

describe('countPages: text laid out 80 × 60', () => {
  it.each<[string, string, number]>([
    ['one line', 'hello', 1],
    ['60 lines fill one page', lines(60), 1],
    ['60 lines and a final newline', `${lines(60)}\n`, 1],
    ['61 lines need two pages', lines(61), 2],
    ['180 lines', lines(180), 3],
    ['a line of 80 fits one row', 'x'.repeat(80), 1],
    ['59 lines + one of 81 chars wraps onto page 2', `${lines(59)}\n${'y'.repeat(81)}`, 2],
    ['a form feed starts a new page', 'page one\fpage two', 2],
    ['a trailing form feed adds nothing', 'page one\f', 1],
    ['two form feeds in a row leave a blank page', 'a\f\fb', 3],
    ['CRLF line ends', lines(61).replace(/\n/g, '\r\n'), 2],
    ['a UTF-8 BOM and accents', '\ufeffcafé crème', 1],
  ])('%s → %d', (_n, s, n) => {
    expect(countPages(text(s), 'text')).toBe(n);
  });

  it('wraps at 80 columns counting characters, expands tabs to 8, drops other controls', () => {
    const pages = layoutText(`${'é'.repeat(85)}\n\tx\ta\u0007b`);
    expect(pages).toHaveLength(1);
    expect(pages[0]).toEqual(['é'.repeat(80), 'é'.repeat(5), '        x       ab']);
    expect(pages[0]?.every((row) => [...row].length <= TEXT_COLUMNS)).toBe(true);
  });

  it('never lets a page exceed 60 lines', () => {
    const pages = layoutText('z'.repeat(TEXT_COLUMNS * (TEXT_LINES_PER_PAGE + 1)));
    expect(pages.map((p) => p.length)).toEqual([TEXT_LINES_PER_PAGE, 1]);
  });

  it.each(['', '   \n\t\n', '\f\f'])('refuses empty text %j', (s) => {
    expectRefusal(() => countPages(text(s), 'text'), 'INVALID_FILE_FORMAT', /empty text document/);
  });

  it('stops at the sanity cap instead of laying out everything', () => {
    expectRefusal(() => countPages(text('x\f'.repeat(MAX_DOCUMENT_PAGES + 5)), 'text'), 'FILE_TOO_LARGE', /more than 10000 pages/);
  });
});
