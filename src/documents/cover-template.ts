// Cover-page templates (docs/api.md decision 15): UTF-8 text with {{subject}}, {{from_name}},
// {{to_name}}, {{message}}, {{date}} and {{pages}} placeholders, filled in one pass with the
// fax's fields and typeset as a one-page A4 PDF (Helvetica, see cover-page.ts), drawn through the
// same PDF renderer as the default cover page. A template line starting with "# " is a heading.
// Substituted values are user text: never scanned for placeholders again, never markup.

import { FaxError } from '../shared/errors.js';
import { formatDateTime } from './header-line.js';
import { wrapText, type CoverInfo } from './cover-text.js';
import { A4_POINTS, buildPdf, FONT_RESOURCE, pdfLiteral, pdfNumber, toWinAnsi } from './pdf-writer.js';

export const TEMPLATE_FIELDS = ['subject', 'from_name', 'to_name', 'message', 'date', 'pages'] as const;
export type TemplateField = (typeof TEMPLATE_FIELDS)[number];

/** `{{name}}`, spaces inside the braces allowed. */
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
/** Most characters of a template's text. */
export const MAX_TEMPLATE_CHARS = 20_000;

const isField = (name: string): name is TemplateField => (TEMPLATE_FIELDS as readonly string[]).includes(name);

/**
 * Checks a template's text: every placeholder one of TEMPLATE_FIELDS, no stray `{{` or `}}`.
 * Refuses with INVALID_PARAMETER naming the unknown placeholders (`field` is the request field).
 * Returns the fields the template uses.
 */
export function checkCoverTemplate(text: string, field = 'fileData'): TemplateField[] {
  if ([...text].length > MAX_TEMPLATE_CHARS) {
    throw new FaxError('INVALID_PARAMETER', `the template has more than ${MAX_TEMPLATE_CHARS} characters (a cover page is one page)`, { field });
  }
  const unknown = new Set<string>();
  const used = new Set<TemplateField>();
  for (const m of text.matchAll(PLACEHOLDER)) {
    const name = m[1]!;
    if (isField(name)) used.add(name);
    else unknown.add(`{{${name}}}`);
  }
  const known = TEMPLATE_FIELDS.map((f) => `{{${f}}}`).join(', ');
  if (unknown.size > 0) {
    const list = [...unknown].slice(0, 10).map((s) => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s));
    throw new FaxError('INVALID_PARAMETER', `the template has unknown placeholders ${list.join(', ')}; the known ones are ${known}`, { field });
  }
  const rest = text.replace(PLACEHOLDER, '');
  const stray = /\{\{|\}\}/.exec(rest);
  if (stray) {
    throw new FaxError('INVALID_PARAMETER', `the template has a stray "${stray[0]}" on line ${strayLine(text)}; placeholders are written ${known}`, { field });
  }
  return [...used];
}

/** Line (1-based) of the first `{{` or `}}` that is not part of a placeholder. */
function strayLine(text: string): number {
  const masked = text.replace(PLACEHOLDER, (m) => ' '.repeat(m.length));
  return masked.slice(0, Math.max(0, masked.search(/\{\{|\}\}/))).split(/\r\n?|\n/).length;
}

/** The values of the placeholders for a fax's cover fields ('' when a field is not given). */
export function templateValues(info: CoverInfo): Record<TemplateField, string> {
  const line = (s: string | undefined) => (s ?? '').replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  const date = info.date === undefined ? '' : typeof info.date === 'string' ? info.date : formatDateTime(info.date, info.timeZone);
  return {
    subject: line(info.subject),
    from_name: line(info.fromName),
    to_name: line(info.toName),
    // Line breaks kept, tabs as four spaces, other control characters dropped.
    message: (info.message ?? '').trim().replace(/\r\n?/g, '\n').replace(/\t/g, '    ').replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, ''),
    date: line(date),
    pages: info.pageCount === undefined ? '' : String(info.pageCount),
  };
}

/** One pass over the template: every placeholder replaced by its value, values never rescanned. */
export function fillCoverTemplate(text: string, values: Record<TemplateField, string>): string {
  return text.replace(PLACEHOLDER, (m, name: string) => (isField(name) ? values[name] : m));
}

const PAGE = A4_POINTS;
const MARGIN = 57;
const BOTTOM = 60;

interface Line {
  heading: boolean;
  latin1: string;
}

/** The template filled with the fax's fields, as a one-page A4 PDF; text beyond the page is cut with "…". */
export function templateCoverPdf(template: string, info: CoverInfo): Buffer {
  const values = templateValues(info);
  // Headings are decided on the template's own lines, before substitution, so a value can never make one.
  const lines: Line[] = [];
  for (const raw of template.replace(/^\ufeff/, '').replace(/\r\n?/g, '\n').split('\n')) {
    const heading = raw.startsWith('# ');
    const filled = fillCoverTemplate(heading ? raw.slice(2) : raw, values);
    for (const part of filled.split('\n')) {
      const clean = part.replace(/\t/g, '    ').replace(/[\u0000-\u001f\u007f]/g, '');
      lines.push({ heading, latin1: toWinAnsi(clean).latin1 });
    }
  }
  const ops: string[] = [];
  const width = PAGE.width - 2 * MARGIN;
  // The largest body size (12, 11, 10, 9 pt) at which the whole template fits; cut at 9 pt.
  for (const size of [12, 11, 10, 9]) {
    const headSize = size * 2;
    const wrapped = lines.flatMap((l) =>
      wrapText(l.latin1, l.heading ? headSize : size, width).map((latin1) => ({ heading: l.heading, latin1 })),
    );
    const leadingOf = (l: Line) => (l.heading ? headSize : size) * 1.3;
    let y = PAGE.height - 72;
    let fits = true;
    const placed: { l: Line; y: number }[] = [];
    for (const l of wrapped) {
      if (y < BOTTOM) {
        fits = false;
        break;
      }
      placed.push({ l, y });
      y -= leadingOf(l);
    }
    if (!fits && size > 9) continue;
    if (!fits && placed.length > 0) {
      const last = placed[placed.length - 1]!;
      last.l = { ...last.l, latin1: `${last.l.latin1.replace(/.{0,2}$/, '')}\x85` }; // "…"
    }
    for (const { l, y: at } of placed) {
      if (l.latin1 === '') continue;
      const font = l.heading ? 'Helvetica-Bold' : 'Helvetica';
      ops.push(`BT /${FONT_RESOURCE[font]} ${l.heading ? headSize : size} Tf ${pdfNumber(MARGIN)} ${pdfNumber(at)} Td ${pdfLiteral(l.latin1)} Tj ET`);
    }
    break;
  }
  return buildPdf([{ width: PAGE.width, height: PAGE.height, content: ops.join('\n') }]);
}
