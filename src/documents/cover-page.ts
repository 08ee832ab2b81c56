// The cover page: a one-page PDF we typeset ourselves (Helvetica from the standard 14 fonts, see
// pdf-writer.ts) with the fax's subject, sender, recipient, date, page count and message, drawn
// through the same PDF renderer as any attachment.

import { wrapText, type CoverInfo } from './cover-text.js';
import { templateCoverPdf } from './cover-template.js';
import { LETTERHEAD_TOP_MM } from './letterhead.js';
import { formatDateTime } from './header-line.js';
export type { CoverInfo } from './cover-text.js';
import { A4_POINTS, buildPdf, FONT_RESOURCE, pdfLiteral, pdfNumber, toWinAnsi } from './pdf-writer.js';

const PAGE = A4_POINTS;
const MARGIN = 57;
const LABEL_WIDTH = 110;

/** The cover page as a one-page A4 PDF. */
export function coverPagePdf(info: CoverInfo): Buffer {
  if (info.template !== undefined) return templateCoverPdf(info.template, info);
  const ops: string[] = [];
  const text = (font: keyof typeof FONT_RESOURCE, size: number, x: number, y: number, latin1: string): void => {
    ops.push(`BT /${FONT_RESOURCE[font]} ${size} Tf ${pdfNumber(x)} ${pdfNumber(y)} Td ${pdfLiteral(latin1)} Tj ET`);
  };
  const rule = (y: number, weight: number): void => {
    ops.push(`${weight} w ${MARGIN} ${pdfNumber(y)} m ${pdfNumber(PAGE.width - MARGIN)} ${pdfNumber(y)} l S`);
  };
  let y = PAGE.height - 100;
  if (info.background) {
    y = PAGE.height - (LETTERHEAD_TOP_MM * 72) / 25.4 - 14;
  } else {
    text('Helvetica-Bold', 40, MARGIN, y, 'FAX');
    y -= 18;
    rule(y, 3);
    y -= 34;
  }

  const date = info.date === undefined ? undefined : typeof info.date === 'string' ? info.date : formatDateTime(info.date, info.timeZone);
  const rows: [string, string | undefined][] = [
    ['To:', joinParts(info.toName, info.toNumber)],
    ['From:', joinParts(info.fromName, info.senderNumber)],
    ['Date:', date],
    ['Pages:', info.pageCount === undefined ? undefined : `${info.pageCount} (including this cover page)`],
    ['Subject:', info.subject],
  ];
  const valueWidth = PAGE.width - 2 * MARGIN - LABEL_WIDTH;
  for (const [label, value] of rows) {
    if (value === undefined || value.trim() === '') continue;
    const lines = wrapText(toWinAnsi(value.trim().replace(/\s+/g, ' ')).latin1, 14, valueWidth).slice(0, 4);
    text('Helvetica-Bold', 14, MARGIN, y, label);
    for (const line of lines) {
      text('Helvetica', 14, MARGIN + LABEL_WIDTH, y, line);
      y -= 20;
    }
    y -= 6;
  }
  y -= 4;
  rule(y, 1);
  y -= 30;

  const message = info.message?.trim();
  if (message) {
    // Line breaks kept, tabs as four spaces, other control characters dropped.
    const latin1 = message
      .split(/\r\n?|\n/)
      .map((line) => toWinAnsi(line.replace(/\t/g, '    ').replace(/[\u0000-\u001f\u007f]/g, '')).latin1)
      .join('\n');
    const bottom = 60;
    // The largest size (12, 11, 10, 9 pt) at which the whole message fits; truncated at 9 pt.
    for (const size of [12, 11, 10, 9]) {
      const leading = size * 1.3;
      const lines = wrapText(latin1, size, PAGE.width - 2 * MARGIN);
      const room = Math.floor((y - bottom) / leading) + 1;
      if (lines.length > room && size > 9) continue;
      const shown = lines.slice(0, room);
      if (lines.length > room) shown[room - 1] = `${shown[room - 1]!.replace(/.{0,2}$/, '')}\x85`; // "…"
      for (const line of shown) {
        text('Helvetica', size, MARGIN, y, line);
        y -= leading;
      }
      break;
    }
  }
  return buildPdf([{ width: PAGE.width, height: PAGE.height, content: ops.join('\n') }]);
}

function joinParts(name: string | undefined, number: string | undefined): string | undefined {
  const parts = [name?.trim(), number?.trim()].filter((s): s is string => !!s);
  if (parts.length === 0) return undefined;
  return parts.length === 2 ? `${parts[0]} (${parts[1]})` : parts[0];
}
