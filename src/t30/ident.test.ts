import { describe, expect, it } from 'vitest';
import { toTsb, tsb } from '../../test/conformance/tsb85.js';
import { buildFrame, fcfByte, parseFrame } from './fcf.js';
import { decodeIdent, decodeNsf, encodeIdent } from './ident.js';

describe('identification frames', () => {
  it('sends "+0123456789" reversed and space padded (the CSI of TSB-85 MRGN01)', () => {
    const frame = buildFrame(fcfByte('CSI', 0), encodeIdent('+0123456789'), false);
    expect(toTsb(frame)).toBe('FF C0 02 9C 1C EC 6C AC 2C CC 4C 8C 0C D4 04 04 04 04 04 04 04 04 04');
  });

  it('reads a TSI+ and a PWD back', () => {
    expect(decodeIdent(parseFrame(tsb('FF C0 C2 9C 1C EC 6C AC 2C CC 4C 8C 0C D4 04 04 04 04 04 04 04 04 04'))!.info)).toBe('+0123456789');
    expect(decodeIdent(parseFrame(tsb('FF C0 83 0C 8C 4C CC 2C AC 6C EC 1C 9C D4 04 04 04 04 04 04 04 04 04'))!.info)).toBe('+9876543210');
  });

  it('takes 20 printable characters and no more', () => {
    expect(decodeIdent(encodeIdent('12345678901234567890'))).toBe('12345678901234567890');
    expect(decodeIdent(encodeIdent(''))).toBe('');
    expect(() => encodeIdent('123456789012345678901')).toThrow(RangeError);
    expect(() => encodeIdent('12\u00e934')).toThrow(/printable/);
    expect(decodeIdent(Uint8Array.of(0x31, 0x01, 0x32))).toBe('2?1');
  });

  it('keeps NSF raw with its T.35 country code', () => {
    expect(decodeNsf(Uint8Array.of(0xb5, 0x00, 0x31, 0x7f))).toMatchObject({ countryCode: 0xb5, data: Uint8Array.of(0x00, 0x31, 0x7f) });
    expect(decodeNsf(Uint8Array.of(0xff, 0x12, 0x01))).toMatchObject({ countryCode: 0xff12, data: Uint8Array.of(0x01) });
    expect(decodeNsf(new Uint8Array(0))).toBeUndefined();
  });
});
