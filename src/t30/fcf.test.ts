// FCF values against TSB-85 notation (first-transmitted bit first), the X bit of T.30 5.3.6.1,
// and frame parsing.
import { describe, expect, it } from 'vitest';
import { toTsb, tsb } from '../../test/conformance/tsb85.js';
import { buildFrame, decodeFcf, Fcf, fcfByte, parseFrame, type FcfName } from './fcf.js';

describe('FCF table', () => {
  // [name, X = 0 frame, X = 1 frame] as TSB-85 scripts write them ("+" marks X = 1 there).
  it.each<[FcfName, string, string]>([
    ['DIS', 'FF C8 01', 'FF C8 01'],
    ['DTC', 'FF C8 81', 'FF C8 81'],
    ['DCS', 'FF C8 41', 'FF C8 C1'],
    ['CFR', 'FF C8 21', 'FF C8 A1'],
    ['FTT', 'FF C8 22', 'FF C8 A2'],
    ['CTR', 'FF C8 23', 'FF C8 A3'],
    ['MPS', 'FF C8 72', 'FF C8 F2'],
    ['EOP', 'FF C8 74', 'FF C8 F4'],
    ['EOM', 'FF C8 71', 'FF C8 F1'],
    ['MCF', 'FF C8 31', 'FF C8 B1'],
    ['RTP', 'FF C8 33', 'FF C8 B3'],
    ['RTN', 'FF C8 32', 'FF C8 B2'],
    ['RNR', 'FF C8 37', 'FF C8 B7'],
    ['RR', 'FF C8 76', 'FF C8 F6'],
    ['ERR', 'FF C8 38', 'FF C8 B8'],
    ['CRP', 'FF C8 58', 'FF C8 D8'],
    ['DCN', 'FF C8 5F', 'FF C8 DF'],
    ['PPS', 'FF C8 7D', 'FF C8 FD'],
    ['PPR', 'FF C8 3D', 'FF C8 BD'],
    ['EOR', 'FF C8 73', 'FF C8 F3'],
    ['CTC', 'FF C8 48', 'FF C8 C8'],
  ])('%s', (name, x0, x1) => {
    expect(toTsb(buildFrame(fcfByte(name, 0)))).toBe(x0);
    expect(toTsb(buildFrame(fcfByte(name, 1)))).toBe(x1);
    expect(decodeFcf(tsb(x1)[2]!)).toEqual({ name, x: name === 'DIS' || name === 'DTC' ? 0 : 1 });
    expect(decodeFcf(tsb(x0)[2]!).name).toBe(name);
  });

  it('keeps the fixed bit 0 of the DIS and DTC families (CSI/CIG, NSF/NSC, PWD/SUB …)', () => {
    expect(decodeFcf(Fcf.CSI).name).toBe('CSI');
    expect(decodeFcf(Fcf.CIG).name).toBe('CIG');
    expect(decodeFcf(Fcf.NSF).name).toBe('NSF');
    expect(decodeFcf(Fcf.NSC).name).toBe('NSC');
    expect(decodeFcf(Fcf.PWD).name).toBe('PWD');
    expect(decodeFcf(Fcf.SUB | 1)).toEqual({ name: 'SUB', x: 1 });
    expect(decodeFcf(Fcf.ISP).name).toBe('ISP');
    expect(decodeFcf(Fcf.CTC | 1)).toEqual({ name: 'CTC', x: 1 });
    expect(fcfByte('CSI', 1)).toBe(0x40);
    expect(fcfByte('TSI', 1)).toBe(0x43);
    expect(decodeFcf(0x00).name).toBe('NULL');
    expect(decodeFcf(0xf0).name).toBeUndefined();
  });

  it('reads frames and refuses what is no T.30 frame', () => {
    const f = parseFrame(tsb('FF C0 C2 9C 1C'))!;
    expect(f).toMatchObject({ name: 'TSI', x: 1, final: false });
    expect([...f.info]).toEqual([0x39, 0x38]);
    expect(parseFrame(tsb('FF C8 31'))).toMatchObject({ name: 'MCF', final: true });
    expect(parseFrame(Uint8Array.of(0xff, 0x13))).toBeNull();
    expect(parseFrame(Uint8Array.of(0xfe, 0x13, 0x8c))).toBeNull();
    expect(parseFrame(Uint8Array.of(0xff, 0x07, 0x8c))).toBeNull();
    expect(toTsb(buildFrame(Fcf.FCD, [1, 2], false))).toBe('FF C0 60 80 40');
    expect(toTsb(buildFrame(Fcf.RCP, [], false))).toBe('FF C0 61');
  });
});
