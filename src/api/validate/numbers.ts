// Fax numbers: E.164 (ITU-T E.164 6.2.1: at most 15 digits after the country code's `+`),
// checked with libphonenumber-js metadata. docs/api.md, fax-send (faxNumber, callerId),
// docs/api.md decision 9 (up to 15 recipients, one job each).

import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { FaxError } from '../../shared/errors.js';

export const MAX_RECIPIENTS = 15;

const E164_HINT = 'E.164 format (+ followed by the country code and number)';

/**
 * Returns the canonical `+digits` form of a fax number, or throws FaxError INVALID_NUMBER
 * naming `field`.
 *
 * Accepted: a string starting with `+`, with spaces, dashes, dots or parentheses between digits.
 * Refused: a missing `+` (no national formats: the service cannot guess the country), letters
 * (vanity numbers), a JSON number (it cannot carry the `+`).
 *
 * Decision: "possible", not "valid". libphonenumber's isValid() knows the allocated number blocks
 * of each country; it rejects reserved fictional numbers such as +1 555 0100 xxxx, which the test
 * keys rely on (docs/api.md decision 8), and it lags behind new allocations, which would refuse real
 * numbers until the library is updated. isPossible() checks the country code and the length for
 * that country; on top of it we require 8..15 digits in total (E.164's maximum; nothing shorter
 * than 8 is a dialable international fax number). A possible but unallocated number fails later
 * as a call outcome (-3104), which is the honest place for it.
 */
export function normalizeFaxNumber(input: unknown, field: string): string {
  if (typeof input !== 'string') {
    const got =
      input === null || input === undefined
        ? 'nothing'
        : Array.isArray(input)
          ? 'a list'
          : typeof input === 'object'
            ? 'an object'
            : `a ${typeof input}`;
    throw new FaxError('INVALID_NUMBER', `${field} must be a string in ${E164_HINT}, got ${got}`, { field });
  }
  const trimmed = input.trim();
  // In a form body an unencoded `+` arrives as a space; say so instead of a bare "must start with +".
  const formHint = /^ +\d/.test(input) ? '; in a form body, encode + as %2B' : '';
  const shown = JSON.stringify(trimmed.length > 40 ? `${trimmed.slice(0, 40)}…` : trimmed);
  if (trimmed.length === 0) throw new FaxError('INVALID_NUMBER', `${field} is empty`, { field });
  if (trimmed.length > 40) throw new FaxError('INVALID_NUMBER', `${field} ${shown} is too long`, { field });
  if (!trimmed.startsWith('+')) {
    throw new FaxError('INVALID_NUMBER', `${field} ${shown} must start with + (${E164_HINT})${formHint}`, { field });
  }
  if (/[A-Za-z]/.test(trimmed)) {
    throw new FaxError('INVALID_NUMBER', `${field} ${shown} contains letters; give the digits`, { field });
  }
  // One separator at a time between digit groups; a second `+` or anything else is refused.
  if (!/^\+\s*\(?\d[\d\s().-]*$/.test(trimmed) || /[\s().-]{3,}/.test(trimmed)) {
    throw new FaxError('INVALID_NUMBER', `${field} ${shown} contains characters other than digits and separators`, {
      field,
    });
  }
  // `+44 (0)20 …`: the bracketed national trunk prefix is written but never dialled.
  const digits = trimmed.replace(/^(\+\s*\d{1,3})\s*\(0\)/, '$1').replace(/\D/g, '');
  if (digits.length < 8 || digits.length > 15) {
    throw new FaxError('INVALID_NUMBER', `${field} ${shown} has ${digits.length} digits; E.164 numbers have 8 to 15`, {
      field,
    });
  }
  const canonical = `+${digits}`;
  const parsed = parsePhoneNumberFromString(canonical);
  if (!parsed || parsed.number !== canonical) {
    throw new FaxError('INVALID_NUMBER', `${field} ${shown} does not start with a known country code`, { field });
  }
  if (!parsed.isPossible()) {
    throw new FaxError('INVALID_NUMBER', `${field} ${shown} has the wrong length for country code +${parsed.countryCallingCode}`, {
      field,
    });
  }
  return canonical;
}

/**
 * The recipients of one send request: a string (comma-separated) or an array of strings (each of
 * which may itself be comma-separated, as forms sometimes join lists). Returns the distinct
 * canonical numbers in the order first given.
 *
 * Decisions:
 * - The limit counts the entries as given, before removing duplicates, so an oversized request is
 *   refused before any number is parsed; 16 entries is TOO_MANY_RECIPIENTS even if two repeat.
 * - Duplicates are dropped after normalization (`+1 555…` and `+1555…` are the same number): one
 *   job per distinct number, never two identical faxes billed twice by accident.
 * - Error fields name the entry's position in the flattened list: `faxNumber[2]`; a single
 *   number given as a plain string is just `faxNumber`.
 */
export function parseRecipients(input: unknown, opts: { max?: number; field?: string } = {}): string[] {
  const field = opts.field ?? 'faxNumber';
  const max = opts.max ?? MAX_RECIPIENTS;
  let entries: string[];
  if (input === undefined || input === null) {
    entries = [];
  } else if (typeof input === 'string') {
    entries = splitList(input);
  } else if (Array.isArray(input)) {
    if (input.length > max * 4) {
      throw new FaxError('TOO_MANY_RECIPIENTS', `${field} lists ${input.length} numbers; at most ${max} are allowed`, { field });
    }
    entries = [];
    input.forEach((item, i) => {
      if (typeof item !== 'string') normalizeFaxNumber(item, `${field}[${i}]`); // throws with the type
      entries.push(...splitList(item as string));
    });
  } else {
    normalizeFaxNumber(input, field); // throws: names the type
    entries = [];
  }
  if (entries.length === 0) throw new FaxError('INVALID_NUMBER', `${field} is required`, { field });
  if (entries.length > max) {
    throw new FaxError('TOO_MANY_RECIPIENTS', `${field} lists ${entries.length} numbers; at most ${max} are allowed`, {
      field,
    });
  }
  const seen = new Set<string>();
  const out: string[] = [];
  entries.forEach((entry, i) => {
    const n = normalizeFaxNumber(entry, entries.length === 1 && typeof input === 'string' ? field : `${field}[${i}]`);
    if (!seen.has(n)) {
      seen.add(n);
      out.push(n);
    }
  });
  return out;
}

function splitList(s: string): string[] {
  return s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x.length > 0);
}
