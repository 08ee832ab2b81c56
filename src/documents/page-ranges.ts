// Page selection of one attachment (docs/api.md, fax-send `pages`; docs/api.md decision 1): entries `n` or
// `from-to`, 1-based, applied in the order given. Parsing happens at request time; checking the
// selection against the real page count happens once the document is known (selectPages).

import { FaxError } from '../shared/errors.js';

export interface PageRange {
  /** First page, 1-based. */
  from: number;
  /** Last page, inclusive; equal to `from` for a single page. */
  to: number;
}

export const MAX_PAGE_NUMBER = 10_000;
export const MAX_PAGE_ENTRIES = 1000;
/** Upper bound on the pages one selection may expand to (the 200-page fax limit is applied later). */
export const MAX_SELECTED_PAGES = 10_000;

/**
 * Parses `pages`. null/undefined → null (all pages). An array of entries (strings `"3"`,
 * `"5-7"`, or integers); decision: a single string is also accepted as a comma-separated list
 * (`"1-3,5"`), which is what form clients and the CLI's `--pages` naturally send. An empty list,
 * page 0, a reversed range, a number above 10000 or any other type → INVALID_PARAMETER.
 */
export function parsePageSelection(entries: unknown, field: string): PageRange[] | null {
  if (entries === undefined || entries === null) return null;
  let list: unknown[];
  if (typeof entries === 'string') {
    list = entries.split(',');
    if (entries.trim() === '') {
      throw new FaxError('INVALID_PARAMETER', `${field} must list at least one page or range`, { field });
    }
  } else if (Array.isArray(entries)) {
    list = entries;
  } else {
    throw new FaxError('INVALID_PARAMETER', `${field} must be an array of page entries such as "3" or "5-7"`, { field });
  }
  if (list.length === 0) {
    throw new FaxError('INVALID_PARAMETER', `${field} must list at least one page or range (omit it for all pages)`, {
      field,
    });
  }
  if (list.length > MAX_PAGE_ENTRIES) {
    throw new FaxError('INVALID_PARAMETER', `${field} has more than ${MAX_PAGE_ENTRIES} entries`, { field });
  }
  return list.map((entry, j) => parseEntry(entry, `${field}[${j}]`));
}

function parseEntry(entry: unknown, field: string): PageRange {
  if (typeof entry === 'number') {
    return { from: checkPage(entry, field, String(entry)), to: checkPage(entry, field, String(entry)) };
  }
  if (typeof entry !== 'string') {
    throw new FaxError('INVALID_PARAMETER', `${field} must be a string such as "3" or "5-7"`, { field });
  }
  const s = entry.trim();
  const shown = JSON.stringify(s.length > 20 ? `${s.slice(0, 20)}…` : s);
  const m = /^(\d{1,6})(?:\s*-\s*(\d{1,6}))?$/.exec(s);
  if (!m) throw new FaxError('INVALID_PARAMETER', `${field} ${shown} is not a page ("3") or a range ("5-7")`, { field });
  const from = checkPage(Number(m[1]), field, s);
  const to = m[2] === undefined ? from : checkPage(Number(m[2]), field, s);
  if (from > to) throw new FaxError('INVALID_PARAMETER', `${field} ${shown} is a reversed range (${from} > ${to})`, { field });
  return { from, to };
}

function checkPage(n: number, field: string, shown: string): number {
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE_NUMBER) {
    throw new FaxError('INVALID_PARAMETER', `${field} ${JSON.stringify(shown)}: pages are whole numbers from 1 to ${MAX_PAGE_NUMBER}`, {
      field,
    });
  }
  return n;
}

/**
 * Expands a selection against a document of `pageCount` pages: the 1-based page numbers in the
 * order given, repeats kept. `field` names the attachment (`faxData[1]`); a page past the end →
 * INVALID_PARAMETER "faxData[1]: page 7 does not exist (the document has 5 pages)".
 */
export function selectPages(ranges: PageRange[] | null, pageCount: number, field: string): number[] {
  if (ranges === null) return Array.from({ length: pageCount }, (_, i) => i + 1);
  const out: number[] = [];
  for (const r of ranges) {
    if (r.to > pageCount) {
      const missing = Math.max(r.from, pageCount + 1);
      const has = `the document has ${pageCount} ${pageCount === 1 ? 'page' : 'pages'}`;
      throw new FaxError('INVALID_PARAMETER', `${field}: page ${missing} does not exist (${has})`, { field });
    }
    if (out.length + (r.to - r.from + 1) > MAX_SELECTED_PAGES) {
      throw new FaxError('INVALID_PARAMETER', `${field}: the page selection expands to more than ${MAX_SELECTED_PAGES} pages`, {
        field,
      });
    }
    for (let p = r.from; p <= r.to; p++) out.push(p);
  }
  return out;
}

/** The canonical text of a range, as stored with the job: `"3"` or `"5-7"`. */
export function formatPageRange(r: PageRange): string {
  return r.from === r.to ? String(r.from) : `${r.from}-${r.to}`;
}
