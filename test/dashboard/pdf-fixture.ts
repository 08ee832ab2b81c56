// A real PDF for dashboard upload tests (the project's own PDF writer, standard fonts).
import { buildPdf, FONT_RESOURCE } from '../../src/documents/pdf-writer.js';

/** A PDF of `pages` A4 pages, each with a line of text and a rule. */
export function pdfDoc(pages: number): Buffer {
  return buildPdf(Array.from({ length: pages }, (_, i) => ({
    width: 595.28, height: 841.89, content: `BT /${FONT_RESOURCE.Helvetica} 24 Tf 72 720 Td (Dashboard page ${i + 1}) Tj ET 0 0 0 RG 4 w 72 600 m 520 600 l S`,
  })));
}
