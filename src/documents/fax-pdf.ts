// A fax as PDF: each page of a TIFF class F file becomes one PDF page holding the page's
// T.6 (MMR) data as a CCITTFaxDecode image (ISO 32000-1 7.4.6), so the PDF shows exactly the
// transmitted pixels at their resolution, without re-encoding and at the size of the TIFF.
import { encodeMMR } from '../codecs/index.js';
import { FaxError } from '../shared/errors.js';
import { readTiff, readTiffDirectories } from './tiff-read.js';

/** Converts a TIFF (any bilevel compression) to a PDF with one CCITT G4 image per page. */
export function tiffToPdf(tiff: Uint8Array, opts: { title?: string } = {}): Buffer {
  const dirs = readTiffDirectories(tiff);
  if (dirs.length === 0) throw new FaxError('TIFF_EMPTY', 'no pages to convert');
  // MMR strips that are already one per page in FillOrder 1 go in as they are; others are re-encoded.
  const direct = dirs.every((d) => d.compression === 'mmr' && d.fillOrder === 1 && d.strips.length === 1);
  const pages = direct
    ? dirs.map((d) => ({ width: d.width, height: d.height, xDpi: d.xDpi ?? 204, yDpi: d.yDpi ?? 196, g4: d.strips[0]! }))
    : readTiff(tiff).map((p) => ({ width: p.width, height: p.height, xDpi: p.xDpi ?? 204, yDpi: p.yDpi ?? 196, g4: encodeMMR(p.bitmap) }));

  const objects: Buffer[] = [];
  const add = (body: Buffer | string) => (objects.push(typeof body === 'string' ? Buffer.from(body, 'latin1') : body), objects.length);
  const catalog = add(''); // filled in below
  const pagesObj = add('');
  const kids: number[] = [];
  for (const p of pages) {
    const image = add(
      Buffer.concat([
        Buffer.from(
          `<< /Type /XObject /Subtype /Image /Width ${p.width} /Height ${p.height} /ColorSpace /DeviceGray /BitsPerComponent 1 ` +
            `/Filter /CCITTFaxDecode /DecodeParms << /K -1 /Columns ${p.width} /Rows ${p.height} >> /Length ${p.g4.length} >>\nstream\n`,
          'latin1',
        ),
        Buffer.from(p.g4.buffer, p.g4.byteOffset, p.g4.byteLength),
        Buffer.from('\nendstream', 'latin1'),
      ]),
    );
    const w = pt((p.width / p.xDpi) * 72);
    const h = pt((p.height / p.yDpi) * 72);
    const draw = `q ${w} 0 0 ${h} 0 0 cm /Im0 Do Q`;
    const content = add(`<< /Length ${draw.length} >>\nstream\n${draw}\nendstream`);
    kids.push(add(`<< /Type /Page /Parent ${pagesObj} 0 R /MediaBox [0 0 ${w} ${h}] /Resources << /XObject << /Im0 ${image} 0 R >> >> /Contents ${content} 0 R >>`));
  }
  objects[catalog - 1] = Buffer.from(`<< /Type /Catalog /Pages ${pagesObj} 0 R >>`, 'latin1');
  objects[pagesObj - 1] = Buffer.from(`<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`, 'latin1');
  const info = add(`<< /Producer (faxstack)${opts.title ? ` /Title (${pdfString(opts.title)})` : ''} >>`);

  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    const head = Buffer.from(`${i + 1} 0 obj\n`, 'latin1');
    const tail = Buffer.from('\nendobj\n', 'latin1');
    offsets.push(offset);
    parts.push(head, body, tail);
    offset += head.length + body.length + tail.length;
  });
  const xref = ['xref', `0 ${objects.length + 1}`, '0000000000 65535 f ', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `)].join('\n');
  parts.push(Buffer.from(`${xref}\ntrailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R /Info ${info} 0 R >>\nstartxref\n${offset}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

// Enough digits that a renderer at the page's own dpi lands exactly on its pixel grid.
const pt = (v: number) => Number(v.toFixed(6));

/** A PDF literal string body: printable ASCII, with the delimiters escaped. */
function pdfString(s: string): string {
  return s.replace(/[^\x20-\x7e]/g, '?').replace(/[\\()]/g, (c) => `\\${c}`);
}
