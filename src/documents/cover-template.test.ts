import { describe, expect, it } from 'vitest';
import { blackIn, inkBox } from '../../test/helpers/documents.js';
import type { Bitmap } from '../codecs/bitmap.js';
import { FaxError } from '../shared/errors.js';
import { thresholdPage } from './bilevel.js';
import { coverPagePdf } from './cover-page.js';
import { checkCoverTemplate, fillCoverTemplate, templateCoverPdf, templateValues } from './cover-template.js';
import { RESOLUTIONS } from './layout.js';
import { countPdfPages } from './page-count.js';
import { renderPdfPages } from './render-pdf.js';

async function render(pdf: Buffer): Promise<Bitmap> {
  for await (const { gray } of renderPdfPages(pdf, [1], RESOLUTIONS.Standard)) return thresholdPage(gray);
  throw new Error('no page');
}

function refusal(f: () => unknown): FaxError {
  try {
    f();
  } catch (e) {
    if (e instanceof FaxError) return e;
    throw e;
  }
  throw new Error('not refused');
}

const fields = { subject: 'Contract', fromName: 'Alice', toName: 'Bob', message: 'Line one\nLine two', date: '2026-01-02 10:00 UTC', pageCount: 4 };

describe('checkCoverTemplate', () => {
  it('accepts the six fields, spaces inside the braces, and reports which are used', () => {
    expect(checkCoverTemplate('Dear {{ to_name }},\n{{message}}\n{{date}} {{pages}} {{subject}} {{from_name}}').sort()).toEqual(
      ['date', 'from_name', 'message', 'pages', 'subject', 'to_name'],
    );
    expect(checkCoverTemplate('no placeholders at all')).toEqual([]);
  });

  it.each([
    ['an unknown name', 'Hi {{name}}', /unknown placeholders "\{\{name\}\}"/],
    ['several unknown names, each once', '{{a}} {{b}} {{a}} {{subject}}', /"\{\{a\}\}", "\{\{b\}\}"/],
    ['a wrong case', '{{Subject}}', /"\{\{Subject\}\}".*known ones are \{\{subject\}\}/],
    ['an empty placeholder', '{{ }}', /unknown placeholders "\{\{\}\}"/],
    ['an unclosed {{', 'ok\nHi {{subject', /stray "\{\{" on line 2/],
    ['a stray }}', '{{subject}} }}', /stray "\}\}" on line 1/],
    ['a nested placeholder', '{{ {{subject}} }}', /stray "\{\{" on line 1/],
  ])('refuses %s with -3000 naming it', (_n, text, msg) => {
    const e = refusal(() => checkCoverTemplate(text, 'fileData'));
    expect(e.code).toBe(-3000);
    expect(e.field).toBe('fileData');
    expect(e.message).toMatch(msg);
  });

  it('refuses a template longer than one page could ever hold', () => {
    expect(refusal(() => checkCoverTemplate('x'.repeat(20_001))).message).toMatch(/more than 20000 characters/);
  });
});

describe('fillCoverTemplate', () => {
  const values = templateValues(fields);

  it('fills every field; {{pages}} is the total, cover included; missing fields are empty', () => {
    expect(fillCoverTemplate('{{to_name}}/{{from_name}}/{{subject}}/{{date}}/{{pages}}', values)).toBe('Bob/Alice/Contract/2026-01-02 10:00 UTC/4');
    expect(fillCoverTemplate('[{{subject}}]', templateValues({}))).toBe('[]');
  });

  it('formats a Date like the default cover page (time zone honoured)', () => {
    const v = templateValues({ date: new Date(Date.UTC(2026, 0, 2, 10, 0)), timeZone: 'UTC' });
    expect(v.date).toMatch(/^2026-01-02 10:00/);
  });

  it('never interprets a value: placeholders in values stay literal, one pass', () => {
    const v = templateValues({ subject: '{{message}}', message: '{{subject}} {{pages}}', toName: '{{to_name}}' });
    expect(fillCoverTemplate('{{subject}}|{{message}}|{{to_name}}', v)).toBe('{{message}}|{{subject}} {{pages}}|{{to_name}}');
  });

  it('single-line fields lose line breaks and control characters; the message keeps its lines', () => {
    const v = templateValues({ subject: 'a\nb\tc\u0007d', message: 'x\r\ny\u0000z\tw' });
    expect(v.subject).toBe('a b c d');
    expect(v.message).toBe('x\nyz    w');
  });
});

describe('templateCoverPdf', () => {
  it('is a one-page PDF with the filled text; PDF syntax in values is escaped, not executed', () => {
    const pdf = templateCoverPdf('# Fax for {{to_name}}\nRe: {{subject}}\n{{message}}', { ...fields, subject: 'a) Tj (x\\' });
    expect(countPdfPages(pdf)).toBe(1);
    const s = pdf.toString('latin1');
    expect(s).toContain('(Fax for Bob) Tj');
    expect(s).toContain('(Re: a\\) Tj \\(x\\\\) Tj');
    expect(s).toContain('(Line one) Tj');
    expect(s).toContain('(Line two) Tj');
  });

  it('headings come from the template only: a value starting with "# " is plain text', () => {
    const s = templateCoverPdf('# {{subject}}\n{{message}}', { subject: 'Title', message: '# not a heading' }).toString('latin1');
    expect(s).toMatch(/\/F2 24 Tf [\d.]+ [\d.]+ Td \(Title\) Tj/); // Helvetica-Bold, twice the body size
    expect(s).toMatch(/\/F1 12 Tf [\d.]+ [\d.]+ Td \(# not a heading\) Tj/);
  });

  it('coverPagePdf with a template draws the template, not the default layout', () => {
    const s = coverPagePdf({ ...fields, template: 'Hello {{to_name}}' }).toString('latin1');
    expect(s).toContain('(Hello Bob) Tj');
    expect(s).not.toContain('(FAX)');
  });

  it('a long message shrinks the text and is cut with an ellipsis on one page', () => {
    const message = Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n');
    const pdf = templateCoverPdf('{{message}}', { message });
    expect(countPdfPages(pdf)).toBe(1);
    const s = pdf.toString('latin1');
    expect(s).toContain('/F1 9 Tf');
    expect(s).not.toContain('(line 199)');
    expect(s).toContain('\x85) Tj');
  });

  it('renders: different field values give different pixels; text stays inside the margins', async () => {
    const tpl = '# Cover\nTo: {{to_name}}\nSubject: {{subject}}\n\n{{message}}';
    const a = await render(templateCoverPdf(tpl, fields));
    const b = await render(templateCoverPdf(tpl, { ...fields, toName: 'Carol Somebody-Else' }));
    const box = inkBox(a)!;
    expect(box.x0).toBeGreaterThan(100); // 57 pt margin at 204 dpi ≈ 161 px
    expect(box.y0).toBeGreaterThan(100);
    expect(blackIn(a, 0, 0, 1728, 2287)).toBeGreaterThan(2000);
    expect(Buffer.from(a.data).equals(Buffer.from(b.data))).toBe(false);
    const empty = await render(templateCoverPdf(tpl, {}));
    expect(blackIn(empty, 0, 0, 1728, 2287)).toBeLessThan(blackIn(a, 0, 0, 1728, 2287));
  });
});
