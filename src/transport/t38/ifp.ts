// T.38 IFP packets (Internet Facsimile Protocol: the IFPPacket ASN.1 of T.38 Annex A),
// encoded with the basic aligned PER variant of X.691. Version 0 (T.38 1998) and versions
// 1-3 differ in one place on the wire: the field-type enumeration of Data-Field has no
// extension marker in version 0 (the "pre-corrigendum" ASN.1), so its index is 3 bits there
// and 1 extension bit + 3 bits later. Indicator and data-type enumerations are extensible in
// every version; their extension values (V.8, V.34, V.33) are sent only from version 1 on.
import { ByteSlab } from '../../shared/byte-slab.js';
import { T38Error } from './errors.js';
import { PerReader, PerWriter } from './per.js';

/** T.38 versions as negotiated by T38FaxVersion. */
export type T38Version = 0 | 1 | 2 | 3;

/** Type-of-msg t30-indicator, in ASN.1 order: 16 root values, then the extension additions. */
export const INDICATORS = [
  'no-signal',
  'cng',
  'ced',
  'v21-preamble',
  'v27-2400-training',
  'v27-4800-training',
  'v29-7200-training',
  'v29-9600-training',
  'v17-7200-short-training',
  'v17-7200-long-training',
  'v17-9600-short-training',
  'v17-9600-long-training',
  'v17-12000-short-training',
  'v17-12000-long-training',
  'v17-14400-short-training',
  'v17-14400-long-training',
  // ... (extension additions)
  'v8-ansam',
  'v8-signal',
  'v34-cntl-channel-1200',
  'v34-pri-channel',
  'v34-CC-retrain',
  'v33-12000-training',
  'v33-14400-training',
] as const;
export type T38Indicator = (typeof INDICATORS)[number];
const INDICATOR_ROOT = 16;

/** Type-of-msg t30-data, in ASN.1 order: 9 root values, then the extension additions. */
export const DATA_TYPES = [
  'v21',
  'v27-2400',
  'v27-4800',
  'v29-7200',
  'v29-9600',
  'v17-7200',
  'v17-9600',
  'v17-12000',
  'v17-14400',
  // ...
  'v8',
  'v34-pri-rate',
  'v34-CC-1200',
  'v34-pri-ch',
  'v33-12000',
  'v33-14400',
] as const;
export type T38DataType = (typeof DATA_TYPES)[number];
const DATA_ROOT = 9;

/** Data-Field field-type, in ASN.1 order: 8 root values, then the extension additions (v1+). */
export const FIELD_TYPES = [
  'hdlc-data',
  'hdlc-sig-end',
  'hdlc-fcs-OK',
  'hdlc-fcs-BAD',
  'hdlc-fcs-OK-sig-end',
  'hdlc-fcs-BAD-sig-end',
  't4-non-ecm-data',
  't4-non-ecm-sig-end',
  // ... (not in version 0)
  'cm-message',
  'jm-message',
  'ci-message',
  'v34rate',
] as const;
type T38FieldType = (typeof FIELD_TYPES)[number];
const FIELD_ROOT = 8;

/** field-data is OCTET STRING (SIZE (1..65535)). */
const MAX_FIELD_DATA = 65535;

export interface IfpField {
  type: T38FieldType;
  /** field-data; absent (or empty) means the optional field is not present. */
  data?: Uint8Array;
}

/** IFPPacket: an indicator, or data of one modulation in one or more fields. */
export type IfpPacket =
  | { type: 't30-indicator'; indicator: T38Indicator }
  | { type: 't30-data'; dataType: T38DataType; fields: IfpField[] };

const indicatorIndex = new Map<string, number>(INDICATORS.map((v, i) => [v, i]));
const dataIndex = new Map<string, number>(DATA_TYPES.map((v, i) => [v, i]));
const fieldIndex = new Map<string, number>(FIELD_TYPES.map((v, i) => [v, i]));

function checkVersion(version: number): asserts version is T38Version {
  if (version !== 0 && version !== 1 && version !== 2 && version !== 3) throw new T38Error('bad_parameter', `T.38 version ${version} is not 0..3`);
}

/** An extensible ENUMERATED (X.691): extension bit, then the root index or a normally small number. */
function writeEnum(w: PerWriter, index: number, root: number, rootBits: number): void {
  if (index < root) {
    w.bits(0, 1);
    w.bits(index, rootBits);
  } else {
    w.bits(1, 1);
    w.smallNumber(index - root);
  }
}

/** Encodes an IFP packet for the given T.38 version; throws T38Error for what the version cannot carry. */
export function encodeIfp(packet: IfpPacket, version: T38Version): Uint8Array {
  checkVersion(version);
  return encodeAligned(packet, version) ?? encodePer(packet, version);
}

/** Where encodeAligned's packets are cut from (UDPTL keeps them for redundancy). */
const slab = new ByteSlab();

/**
 * The common packets, byte by byte: root values only, fewer than 128 fields, a field without
 * data only at the end. Every field then starts on an octet boundary (its length is aligned),
 * so the PER encoding is plain octets. Anything else: undefined (the general encoder).
 */
function encodeAligned(packet: IfpPacket, version: T38Version): Uint8Array | undefined {
  if (packet.type === 't30-indicator') {
    const idx = indicatorIndex.get(packet.indicator);
    return idx !== undefined && idx < INDICATOR_ROOT ? Uint8Array.of(idx << 1) : undefined;
  }
  const dIdx = packet.type === 't30-data' ? dataIndex.get(packet.dataType) : undefined;
  const fields = packet.fields;
  const n = fields.length;
  if (dIdx === undefined || dIdx >= DATA_ROOT || n >= 128) return undefined;
  let size = n > 0 ? 2 : 1;
  for (let i = 0; i < n; i++) {
    const f = fields[i]!;
    const idx = fieldIndex.get(f.type);
    const len = f.data?.length ?? 0;
    if (idx === undefined || idx >= FIELD_ROOT || len > MAX_FIELD_DATA || (len === 0 && i < n - 1)) return undefined;
    size += len > 0 ? 3 + len : 1;
  }
  const out = slab.take(size);
  out[0] = (n > 0 ? 0x80 : 0) | 0x40 | (dIdx << 1);
  if (n === 0) return out;
  out[1] = n;
  let at = 2;
  const shift = version === 0 ? 4 : 3; // version 0 has no extension bit before the type
  for (const f of fields) {
    const data = f.data;
    const len = data?.length ?? 0;
    out[at++] = (len > 0 ? 0x80 : 0) | (fieldIndex.get(f.type)! << shift);
    if (len > 0) {
      out[at++] = (len - 1) >>> 8;
      out[at++] = (len - 1) & 0xff;
      out.set(data!, at);
      at += len;
    }
  }
  return out;
}

/** The general PER encoder, bit by bit; encodeIfp takes a byte-wise path for the common packets (tests compare the two). */
export function encodePer(packet: IfpPacket, version: T38Version): Uint8Array {
  if (packet.type === 't30-indicator') {
    const idx = indicatorIndex.get(packet.indicator);
    if (idx === undefined) throw new T38Error('unknown_value', `unknown indicator ${String(packet.indicator)}`);
    if (idx >= INDICATOR_ROOT && version === 0) throw new T38Error('not_in_version', `indicator ${packet.indicator} needs T.38 version 1 or later`);
    const w = new PerWriter(4);
    w.bits(0, 1); // data-field absent
    w.bits(0, 1); // CHOICE t30-indicator
    writeEnum(w, idx, INDICATOR_ROOT, 4);
    return w.finish();
  }
  if (packet.type !== 't30-data') throw new T38Error('invalid', `unknown IFP type ${String((packet as { type: unknown }).type)}`);
  const dIdx = dataIndex.get(packet.dataType);
  if (dIdx === undefined) throw new T38Error('unknown_value', `unknown data type ${String(packet.dataType)}`);
  if (dIdx >= DATA_ROOT && version === 0) throw new T38Error('not_in_version', `data type ${packet.dataType} needs T.38 version 1 or later`);
  const fields = packet.fields;
  let size = 8;
  for (const f of fields) size += 4 + (f.data?.length ?? 0);
  const w = new PerWriter(size);
  w.bits(fields.length > 0 ? 1 : 0, 1);
  w.bits(1, 1); // CHOICE t30-data
  writeEnum(w, dIdx, DATA_ROOT, 4);
  if (fields.length === 0) return w.finish();
  // Data-Field ::= SEQUENCE OF: a length determinant, fragmented past 16K items.
  let at = 0;
  for (;;) {
    const n = w.length(fields.length - at);
    for (let i = at; i < at + n; i++) writeField(w, fields[i]!, version);
    at += n;
    if (n < 16384) break;
  }
  return w.finish();
}

function writeField(w: PerWriter, field: IfpField, version: T38Version): void {
  const idx = fieldIndex.get(field.type);
  if (idx === undefined) throw new T38Error('unknown_value', `unknown field type ${String(field.type)}`);
  const data = field.data;
  const present = data !== undefined && data.length > 0;
  if (present && data.length > MAX_FIELD_DATA) throw new T38Error('too_large', `field-data of ${data.length} octets exceeds ${MAX_FIELD_DATA}`);
  w.bits(present ? 1 : 0, 1);
  if (version === 0) {
    if (idx >= FIELD_ROOT) throw new T38Error('not_in_version', `field type ${field.type} needs T.38 version 1 or later`);
    w.bits(idx, 3);
  } else {
    writeEnum(w, idx, FIELD_ROOT, 3);
  }
  if (present) {
    // SIZE (1..65535): a constrained length with a range under 64K, so (X.691) the length less 1
    // in two octet-aligned octets.
    w.octet((data.length - 1) >>> 8);
    w.octet((data.length - 1) & 0xff);
    w.octets(data);
  }
}

/** Decodes one complete IFP packet; bytes after it are an error. Field data are views of `bytes`. */
export function decodeIfp(bytes: Uint8Array, version: T38Version): IfpPacket {
  const { packet, length } = decodeIfpPrefix(bytes, version);
  if (length !== bytes.length) throw new T38Error('trailing_bytes', `${bytes.length - length} byte(s) after the IFP packet`, length);
  return packet;
}

/**
 * Decodes the IFP packet at the start of `bytes` and says how many octets it took: for
 * packets recovered by UDPTL FEC, which come zero-padded to the longest packet of their group.
 */
export function decodeIfpPrefix(bytes: Uint8Array, version: T38Version): { packet: IfpPacket; length: number } {
  checkVersion(version);
  return decodeAligned(bytes, version) ?? decodePer(bytes, version);
}

/** The inverse of encodeAligned; undefined for anything else, including every error (decodePer reports it). */
function decodeAligned(bytes: Uint8Array, version: T38Version): { packet: IfpPacket; length: number } | undefined {
  const len = bytes.length;
  if (len === 0) return undefined;
  const b0 = bytes[0]!;
  if (b0 & 0x20) return undefined; // an extension value
  const idx = (b0 >>> 1) & 0x0f;
  if ((b0 & 0x40) === 0) return b0 & 0x80 ? undefined : { packet: { type: 't30-indicator', indicator: INDICATORS[idx]! }, length: 1 };
  if (idx >= DATA_ROOT) return undefined;
  const fields: IfpField[] = [];
  const packet: IfpPacket = { type: 't30-data', dataType: DATA_TYPES[idx]!, fields };
  if ((b0 & 0x80) === 0) return { packet, length: 1 };
  if (len < 2 || bytes[1]! & 0x80) return undefined;
  const count = bytes[1]!;
  let at = 2;
  for (let i = 0; i < count; i++) {
    if (at >= len) return undefined;
    const b = bytes[at++]!;
    let type: number;
    if (version === 0) type = (b >>> 4) & 7;
    else if (b & 0x40) return undefined;
    else type = (b >>> 3) & 7;
    if ((b & 0x80) === 0) {
      if (i < count - 1) return undefined; // the next field shares this octet
      fields.push({ type: FIELD_TYPES[type]! });
      continue;
    }
    if (at + 2 > len) return undefined;
    const n = ((bytes[at]! << 8) | bytes[at + 1]!) + 1;
    at += 2;
    if (at + n > len) return undefined;
    fields.push({ type: FIELD_TYPES[type]!, data: bytes.subarray(at, at + n) });
    at += n;
  }
  return { packet, length: at };
}

/** The general PER decoder, bit by bit (see encodePer). */
export function decodePer(bytes: Uint8Array, version: T38Version): { packet: IfpPacket; length: number } {
  const r = new PerReader(bytes);
  const dataPresent = r.bits(1) === 1;
  const choice = r.bits(1);
  if (choice === 0) {
    const idx = readEnum(r, INDICATOR_ROOT, 4, INDICATORS.length, 'indicator');
    if (idx >= INDICATOR_ROOT && version === 0) throw new T38Error('not_in_version', `indicator ${INDICATORS[idx]} in a version 0 packet`, 0);
    if (dataPresent) throw new T38Error('invalid', 'indicator packet with a data field', 0);
    r.align();
    return { packet: { type: 't30-indicator', indicator: INDICATORS[idx]! }, length: r.bytesUsed };
  }
  const dIdx = readEnum(r, DATA_ROOT, 4, DATA_TYPES.length, 'data type');
  if (dIdx >= DATA_ROOT && version === 0) throw new T38Error('not_in_version', `data type ${DATA_TYPES[dIdx]} in a version 0 packet`, 0);
  const fields: IfpField[] = [];
  if (dataPresent) {
    for (let more = true; more; ) {
      const at = r.bytesUsed;
      const len = r.length();
      // Each field takes at least 4 bits: a count the rest of the packet cannot hold is corrupt.
      if (len.count > r.bytesLeft * 2) throw new T38Error('truncated', `${len.count} fields announced, ${r.bytesLeft} octet(s) left`, at);
      for (let i = 0; i < len.count; i++) fields.push(readField(r, version));
      more = len.more;
    }
  }
  r.align();
  return { packet: { type: 't30-data', dataType: DATA_TYPES[dIdx]!, fields }, length: r.bytesUsed };
}

function readEnum(r: PerReader, root: number, rootBits: number, known: number, what: string): number {
  const at = r.byteOffset;
  if (r.bits(1) === 0) {
    const idx = r.bits(rootBits);
    if (idx >= root) throw new T38Error('unknown_value', `${what} index ${idx} outside the root of ${root}`, at);
    return idx;
  }
  const idx = root + r.smallNumber();
  if (idx >= known) throw new T38Error('unknown_value', `${what} extension index ${idx - root} is not defined`, at);
  return idx;
}

function readField(r: PerReader, version: T38Version): IfpField {
  const present = r.bits(1) === 1;
  const idx = version === 0 ? r.bits(3) : readEnum(r, FIELD_ROOT, 3, FIELD_TYPES.length, 'field type');
  const type = FIELD_TYPES[idx]!;
  if (!present) return { type };
  const n = ((r.octet() << 8) | r.octet()) + 1;
  return { type, data: r.octets(n) };
}

/** Short text of a packet for logs and test failures: `t30-data v21 [hdlc-data(3) hdlc-fcs-OK]`. */
export function describeIfp(packet: IfpPacket): string {
  if (packet.type === 't30-indicator') return `t30-indicator ${packet.indicator}`;
  const fields = packet.fields.map((f) => (f.data?.length ? `${f.type}(${f.data.length})` : f.type));
  return `t30-data ${packet.dataType} [${fields.join(' ')}]`;
}
