// A small PDF object scanner (ISO 32000-1 7.2 lexical conventions, 7.3 objects, 7.5.4 trailer,
// 7.5.7 object streams, 7.5.8 cross-reference streams, 7.7.3 page tree). It finds objects by
// scanning for `n g obj` the way readers repair damaged files, so a broken xref table does not
// matter, and it reads compressed object streams with a bounded inflate (decrypted first when the
// empty user password opens the file, pdf-crypt.ts). Enough to count pages, see which are missing
// and judge encryption; rendering is PDFium's and pdf.js's job.

import { nodeZlib } from '../shared/builtins.js';
import { FaxError } from '../shared/errors.js';
import { unlockWithEmptyPassword, type EncryptInfo } from './pdf-crypt.js';

interface PdfName {
  readonly kind: 'name';
  readonly name: string;
}
export interface PdfRef {
  readonly kind: 'ref';
  readonly num: number;
  readonly gen: number;
}
export interface PdfDict {
  readonly kind: 'dict';
  readonly map: Map<string, PdfValue>;
}
interface PdfString {
  readonly kind: 'string';
  /** The decoded bytes, kept only where asked for (the encryption dictionary and /ID). */
  readonly bytes?: Buffer;
}
export type PdfValue = number | boolean | null | PdfName | PdfRef | PdfDict | PdfString | PdfValue[];

export interface PdfScan {
  /** Objects by number; later definitions (incremental updates) replace earlier ones. */
  objects: Map<number, PdfValue>;
  /** Trailer dictionaries and cross-reference stream dictionaries, in file order. */
  trailers: PdfDict[];
  /** Objects whose `n g obj` header is in the file but whose value could not be read (damaged, not missing). */
  unreadable: Set<number>;
  /** Objects whose stream data runs to the end of the file (no `endstream`: cut off). */
  cutStreams: Set<number>;
  /** Objects whose stream data is empty or only white space (a page content stream that draws nothing). */
  blankStreams: Set<number>;
  /** Cross-reference streams whose data does not end where their /Length says (a damaged file). */
  damagedTrailers: Set<PdfDict>;
  /**
   * 'none'; 'open': encrypted, but the empty user password opens it (an owner password only);
   * 'password': a user password is needed; 'unsupported': a security handler other than Standard;
   * 'damaged': the trailer names an /Encrypt that is not a readable dictionary (nothing can be decrypted).
   */
  encryption: 'none' | 'open' | 'password' | 'unsupported' | 'damaged';
}

/** Total bytes that inflating object streams may produce (decompression-bomb guard). */
const PDF_INFLATE_BUDGET = 50 * 1024 * 1024;
/**
 * How much may be read outside streams, in value units: a number 1, a name, string or reference
 * 2, an array 2, a dictionary 8 (a Map is the costliest value). Real documents use a few
 * thousand per page; without a cap, 15 MB of tiny objects, of trailers or one array of two
 * million references took 100–170 MB of heap on the request thread just to count pages.
 */
const PDF_MAX_VALUES = 1_000_000;
const MAX_NESTING = 64;
/** Longest stream data looked at for being blank (a content stream of white space only). */
const BLANK_STREAM_MAX = 64;

const WS = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIM = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);

class ParseError extends Error {}

/** Values left to read in one scan, shared by every lexer of it. */
interface ValueBudget {
  left: number;
}

const tooComplex = (): FaxError => new FaxError('INVALID_FILE_FORMAT', 'PDF has too many objects outside its streams to be read (over a million values: dictionaries, arrays, names, numbers)');

/** Recursive-descent reader of one PDF value from a latin1 string (1 char = 1 byte). */
class Lexer {
  pos: number;
  constructor(
    readonly src: string,
    start: number,
    readonly budget: ValueBudget,
    readonly keepStrings = false,
  ) {
    this.pos = start;
  }

  skipWs(): void {
    const s = this.src;
    for (;;) {
      const c = s.charCodeAt(this.pos);
      if (WS.has(c)) this.pos++;
      else if (c === 0x25) {
        // comment to end of line
        while (this.pos < s.length && s.charCodeAt(this.pos) !== 0x0a && s.charCodeAt(this.pos) !== 0x0d) this.pos++;
      } else return;
    }
  }

  value(depth = 0): PdfValue {
    if (depth > MAX_NESTING) throw new ParseError('nesting too deep');
    this.skipWs();
    const s = this.src;
    const c = s.charCodeAt(this.pos);
    if (Number.isNaN(c)) throw new ParseError('unexpected end');
    const dict = c === 0x3c && s.charCodeAt(this.pos + 1) === 0x3c;
    const number = (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e;
    this.budget.left -= dict ? 8 : number ? 1 : 2;
    if (this.budget.left < 0) throw tooComplex();
    if (c === 0x3c && s.charCodeAt(this.pos + 1) === 0x3c) return this.dict(depth);
    if (c === 0x3c) {
      const end = s.indexOf('>', this.pos);
      if (end < 0) {
        this.pos = s.length;
        throw new ParseError('unterminated hex string');
      }
      const hex = s.slice(this.pos + 1, end);
      this.pos = end + 1;
      if (!this.keepStrings) return { kind: 'string' };
      const digits = hex.replace(/[^0-9A-Fa-f]/g, '');
      return { kind: 'string', bytes: Buffer.from(digits.length % 2 ? `${digits}0` : digits, 'hex') };
    }
    if (c === 0x28) return this.literalString();
    if (c === 0x5b) {
      this.pos++;
      const arr: PdfValue[] = [];
      for (;;) {
        this.skipWs();
        if (s.charCodeAt(this.pos) === 0x5d) {
          this.pos++;
          return arr;
        }
        arr.push(this.value(depth + 1));
      }
    }
    if (c === 0x2f) return { kind: 'name', name: this.name() };
    if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) return this.numberOrRef();
    const word = this.regular();
    if (word === 'true') return true;
    if (word === 'false') return false;
    if (word === 'null') return null;
    throw new ParseError(`unexpected token ${JSON.stringify(word.slice(0, 20))}`);
  }

  private dict(depth: number): PdfDict {
    this.pos += 2;
    const map = new Map<string, PdfValue>();
    for (;;) {
      this.skipWs();
      const c = this.src.charCodeAt(this.pos);
      if (c === 0x3e && this.src.charCodeAt(this.pos + 1) === 0x3e) {
        this.pos += 2;
        return { kind: 'dict', map };
      }
      if (c !== 0x2f) throw new ParseError('dictionary key is not a name');
      const key = this.name();
      map.set(key, this.value(depth + 1));
    }
  }

  /** A name after `/`, with `#xx` escapes decoded (7.3.5). */
  private name(): string {
    this.pos++;
    const raw = this.regular();
    return raw.includes('#') ? raw.replace(/#([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))) : raw;
  }

  /** Regular characters up to whitespace or a delimiter. */
  private regular(): string {
    const s = this.src;
    const start = this.pos;
    while (this.pos < s.length) {
      const c = s.charCodeAt(this.pos);
      if (WS.has(c) || DELIM.has(c)) break;
      this.pos++;
    }
    if (this.pos === start) throw new ParseError('empty token');
    return s.slice(start, this.pos);
  }

  private literalString(): PdfString {
    const s = this.src;
    const start = this.pos;
    let nest = 0;
    for (; this.pos < s.length; this.pos++) {
      const c = s.charCodeAt(this.pos);
      if (c === 0x5c) this.pos++; // backslash escapes the next char
      else if (c === 0x28) nest++;
      else if (c === 0x29 && --nest === 0) {
        this.pos++;
        return this.keepStrings ? { kind: 'string', bytes: unescapeLiteral(s.slice(start + 1, this.pos - 1)) } : { kind: 'string' };
      }
    }
    throw new ParseError('unterminated string');
  }

  private numberOrRef(): number | PdfRef {
    const tok = this.regular();
    const n = Number(tok);
    if (!Number.isFinite(n)) throw new ParseError(`bad number ${tok.slice(0, 20)}`);
    if (!/^\d+$/.test(tok)) return n;
    // `num gen R` (7.3.10)
    const save = this.pos;
    const m = /^[\0\t\n\f\r ]+(\d+)[\0\t\n\f\r ]+R(?=[\0\t\n\f\r ()<>[\]{}/%]|$)/.exec(this.src.slice(this.pos, this.pos + 32));
    if (m) {
      this.pos += m[0].length;
      return { kind: 'ref', num: n, gen: Number(m[1]) };
    }
    this.pos = save;
    return n;
  }
}

/** 7.3.4.2: the bytes of a literal string's body (escapes, octal codes, line continuations). */
function unescapeLiteral(body: string): Buffer {
  const out: number[] = [];
  const esc: Record<string, number> = { n: 10, r: 13, t: 9, b: 8, f: 12, '(': 40, ')': 41, '\\': 92 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      out.push(body.charCodeAt(i));
      continue;
    }
    const d = body[++i];
    if (d === undefined) break;
    if (d in esc) out.push(esc[d]!);
    else if (d >= '0' && d <= '7') {
      const oct = /^[0-7]{1,3}/.exec(body.slice(i, i + 3))![0];
      out.push(parseInt(oct, 8) & 255);
      i += oct.length - 1;
    } else if (d === '\r') {
      if (body[i + 1] === '\n') i++;
    } else if (d !== '\n') out.push(body.charCodeAt(i));
  }
  return Buffer.from(out);
}

const OBJ_HEADER = /(?<![0-9])(\d{1,10})[\0\t\n\f\r ]+(\d{1,5})[\0\t\n\f\r ]+obj(?![A-Za-z0-9])/g;

export function isDict(v: PdfValue | undefined): v is PdfDict {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'dict';
}
export function nameOf(v: PdfValue | undefined): string | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'name' ? v.name : null;
}

/** Scans a whole PDF: every `n g obj`, every trailer, and the objects inside object streams. */
export function scanPdf(bytes: Buffer): PdfScan {
  const src = bytes.toString('latin1');
  const objects = new Map<number, PdfValue>();
  const trailers: PdfDict[] = [];
  const trailerAt = new Map<PdfDict, number>();
  const cutStreams = new Set<number>();
  const blankStreams = new Set<number>();
  const damagedTrailers = new Set<PdfDict>();
  const unreadable = new Set<number>();
  const objStreams: { num: number; gen: number; dict: PdfDict; data: Buffer }[] = [];
  const values: ValueBudget = { left: PDF_MAX_VALUES };

  OBJ_HEADER.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = OBJ_HEADER.exec(src)) !== null) {
    const at = OBJ_HEADER.lastIndex;
    const lex = new Lexer(src, at, values);
    let value: PdfValue;
    try {
      value = lex.value();
    } catch (err) {
      if (err instanceof FaxError) throw err; // the value budget: not a damaged object
      // Damaged object: resume where the lexer gave up, so no byte is lexed twice (an
      // unterminated string must not make every following object rescan to the end).
      OBJ_HEADER.lastIndex = Math.max(OBJ_HEADER.lastIndex, lex.pos);
      if (lex.pos < src.length) unreadable.add(Number(m[1])); // ran to the end of the file: cut off, not damaged
      continue;
    }
    const num = Number(m[1]);
    objects.set(num, value);
    OBJ_HEADER.lastIndex = lex.pos;
    if (!isDict(value)) continue;
    const stream = readStream(src, lex, value);
    if (!stream) continue;
    OBJ_HEADER.lastIndex = stream.end; // never look for objects inside stream data
    if (stream.cut) cutStreams.add(num);
    else cutStreams.delete(num);
    if (!stream.cut && stream.dataEnd - stream.start <= BLANK_STREAM_MAX && /^[\0\t\n\f\r ]*$/.test(src.slice(stream.start, stream.dataEnd))) blankStreams.add(num);
    else blankStreams.delete(num);
    const type = nameOf(value.map.get('Type'));
    if (type === 'XRef') {
      if (!stream.byLength) damagedTrailers.add(value);
      trailers.push(value);
      trailerAt.set(value, at);
    } else if (type === 'ObjStm') objStreams.push({ num, gen: Number(m[2]), dict: value, data: bytes.subarray(stream.start, stream.dataEnd) });
  }

  const trailerRe = /trailer[\0\t\n\f\r ]*<</g;
  while ((m = trailerRe.exec(src)) !== null) {
    const at = m.index + 'trailer'.length;
    const lex = new Lexer(src, at, values);
    try {
      const v = lex.value();
      if (isDict(v)) {
        trailers.push(v);
        trailerAt.set(v, at);
      }
    } catch (err) {
      if (err instanceof FaxError) throw err;
      // damaged trailer: ignored
    }
    trailerRe.lastIndex = Math.max(trailerRe.lastIndex, lex.pos);
  }

  let decrypt: ((num: number, gen: number, data: Buffer) => Buffer | null) | undefined;
  let encryption: PdfScan['encryption'] = 'none';
  const encrypted = trailers.findLast((t) => t.map.has('Encrypt'));
  if (encrypted) {
    const info = encryptInfo(src, objects, encrypted, trailerAt.get(encrypted));
    // An /Encrypt object that is in the file but is no dictionary: the file is damaged, not of an unknown kind.
    const enc = encrypted.map.get('Encrypt');
    const isRef = typeof enc === 'object' && enc !== null && !Array.isArray(enc) && enc.kind === 'ref';
    const damaged = isRef && (unreadable.has(enc.num) || (objects.has(enc.num) && !isDict(objects.get(enc.num))));
    const unlock = info ? unlockWithEmptyPassword(info) : ({ ok: false, reason: damaged ? 'damaged' : 'unsupported' } as const);
    if (!unlock.ok) return { objects, trailers, unreadable, cutStreams, blankStreams, damagedTrailers, encryption: unlock.reason };
    encryption = 'open';
    decrypt = unlock.decrypt;
  }

  let budget = PDF_INFLATE_BUDGET;
  const direct = new Set(objects.keys());
  for (const { num, gen, dict, data } of objStreams) {
    const plain = decrypt ? decrypt(num, gen, data) : data;
    const decoded = plain && decodeStream(dict, plain, budget);
    if (!decoded) continue;
    budget -= decoded.length;
    for (const [n, value] of readObjectStream(dict, decoded, values)) {
      if (!direct.has(n)) objects.set(n, value);
    }
  }
  return { objects, trailers, unreadable, cutStreams, blankStreams, damagedTrailers, encryption };
}

/**
 * The encryption dictionary and /ID of a trailer, read again with their strings kept (the first
 * pass drops string contents); null when they cannot be read.
 */
function encryptInfo(src: string, objects: Map<number, PdfValue>, trailer: PdfDict, at: number | undefined): EncryptInfo | null {
  const budget: ValueBudget = { left: 10_000 };
  const reread = (pos: number): PdfDict | null => {
    try {
      const v = new Lexer(src, pos, budget, true).value();
      return isDict(v) ? v : null;
    } catch {
      return null;
    }
  };
  const full = at === undefined ? null : reread(at);
  if (!full) return null;
  let enc = full.map.get('Encrypt');
  if (typeof enc === 'object' && enc !== null && !Array.isArray(enc) && enc.kind === 'ref') {
    if (!isDict(objects.get(enc.num))) return null;
    // The last definition of `num gen obj`, as the first pass kept.
    const re = new RegExp(`(?<![0-9])${enc.num}[\\0\\t\\n\\f\\r ]+${enc.gen}[\\0\\t\\n\\f\\r ]+obj(?![A-Za-z0-9])`, 'g');
    let last = -1;
    for (let mm = re.exec(src); mm; mm = re.exec(src)) last = re.lastIndex;
    enc = last < 0 ? undefined : (reread(last) ?? undefined);
  }
  if (!isDict(enc)) return null;
  const num = (k: string, d: number): number => {
    const v = enc.map.get(k);
    return typeof v === 'number' ? v : d;
  };
  const str = (v: PdfValue | undefined): Buffer | null => (typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'string' ? (v.bytes ?? null) : null);
  const ids = full.map.get('ID');
  const o = str(enc.map.get('O'));
  const u = str(enc.map.get('U'));
  if (!o || !u) return null;
  const v = num('V', 0);
  const r = num('R', 2);
  let streamMethod = v >= 4 ? 'None' : 'V2';
  if (v >= 4) {
    const stmF = nameOf(enc.map.get('StmF')) ?? 'Identity';
    const cf = enc.map.get('CF');
    const filter = stmF === 'Identity' || !isDict(cf) ? undefined : cf.map.get(stmF);
    streamMethod = stmF === 'Identity' ? 'None' : isDict(filter) ? (nameOf(filter.map.get('CFM')) ?? 'None') : 'None';
  }
  return {
    filter: nameOf(enc.map.get('Filter')),
    v,
    r,
    keyBytes: v === 5 ? 32 : v === 4 ? 16 : Math.floor(num('Length', 40) / 8),
    o,
    u,
    ue: str(enc.map.get('UE')),
    p: num('P', 0),
    id0: (Array.isArray(ids) ? str(ids[0]) : null) ?? Buffer.alloc(0),
    encryptMetadata: enc.map.get('EncryptMetadata') !== false,
    streamMethod,
  };
}

/** Locates stream data after a dictionary (7.3.8.1); null when no `stream` keyword follows. */
function readStream(src: string, lex: Lexer, dict: PdfDict): { start: number; dataEnd: number; end: number; cut: boolean; byLength: boolean } | null {
  lex.skipWs();
  if (!src.startsWith('stream', lex.pos)) return null;
  let start = lex.pos + 'stream'.length;
  if (src.charCodeAt(start) === 0x0d) start++;
  if (src.charCodeAt(start) === 0x0a) start++;
  const len = dict.map.get('Length');
  if (typeof len === 'number' && Number.isInteger(len) && len >= 0 && start + len <= src.length) {
    const after = /^[\r\n ]*endstream/.exec(src.slice(start + len, start + len + 32));
    if (after) return { start, dataEnd: start + len, end: start + len + after[0].length, cut: false, byLength: true };
  }
  // Indirect or wrong /Length: the data ends at the next `endstream`.
  const e = src.indexOf('endstream', start);
  if (e < 0) return { start, dataEnd: src.length, end: src.length, cut: true, byLength: false };
  let dataEnd = e;
  if (src.charCodeAt(dataEnd - 1) === 0x0a) dataEnd--;
  if (src.charCodeAt(dataEnd - 1) === 0x0d) dataEnd--;
  return { start, dataEnd: Math.max(start, dataEnd), end: e + 'endstream'.length, cut: false, byLength: false };
}

/** Undoes /FlateDecode (the only filter object streams use in practice); null when not possible. */
function decodeStream(dict: PdfDict, data: Buffer, budget: number): Buffer | null {
  const f = dict.map.get('Filter');
  const filters = Array.isArray(f) ? f.map((x) => nameOf(x)) : f === undefined || f === null ? [] : [nameOf(f)];
  if (filters.length === 0) return data;
  if (filters.length !== 1 || (filters[0] !== 'FlateDecode' && filters[0] !== 'Fl')) return null;
  const parms = dict.map.get('DecodeParms');
  if (isDict(parms) && typeof parms.map.get('Predictor') === 'number' && (parms.map.get('Predictor') as number) > 1) return null;
  try {
    // Z_SYNC_FLUSH: keep what a truncated stream yields instead of failing on its missing end.
    return nodeZlib().inflateSync(data, { maxOutputLength: Math.max(1, budget), finishFlush: nodeZlib().constants.Z_SYNC_FLUSH });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new FaxError('INVALID_FILE_FORMAT', `PDF object streams expand to more than ${PDF_INFLATE_BUDGET / 1024 / 1024} MB`);
    }
    return null; // corrupt zlib data: skip this stream
  }
}

/** Objects of one object stream (7.5.7): N pairs `num offset`, then the objects from /First. */
function readObjectStream(dict: PdfDict, decoded: Buffer, budget: ValueBudget): [number, PdfValue][] {
  const n = dict.map.get('N');
  const first = dict.map.get('First');
  if (typeof n !== 'number' || typeof first !== 'number' || n < 0 || first < 0 || first > decoded.length) return [];
  const src = decoded.toString('latin1');
  const header = src.slice(0, first).trim().split(/[\0\t\n\f\r ]+/).map(Number);
  const entries: { num: number; off: number }[] = [];
  for (let i = 0; i + 1 < header.length && i / 2 < n; i += 2) {
    const num = header[i] as number;
    const off = header[i + 1] as number;
    if (Number.isInteger(num) && Number.isInteger(off) && off >= 0 && first + off < src.length) entries.push({ num, off: first + off });
  }
  // Each object is read within its own span (up to the next offset), so hostile offsets cannot
  // make every entry lex to the end of a large stream.
  const bounds = [...new Set(entries.map((e) => e.off))].sort((a, b) => a - b);
  const out: [number, PdfValue][] = [];
  for (const { num, off } of entries) {
    let lo = 0;
    let hi = bounds.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((bounds[mid] as number) <= off) lo = mid + 1;
      else hi = mid;
    }
    const end = bounds[lo] ?? src.length;
    try {
      out.push([num, new Lexer(src.slice(off, end), 0, budget).value()]);
    } catch (err) {
      if (err instanceof FaxError) throw err;
      // damaged entry: skipped
    }
  }
  return out;
}
