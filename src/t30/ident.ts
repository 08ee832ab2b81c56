// Identification frames (T.30 5.3.6.2): CSI/TSI/CIG and the
// SUB/SID/PWD/SEP/PSA addresses share one 20-octet format — the string sent last character
// first, padded with spaces. NSF/NSS/NSC carry a T.35 country code and vendor data kept raw.

const IDENT_OCTETS = 20;

/**
 * T.30 allows the digits, '+' and space (and '#', '*' in SUB/SID/PWD); real machines send any
 * printable ASCII, so that is what is accepted.
 */
function checkIdent(text: string, what: string): void {
  if (text.length > IDENT_OCTETS) throw new RangeError(`${what}: at most ${IDENT_OCTETS} characters, got ${text.length}`);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) throw new RangeError(`${what}: character ${JSON.stringify(text[i])} is not printable ASCII`);
  }
}

/** The 20-octet FIF of an identification frame: reversed, space padded. */
export function encodeIdent(text: string, what = 'ident'): Uint8Array {
  checkIdent(text, what);
  const fif = new Uint8Array(IDENT_OCTETS).fill(0x20);
  for (let i = 0; i < text.length; i++) fif[i] = text.charCodeAt(text.length - 1 - i);
  return fif;
}

/** Reads an identification FIF back (padding and surrounding spaces dropped). Longer FIFs are cut at 20 octets. */
export function decodeIdent(fif: Uint8Array): string {
  let s = '';
  const n = Math.min(fif.length, IDENT_OCTETS);
  for (let i = n - 1; i >= 0; i--) {
    const c = fif[i]!;
    s += c >= 0x20 && c <= 0x7e ? String.fromCharCode(c) : '?';
  }
  return s.trim();
}

/** A non-standard facilities FIF (NSF/NSS/NSC): T.35 country code (two octets when the first is 0xFF) and the rest raw. */
export interface NonStandardFacilities {
  countryCode: number;
  /** Everything after the country code: vendor code and vendor data (no standard layout). */
  data: Uint8Array;
  raw: Uint8Array;
}

export function decodeNsf(fif: Uint8Array): NonStandardFacilities | undefined {
  if (fif.length === 0) return undefined;
  const wide = fif[0] === 0xff && fif.length >= 2;
  const countryCode = wide ? 0xff00 | fif[1]! : fif[0]!;
  return { countryCode, data: fif.slice(wide ? 2 : 1), raw: fif.slice() };
}
