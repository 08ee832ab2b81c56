// Plain text (UTF-8) → fax pages: laid out by page-count.ts's layoutText (80 columns × 60 lines,
// tabs to 8, form feed = new page — the same layout that counted the pages), typeset as a small
// PDF in the standard Courier font and drawn through the PDF renderer, so no system font is used.

import { FaxError } from '../shared/errors.js';
import type { GrayPage } from './bilevel.js';
import type { FaxResolution } from './layout.js';
import { layoutText, TEXT_COLUMNS, TEXT_LINES_PER_PAGE } from './page-count.js';
import { A4_POINTS, buildPdf, FONT_RESOURCE, pdfLiteral, pdfNumber, toWinAnsi, type PdfPageSpec } from './pdf-writer.js';
import { renderPdfPages, type PdfRenderOptions } from './render-pdf.js';

/** Courier 10 pt: 6 pt per column, 80 columns = 480 pt (169 mm); 12 pt leading, 60 lines = 720 pt (254 mm). */
const TEXT_FONT_SIZE = 10;
const TEXT_LEADING = 12;

/** UTF-8 bytes → text (a leading BOM dropped; invalid sequences become U+FFFD, then `?`). */
export function decodeUtf8(bytes: Uint8Array): string {
  let text = new TextDecoder('utf-8').decode(bytes);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return text;
}

/** One A4 page of monospace lines, centred: 57.6 pt side margins, 61 pt top and bottom. */
function textPageSpec(lines: readonly string[]): PdfPageSpec {
  const { width, height } = A4_POINTS;
  const left = (width - TEXT_COLUMNS * TEXT_FONT_SIZE * 0.6) / 2;
  const top = (height - TEXT_LINES_PER_PAGE * TEXT_LEADING) / 2;
  // First baseline: one leading below the top of the text block, less Courier's descent (≈ 2 pt).
  const baseline = height - top - TEXT_LEADING + 2.5;
  const ops = ['BT', `/${FONT_RESOURCE.Courier} ${TEXT_FONT_SIZE} Tf`, `${TEXT_LEADING} TL`, `${pdfNumber(left)} ${pdfNumber(baseline)} Td`];
  for (const line of lines) {
    const text = toWinAnsi(line).latin1.replace(/\s+$/, '');
    ops.push(text === '' ? 'T*' : `${pdfLiteral(text)} Tj T*`);
  }
  ops.push('ET');
  return { width, height, content: ops.join('\n') };
}

/** The PDF of the selected text pages (1-based, in order), one PDF page each. */
export function textToPdf(bytes: Uint8Array, pages: readonly number[]): Buffer {
  const laidOut = layoutText(decodeUtf8(bytes));
  return buildPdf(
    pages.map((n) => {
      const lines = laidOut[n - 1];
      if (!Number.isInteger(n) || lines === undefined) {
        throw new FaxError('INVALID_PARAMETER', `page ${n} does not exist (the text has ${laidOut.length} ${laidOut.length === 1 ? 'page' : 'pages'})`);
      }
      return textPageSpec(lines);
    }),
  );
}

/**
 * Renders the selected pages of a text document. Characters outside WinAnsi (the character set of
 * the standard fonts) print as their base letter (č → c) or as `?`; one column either way.
 */
export async function* renderTextPages(
  bytes: Uint8Array,
  pages: readonly number[],
  res: FaxResolution,
  opts: PdfRenderOptions = {},
): AsyncGenerator<{ gray: GrayPage; page: number }> {
  const pdf = textToPdf(bytes, pages);
  for await (const { gray, page } of renderPdfPages(pdf, pages.map((_, i) => i + 1), res, opts)) yield { gray, page: pages[page - 1]! };
}
