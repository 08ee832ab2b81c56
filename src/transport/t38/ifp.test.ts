// IFP byte vectors, hand-built from the T.38 Annex A ASN.1 and X.691 (basic aligned PER), for
// versions 0 and 3: every indicator, data type and field type, multi-field packets, the v0
// nibble packing of fields without data, fragmentation, and every decoding error. The
// root-value vectors are the bytes spandsp's t38_core.c produces for the same packets.
import { describe, expect, it } from 'vitest';
import { T38Error } from './errors.js';
import {
  DATA_TYPES,
  decodeIfp,
  decodeIfpPrefix,
  decodePer,
  describeIfp,
  encodePer,
  encodeIfp,
  FIELD_TYPES,
  INDICATORS,
  type IfpField,
  type IfpPacket,
  type T38Version,
} from './ifp.js';
import { seededRandom } from './random.js';

const hex = (s: string) => Uint8Array.from(s.split(/\s+/).filter(Boolean).map((b) => parseInt(b, 16)));
const toHex = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, '0')).join(' ');

function roundTrip(packet: IfpPacket, version: T38Version, bytes: string): void {
  expect(toHex(encodeIfp(packet, version))).toBe(toHex(hex(bytes)));
  expect(normalize(decodeIfp(hex(bytes), version))).toEqual(normalize(packet));
}

/** Compares data as plain arrays; absent and empty field-data are the same on the wire. */
function normalize(p: IfpPacket): unknown {
  if (p.type === 't30-indicator') return p;
  return { ...p, fields: p.fields.map((f) => (f.data?.length ? { type: f.type, data: [...f.data] } : { type: f.type })) };
}

function errorKind(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    if (err instanceof T38Error) return err.kind;
    throw err;
  }
  return 'no error';
}

describe('IFP indicators (T.38 Annex A Type-of-msg t30-indicator)', () => {
  // Root: preamble bit 0 (no data-field), CHOICE bit 0, extension bit 0, 4-bit index, pad.
  const root = INDICATORS.slice(0, 16).map((ind, i) => [ind, (i << 1).toString(16).padStart(2, '0')] as const);
  describe.each([0, 3] as const)('version %i', (version) => {
    it.each(root)('%s = %s', (indicator, bytes) => roundTrip({ type: 't30-indicator', indicator }, version, bytes));
  });

  // Extension additions: extension bit 1, then a normally small number (0 + 6 bits).
  it.each([
    ['v8-ansam', '20 00'],
    ['v8-signal', '20 40'],
    ['v34-cntl-channel-1200', '20 80'],
    ['v34-pri-channel', '20 c0'],
    ['v34-CC-retrain', '21 00'],
    ['v33-12000-training', '21 40'],
    ['v33-14400-training', '21 80'],
  ] as const)('version 3: %s = %s', (indicator, bytes) => {
    roundTrip({ type: 't30-indicator', indicator }, 3, bytes);
    roundTrip({ type: 't30-indicator', indicator }, 1, bytes);
    expect(errorKind(() => encodeIfp({ type: 't30-indicator', indicator }, 0))).toBe('not_in_version');
    expect(errorKind(() => decodeIfp(hex(bytes), 0))).toBe('not_in_version');
  });

  it('has every indicator of the ASN.1, in order', () => {
    expect(INDICATORS).toHaveLength(23);
    expect(INDICATORS.indexOf('v17-14400-long-training')).toBe(15);
    expect(INDICATORS.indexOf('v8-ansam')).toBe(16);
  });
});

describe('IFP data types (t30-data), without a data field', () => {
  const root = DATA_TYPES.slice(0, 9).map((t, i) => [t, (0x40 | (i << 1)).toString(16)] as const);
  describe.each([0, 3] as const)('version %i', (version) => {
    it.each(root)('%s = %s', (dataType, bytes) => roundTrip({ type: 't30-data', dataType, fields: [] }, version, bytes));
  });
  it.each([
    ['v8', '60 00'],
    ['v34-pri-rate', '60 40'],
    ['v34-CC-1200', '60 80'],
    ['v34-pri-ch', '60 c0'],
    ['v33-12000', '61 00'],
    ['v33-14400', '61 40'],
  ] as const)('version 3: %s = %s', (dataType, bytes) => {
    roundTrip({ type: 't30-data', dataType, fields: [] }, 3, bytes);
    expect(errorKind(() => encodeIfp({ type: 't30-data', dataType, fields: [] }, 0))).toBe('not_in_version');
  });
});

describe('IFP data fields', () => {
  const hdlc = hex('ff 13 80');
  it.each([
    // field byte, v0: present, 3-bit type, 4 pad bits; v3: present, extension bit, 3-bit type, 3 pad bits
    ['hdlc-data', '80', '80'],
    ['hdlc-sig-end', '90', '88'],
    ['hdlc-fcs-OK', 'a0', '90'],
    ['hdlc-fcs-BAD', 'b0', '98'],
    ['hdlc-fcs-OK-sig-end', 'c0', 'a0'],
    ['hdlc-fcs-BAD-sig-end', 'd0', 'a8'],
    ['t4-non-ecm-data', 'e0', 'b0'],
    ['t4-non-ecm-sig-end', 'f0', 'b8'],
  ] as const)('%s with data: v0 %s, v3 %s', (type, v0, v3) => {
    const packet: IfpPacket = { type: 't30-data', dataType: 'v21', fields: [{ type, data: hdlc }] };
    // c0: data-field present, CHOICE t30-data, v21; 01: one field; 00 02: length 3 less 1.
    roundTrip(packet, 0, `c0 01 ${v0} 00 02 ff 13 80`);
    roundTrip(packet, 3, `c0 01 ${v3} 00 02 ff 13 80`);
  });

  it.each([
    ['hdlc-sig-end', '10', '08'],
    ['hdlc-fcs-OK', '20', '10'],
    ['hdlc-fcs-OK-sig-end', '40', '20'],
    ['t4-non-ecm-sig-end', '70', '38'],
  ] as const)('%s without data: v0 %s, v3 %s', (type, v0, v3) => {
    const packet: IfpPacket = { type: 't30-data', dataType: 'v17-14400', fields: [{ type }] };
    roundTrip(packet, 0, `d0 01 ${v0}`);
    roundTrip(packet, 3, `d0 01 ${v3}`);
  });

  it('puts the last data chunk and hdlc-fcs-OK in one packet (spandsp sends this)', () => {
    const packet: IfpPacket = { type: 't30-data', dataType: 'v21', fields: [{ type: 'hdlc-data', data: hex('ff c8') }, { type: 'hdlc-fcs-OK' }] };
    roundTrip(packet, 0, 'c0 02 80 00 01 ff c8 20');
    roundTrip(packet, 3, 'c0 02 80 00 01 ff c8 10');
  });

  it('packs a field without data and the next field into one octet in version 0 (4 + 4 bits)', () => {
    const packet: IfpPacket = { type: 't30-data', dataType: 'v29-9600', fields: [{ type: 'hdlc-fcs-OK' }, { type: 'hdlc-data', data: hex('ab') }] };
    roundTrip(packet, 0, 'c8 02 28 00 00 ab');
    // Version 1+: 5 bits each (present, extension, type); the length is then octet-aligned.
    roundTrip(packet, 3, 'c8 02 14 00 00 00 ab');
    roundTrip({ type: 't30-data', dataType: 'v21', fields: [{ type: 'hdlc-fcs-OK' }, { type: 'hdlc-fcs-OK-sig-end' }] }, 0, 'c0 02 24');
    roundTrip({ type: 't30-data', dataType: 'v21', fields: [{ type: 'hdlc-fcs-OK' }, { type: 'hdlc-fcs-OK-sig-end' }] }, 3, 'c0 02 11 00');
  });

  it.each([
    // present, extension 1, normally small number 0 + 6 bits: 9 bits before the aligned length.
    // (spandsp 0.0.6 writes these one bit later — jm-message as c0 40 — which X.691 and
    // Wireshark read as cm-message; only V.34 fax uses them, and we follow X.691.)
    ['cm-message', 'c0 00 00 01 01 2a'],
    ['jm-message', 'c0 80 00 01 01 2a'],
    ['ci-message', 'c1 00 00 01 01 2a'],
    ['v34rate', 'c1 80 00 01 01 2a'],
  ] as const)('version 3 extension field %s', (type, bytes) => {
    const packet: IfpPacket = { type: 't30-data', dataType: 'v8', fields: [{ type, data: hex('01 2a') }] };
    roundTrip(packet, 3, `e0 00 01 ${bytes}`);
    expect(errorKind(() => encodeIfp({ type: 't30-data', dataType: 'v21', fields: [{ type }] }, 0))).toBe('not_in_version');
  });

  it('carries field-data of 1 and 65535 octets, and refuses 65536', () => {
    const big = new Uint8Array(65535).map((_, i) => i * 7);
    const enc = encodeIfp({ type: 't30-data', dataType: 'v17-14400', fields: [{ type: 't4-non-ecm-data', data: big }] }, 3);
    expect(toHex(enc.subarray(0, 5))).toBe('d0 01 b0 ff fe');
    expect(enc.length).toBe(5 + 65535);
    const dec = decodeIfp(enc, 3);
    expect(dec.type === 't30-data' && dec.fields[0]!.data).toEqual(big);
    roundTrip({ type: 't30-data', dataType: 'v27-2400', fields: [{ type: 't4-non-ecm-data', data: hex('00') }] }, 0, 'c2 01 e0 00 00 00');
    expect(errorKind(() => encodeIfp({ type: 't30-data', dataType: 'v21', fields: [{ type: 'hdlc-data', data: new Uint8Array(65536) }] }, 0))).toBe('too_large');
  });

  it('fragments a sequence of more than 16K fields (X.691 length determinant)', () => {
    const fields: IfpField[] = Array.from({ length: 20000 }, (_, i) => ({ type: i % 2 ? 'hdlc-fcs-OK' : 'hdlc-sig-end' }));
    const packet: IfpPacket = { type: 't30-data', dataType: 'v21', fields };
    const enc = encodeIfp(packet, 0);
    expect(enc[1]).toBe(0xc1); // a fragment of 1 × 16K items
    expect(enc[2 + 8192]).toBe(0x80 | ((20000 - 16384) >> 8));
    expect(normalize(decodeIfp(enc, 0))).toEqual(normalize(packet));
    expect(normalize(decodeIfp(encodeIfp(packet, 3), 3))).toEqual(normalize(packet));
  });

  it('describes packets for logs', () => {
    expect(describeIfp({ type: 't30-data', dataType: 'v21', fields: [{ type: 'hdlc-data', data: hex('ff 03') }, { type: 'hdlc-fcs-OK' }] })).toBe(
      't30-data v21 [hdlc-data(2) hdlc-fcs-OK]',
    );
  });
});

describe('IFP decoding errors', () => {
  it.each([
    ['empty', '', 0, 'truncated'],
    ['indicator with a data field', '82', 0, 'invalid'],
    ['extension indicator cut short', '20', 3, 'truncated'],
    ['undefined extension indicator', '21 c0', 3, 'unknown_value'],
    ['data type index 9 in the 4-bit root', '52', 3, 'unknown_value'],
    ['data type index 15', '5e', 0, 'unknown_value'],
    ['field count missing', 'c0', 0, 'truncated'],
    ['field missing', 'c0 01', 0, 'truncated'],
    ['field length missing', 'c0 01 80', 3, 'truncated'],
    ['field data short', 'c0 01 80 00 05 01 02', 0, 'truncated'],
    ['more fields than octets', 'c0 7f 80', 0, 'truncated'],
    ['fragment multiplier 5', 'c0 c5', 0, 'invalid'],
    ['bytes after the packet', '02 00', 0, 'trailing_bytes'],
    ['bytes after a data packet', 'c0 01 20 ff', 0, 'trailing_bytes'],
    ['undefined extension field type', 'c0 01 c2 00 00 00 01', 3, 'unknown_value'],
  ] as const)('%s (%s, v%i) → %s', (_name, bytes, version, kind) => {
    expect(errorKind(() => decodeIfp(hex(bytes), version))).toBe(kind);
  });

  it('decodes a prefix and says how long it was (FEC-rebuilt packets are zero-padded)', () => {
    expect(decodeIfpPrefix(hex('02 00 00'), 0)).toEqual({ packet: { type: 't30-indicator', indicator: 'cng' }, length: 1 });
    expect(decodeIfpPrefix(hex('c0 01 80 00 00 7e 00 00'), 3).length).toBe(6);
  });

  it('refuses unknown names and versions when encoding', () => {
    expect(errorKind(() => encodeIfp({ type: 't30-indicator', indicator: 'dtmf' as never }, 0))).toBe('unknown_value');
    expect(errorKind(() => encodeIfp({ type: 't30-data', dataType: 'v90' as never, fields: [] }, 0))).toBe('unknown_value');
    expect(errorKind(() => encodeIfp({ type: 't30-data', dataType: 'v21', fields: [{ type: 'crc' as never }] }, 0))).toBe('unknown_value');
    expect(errorKind(() => encodeIfp({ type: 't30-indicator', indicator: 'cng' }, 4 as never))).toBe('bad_parameter');
  });
});

describe('IFP random round trips', () => {
  it.each([0, 1, 2, 3] as const)('version %i: 3000 random packets survive encode → decode', (version) => {
    const rnd = seededRandom(1000 + version);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
    for (let n = 0; n < 3000; n++) {
      let packet: IfpPacket;
      if (rnd() < 0.3) {
        packet = { type: 't30-indicator', indicator: pick(version === 0 ? INDICATORS.slice(0, 16) : INDICATORS) };
      } else {
        const fields: IfpField[] = [];
        const count = Math.floor(rnd() * 5);
        for (let i = 0; i < count; i++) {
          const type = pick(version === 0 ? FIELD_TYPES.slice(0, 8) : FIELD_TYPES);
          const len = rnd() < 0.4 ? 0 : 1 + Math.floor(rnd() * 300);
          fields.push(len ? { type, data: Uint8Array.from({ length: len }, () => Math.floor(rnd() * 256)) } : { type });
        }
        packet = { type: 't30-data', dataType: pick(version === 0 ? DATA_TYPES.slice(0, 9) : DATA_TYPES), fields };
      }
      const bytes = encodeIfp(packet, version);
      expect(bytes).toEqual(encodePer(packet, version)); // the byte-wise path agrees with the bit-wise one
      expect(normalize(decodeIfp(bytes, version))).toEqual(normalize(packet));
      expect(normalize(decodePer(bytes, version).packet)).toEqual(normalize(packet));
      expect(decodeIfpPrefix(Uint8Array.from([...bytes, 0, 0, 0]), version).length).toBe(bytes.length);
    }
  });
});
