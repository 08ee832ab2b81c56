// A minimal PDF writer (ISO 32000-1 7.5: header, indirect objects, xref table, trailer) for the
// pages we draw ourselves — text documents, the cover page, the header glyphs — with the
// standard 14 fonts (9.6.2.2) in WinAnsiEncoding (Annex D), so no font file is ever needed:
// pdfjs renders them from its own standard_fonts data.

export type StandardFont = 'Helvetica' | 'Helvetica-Bold' | 'Times-Roman' | 'Courier' | 'Courier-Bold';

/** Resource names used in content streams: `/Helvetica 12 Tf` etc. */
export const FONT_RESOURCE: Readonly<Record<StandardFont, string>> = {
  Helvetica: 'F1',
  'Helvetica-Bold': 'F2',
  'Times-Roman': 'F3',
  Courier: 'F4',
  'Courier-Bold': 'F5',
};

export interface PdfPageSpec {
  /** Page size in points (1/72 in). */
  width: number;
  height: number;
  /** The page's content stream (PDF operators), Latin-1 text. */
  content: string;
}

/** A4 in points. */
export const A4_POINTS = { width: 595.28, height: 841.89 } as const;

const num = (v: number): string => (Number.isInteger(v) ? String(v) : v.toFixed(2));

/** Builds a PDF whose pages have the given content streams; every page can use all fonts of FONT_RESOURCE. */
export function buildPdf(pages: PdfPageSpec[]): Buffer {
  if (pages.length === 0) throw new RangeError('buildPdf: at least one page');
  const fonts = Object.entries(FONT_RESOURCE) as [StandardFont, string][];
  // Object numbers: 1 catalog, 2 page tree, 3.. fonts, then a page and its content per page.
  const firstPage = 3 + fonts.length;
  const objects: string[] = [];
  objects.push('<< /Type /Catalog /Pages 2 0 R >>');
  const kids = pages.map((_, i) => `${firstPage + 2 * i} 0 R`).join(' ');
  objects.push(`<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`);
  for (const [base] of fonts) objects.push(`<< /Type /Font /Subtype /Type1 /BaseFont /${base} /Encoding /WinAnsiEncoding >>`);
  const fontDict = fonts.map(([, res], i) => `/${res} ${3 + i} 0 R`).join(' ');
  pages.forEach((p, i) => {
    const contentRef = firstPage + 2 * i + 1;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${num(p.width)} ${num(p.height)}] ` +
        `/Resources << /Font << ${fontDict} >> >> /Contents ${contentRef} 0 R >>`,
    );
    objects.push(`<< /Length ${Buffer.byteLength(p.content, 'latin1')} >>\nstream\n${p.content}\nendstream`);
  });
  const chunks: string[] = ['%PDF-1.4\n%\xe2\xe3\xcf\xd3\n'];
  let length = Buffer.byteLength(chunks[0]!, 'latin1');
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    const obj = `${i + 1} 0 obj\n${body}\nendobj\n`;
    offsets.push(length);
    chunks.push(obj);
    length += Buffer.byteLength(obj, 'latin1');
  });
  let xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) xref += `${String(o).padStart(10, '0')} 00000 n \n`;
  chunks.push(xref, `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`);
  return Buffer.from(chunks.join(''), 'latin1');
}

/** WinAnsiEncoding (ISO 32000-1 Annex D.2) codes 0x80–0x9F; 0x20–0x7E and 0xA0–0xFF are Latin-1. */
const WIN_ANSI_HIGH: ReadonlyMap<number, number> = new Map([
  [0x20ac, 0x80], [0x201a, 0x82], [0x0192, 0x83], [0x201e, 0x84], [0x2026, 0x85], [0x2020, 0x86],
  [0x2021, 0x87], [0x02c6, 0x88], [0x2030, 0x89], [0x0160, 0x8a], [0x2039, 0x8b], [0x0152, 0x8c],
  [0x017d, 0x8e], [0x2018, 0x91], [0x2019, 0x92], [0x201c, 0x93], [0x201d, 0x94], [0x2022, 0x95],
  [0x2013, 0x96], [0x2014, 0x97], [0x02dc, 0x98], [0x2122, 0x99], [0x0161, 0x9a], [0x203a, 0x9b],
  [0x0153, 0x9c], [0x017e, 0x9e], [0x0178, 0x9f],
]);
/** Letters without a decomposition whose plain look-alike is obvious. */
const LOOKALIKE: ReadonlyMap<number, string> = new Map([
  [0x0141, 'L'], [0x0142, 'l'], [0x0110, 'D'], [0x0111, 'd'], [0x0131, 'i'], [0x0126, 'H'], [0x0127, 'h'],
  [0x2212, '-'], [0x2010, '-'], [0x2011, '-'], [0x00a0, ' '], [0x2007, ' '], [0x202f, ' '], [0x2032, "'"], [0x2033, '"'],
]);

function winAnsiCode(c: number): number | undefined {
  if ((c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xff)) return c;
  return WIN_ANSI_HIGH.get(c);
}

/**
 * One WinAnsi byte per character (code point), so monospace columns stay where the text layout
 * put them. A character outside WinAnsi becomes its base letter when it is a letter with
 * diacritics (č → c, ő → o, Ł → L) and `?` otherwise (CJK, emoji, symbols). Returns the Latin-1
 * string and how many characters were replaced by `?`.
 */
export function toWinAnsi(text: string): { latin1: string; replaced: number } {
  let out = '';
  let replaced = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    const code = winAnsiCode(c);
    if (code !== undefined) {
      out += String.fromCharCode(code);
      continue;
    }
    const alike = LOOKALIKE.get(c);
    if (alike !== undefined) {
      out += alike;
      continue;
    }
    // NFD splits a precomposed letter into base + combining marks (U+0300–U+036F).
    const base = ch.normalize('NFD');
    const b = base.codePointAt(0)!;
    if (base.length > 1 && /^.[\u0300-\u036f]+$/u.test(base) && winAnsiCode(b) !== undefined) {
      out += String.fromCharCode(winAnsiCode(b)!);
      continue;
    }
    out += '?';
    replaced++;
  }
  return { latin1: out, replaced };
}

/** A PDF literal string (7.3.4.2) of Latin-1 text: backslash, parentheses and CR escaped. */
export function pdfLiteral(latin1: string): string {
  return `(${latin1.replace(/[\\()]/g, '\\$&').replace(/\r/g, '\\r')})`;
}

/** `(text) Tj`-ready literal of any text, through toWinAnsi(). */
export function pdfText(text: string): string {
  return pdfLiteral(toWinAnsi(text).latin1);
}

export { num as pdfNumber };
