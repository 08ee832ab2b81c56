// The cover page: a one-page PDF we typeset ourselves (Helvetica from the standard 14 fonts, see
// pdf-writer.ts) with the fax's subject, sender, recipient, date, page count and message, drawn
// through the same PDF renderer as any attachment.

import { templateCoverPdf } from './cover-template.js';
import { LETTERHEAD_TOP_MM, type Letterhead } from './letterhead.js';
import { formatDateTime } from './header-line.js';
import { A4_POINTS, buildPdf, FONT_RESOURCE, pdfLiteral, pdfNumber, toWinAnsi } from './pdf-writer.js';

export interface CoverInfo {
  subject?: string;
  fromName?: string;
  toName?: string;
  message?: string;
  /** Sender's fax number. */
  senderNumber?: string;
  /** Recipient's fax number. */
  toNumber?: string;
  /** A Date (formatted "YYYY-MM-DD HH:MM zone" in `timeZone`, default UTC) or ready text. */
  date?: Date | string;
  timeZone?: string;
  /** Pages of the whole fax, cover included. */
  pageCount?: number;
  /** A cover-page template's text (cover-template.ts): the page is the template filled with these fields. */
  template?: string;
  /** A letterhead (letterhead.ts): drawn under the fields, which start lower and without the title. */
  background?: Letterhead;
}

/** Helvetica advance widths (AFM, 1/1000 em) of WinAnsi 0x20–0x7E; other codes use 556. */
const HELVETICA_WIDTHS = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556, 556, 556, 556,
  278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667,
  611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833,
  556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
];

/** Width of Latin-1 text in Helvetica at `size` points. */
export function helveticaWidth(latin1: string, size: number): number {
  let w = 0;
  for (let i = 0; i < latin1.length; i++) {
    const c = latin1.charCodeAt(i);
    w += c >= 0x20 && c <= 0x7e ? HELVETICA_WIDTHS[c - 0x20]! : 556;
  }
  return (w * size) / 1000;
}

/** Greedy word wrap of Latin-1 text to `width` points; words longer than a line are broken. */
export function wrapText(latin1: string, size: number, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of latin1.replace(/\r\n?/g, '\n').split('\n')) {
    let line = '';
    for (const word of paragraph.split(/ +/)) {
      const candidate = line === '' ? word : `${line} ${word}`;
      if (helveticaWidth(candidate, size) <= width) {
        line = candidate;
        continue;
      }
      if (line !== '') lines.push(line);
      line = word;
      while (helveticaWidth(line, size) > width && line.length > 1) {
        let cut = line.length - 1;
        while (cut > 1 && helveticaWidth(line.slice(0, cut), size) > width) cut--;
        lines.push(line.slice(0, cut));
        line = line.slice(cut);
      }
    }
    lines.push(line);
  }
  return lines;
}

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
