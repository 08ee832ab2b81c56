// What the cover page and its templates share: the fields a cover page shows, and Helvetica
// metrics with a greedy word wrap (the standard 14 font both typeset in, see pdf-writer.ts).
import type { Letterhead } from './letterhead.js';

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
