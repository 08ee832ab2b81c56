// DIS/DTC/DCS byte vectors. FIFs from TSB-85 test scripts are written first-transmitted bit
// first (tsbFif converts); ours are derived by hand from T.30 Table 2, bit numbers cited.
import { describe, expect, it } from 'vitest';
import { tsbFif } from '../../test/conformance/tsb85.js';
import { decodeCtc, decodeDcs, decodeDis, DIS_DEFAULTS, encodeCtc, encodeDcs, encodeDis, type Dcs, type Dis } from './dis.js';
import { disFor } from './negotiate.js';
import { ALL_RESOLUTIONS, NO_SCAN_TIME, widthPixels } from './modes.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

const DCS_BASE: Dcs = {
  receive: true,
  modem: { modulation: 'v27ter', bitRate: 4800 },
  resolution: 'R8_STANDARD',
  coding: 'mh',
  width: 'a4',
  length: 'a4',
  scanLineMs: 20,
  ecm: false,
  ecmFrameSize: 256,
  subaddress: false,
  senderId: false,
};

describe('DIS decode (TSB-85 vectors)', () => {
  it('00 50 00: receiver, V.27 ter, standard, A4, A4, 20 ms', () => {
    const dis = decodeDis(tsbFif('FF C8 01 00 50 00'));
    expect(dis.readyToReceive).toBe(true); // bit 10
    expect(dis.modems).toEqual({ v27ter: true, v29: false, v17: false }); // bits 11-14 = 0100
    expect(dis.resolutions).toEqual(['R8_STANDARD']);
    expect(dis.widths).toEqual(['a4']);
    expect(dis.lengths).toEqual(['a4']);
    expect(dis.scanLine).toEqual({ standardMs: 20, fineMs: 20, superfineMs: 20 }); // bits 21-23 = 000
    expect(dis.ecm || dis.twoD || dis.t6).toBe(false);
  });

  it('00 72 20: V.27 ter + V.29, fine, A4/B4 lengths', () => {
    const dis = decodeDis(tsbFif('FF C8 01 00 72 20'));
    expect(dis.modems).toEqual({ v27ter: true, v29: true, v17: false }); // 1100
    expect(dis.resolutions).toEqual(['R8_STANDARD', 'R8_FINE', '200_200']); // bit 15
    expect(dis.lengths).toEqual(['a4', 'b4']); // bit 19
  });

  it('00 76 20: V.17 (code 1101)', () => {
    expect(decodeDis(tsbFif('FF C8 01 00 76 20')).modems).toEqual({ v27ter: true, v29: true, v17: true });
  });

  it('00 74 51 01 C0: A3 width, unlimited length, extend bits, FNV and multiple polling', () => {
    const dis = decodeDis(tsbFif('FF C8 01 00 74 51 01 C0'));
    expect(dis.widths).toEqual(['a4', 'b4', 'a3']); // bit 18
    expect(dis.lengths).toEqual(['a4', 'b4', 'unlimited']); // bit 20
    expect(dis.fnv).toBe(true); // bit 33
    expect(dis.multipleSelectivePolling).toBe(true); // bit 34
    expect(dis.readyToReceive).toBe(true);
  });

  it('00 80 11 01 01 01 40: a polling DIS (bit 9), password (bit 50)', () => {
    const dis = decodeDis(tsbFif('FF C8 01 00 80 11 01 01 01 40'));
    expect(dis.readyToTransmit).toBe(true);
    expect(dis.readyToReceive).toBe(false);
    expect(dis.modems).toEqual({ v27ter: true, v27terFallbackOnly: true, v29: false, v17: false }); // 0000: 2400 only
    expect(dis.password).toBe(true);
  });
});

describe('DIS encode', () => {
  it('faxstack receiver default: 00 EE FA C4 80 9F 01', () => {
    const dis = disFor({
      modems: { v27ter: true, v29: true, v17: true },
      ecm: true,
      codings: ['mh', 'mr', 'mmr'],
      resolutions: ALL_RESOLUTIONS,
      widths: ['a4', 'b4', 'a3'],
      lengths: ['a4', 'b4', 'unlimited'],
      scanLine: NO_SCAN_TIME,
    });
    // octet 1: bits 10 (receive), 11+12+14 (V.17 code 1101), 15 (fine), 16 (2-D)          = EE
    // octet 2: bit 18 (A3 width), 20 (unlimited), 21-23 = 111 (0 ms), 24 extend           = FA
    // octet 3: bit 27 (ECM), 31 (T.6), 32 extend                                           = C4
    // octet 4: bit 40 extend                                                               = 80
    // octet 5: bits 41 (superfine), 42 (300), 43 (R16), 44 (inch), 45 (metric), 48 extend = 9F
    // octet 6: bit 49 (subaddressing)                                                      = 01
    expect(hex(encodeDis(dis))).toBe('00eefac4809f01');
  });

  it('the smallest DIS is three octets without extend bit', () => {
    expect(hex(encodeDis({ ...DIS_DEFAULTS, readyToReceive: true, modems: { v27ter: true, v29: false, v17: false } }))).toBe('000a00');
  });

  it('encodes the halved scan-line times (bits 21-23 code 110 = 20/10 ms, bit 46)', () => {
    const fif = encodeDis({ ...DIS_DEFAULTS, scanLine: { standardMs: 20, fineMs: 10, superfineMs: 5 } });
    expect(decodeDis(fif).scanLine).toEqual({ standardMs: 20, fineMs: 10, superfineMs: 5 });
    expect(fif[2]! & 0x70).toBe(0x30); // b21 + b22
    expect(fif[5]! & 0x20).toBe(0x20); // bit 46
    expect(() => encodeDis({ ...DIS_DEFAULTS, scanLine: { standardMs: 5, fineMs: 20, superfineMs: 20 } })).toThrow(RangeError);
  });

  it('round-trips every field we use', () => {
    const dis: Dis = {
      ...DIS_DEFAULTS,
      readyToReceive: true,
      modems: { v27ter: true, v29: true, v17: false },
      resolutions: ['R8_STANDARD', 'R8_FINE', 'R8_SUPERFINE', 'R16_SUPERFINE', '200_200', '200_400', '400_400'],
      metricPreferred: true,
      twoD: true,
      ecm: true,
      t6: true,
      widths: ['a4', 'b4'],
      lengths: ['a4', 'b4'],
      scanLine: { standardMs: 40, fineMs: 20, superfineMs: 20 },
      subaddressing: true,
      password: true,
      kGreaterThan4: true,
    };
    expect(decodeDis(encodeDis(dis))).toEqual(dis);
  });
});

describe('DCS', () => {
  it('TSB-85 00 50 00 is 4800 V.27 ter, standard, MH, A4, 20 ms — and we write it the same', () => {
    const dec = decodeDcs(tsbFif('FF C8 41 00 50 00'));
    expect(dec).toEqual({ ok: true, dcs: DCS_BASE });
    expect(hex(encodeDcs(DCS_BASE))).toBe(hex(tsbFif('FF C8 41 00 50 00')));
  });

  it('TSB-85 00 50 1F 30 is ECM with 64-octet frames, unlimited length, 0 ms', () => {
    const dec = decodeDcs(tsbFif('FF C8 41 00 50 1F 30'));
    expect(dec.ok && dec.dcs).toEqual({ ...DCS_BASE, length: 'unlimited', scanLineMs: 0, ecm: true, ecmFrameSize: 64 });
  });

  it.each<[string, Partial<Dcs>, string]>([
    // bit 10; bits 11-14 = 0001 (14400 V.17); 15 fine; 16 MR; 21-23 = 010 (10 ms)  → 00 E2 20
    ['14400 V.17 fine MR 10 ms', { modem: { modulation: 'v17', bitRate: 14400 }, resolution: 'R8_FINE', coding: 'mr', scanLineMs: 10 }, '00e220'],
    // 1010: 12000 V.17 (bits 12, 14)                                                  → 00 2A 00
    ['12000 V.17', { modem: { modulation: 'v17', bitRate: 12000 } }, '002a00'],
    // bits 11-14 = 1000: 9600 V.29; 1100: 7200 V.29; 1001/1101: V.17; 0000: 2400
    ['9600 V.29', { modem: { modulation: 'v29', bitRate: 9600 } }, '000600'],
    ['7200 V.29', { modem: { modulation: 'v29', bitRate: 7200 } }, '000e00'],
    ['9600 V.17', { modem: { modulation: 'v17', bitRate: 9600 } }, '002600'],
    ['7200 V.17', { modem: { modulation: 'v17', bitRate: 7200 } }, '002e00'],
    ['2400 V.27 ter', { modem: { modulation: 'v27ter', bitRate: 2400 } }, '000200'],
    // ECM (27) + T.6 (31), 0 ms (21-23 = 111), extend 24                              → 00 0A F0 44
    ['MMR in ECM', { coding: 'mmr', ecm: true, scanLineMs: 0 }, '000af044'],
    // R8 superfine: bit 41 → octet 5, extend bits 24/32/40                            → 00 0A 80 80 80 01
    ['R8 superfine', { resolution: 'R8_SUPERFINE' }, '000a80808001'],
    // R16 superfine: bit 43 (metric: bit 44 clear)                                     → … 04
    ['R16 superfine', { resolution: 'R16_SUPERFINE' }, '000a80808004'],
    // 400 × 400: bit 43 + bit 44 (inch)                                                → … 0C
    ['400 x 400 inch', { resolution: '400_400' }, '000a8080800c'],
    // 200 × 200: bit 15 + 44; 200 × 100: bit 44 only
    ['200 x 200 inch', { resolution: '200_200' }, '004a80808008'],
    ['200 x 100 inch', { resolution: '200_100' }, '000a80808008'],
    // B4 width: bit 17; A3: bit 18; B4 length: bit 19
    ['B4 width', { width: 'b4' }, '000a01'],
    ['A3 width B4 length', { width: 'a3', length: 'b4' }, '000a06'],
    // SUB follows (bit 49)                                                              → … 01 at octet 6
    ['with SUB', { subaddress: true }, '000a8080808001'],
  ])('%s', (_name, change, fif) => {
    const dcs = { ...DCS_BASE, ...change };
    expect(hex(encodeDcs(dcs))).toBe(fif);
    const back = decodeDcs(encodeDcs(dcs));
    expect(back).toEqual({ ok: true, dcs });
  });

  it('width bits name the paper; the pels follow the resolution (3456 = A4 at R16)', () => {
    expect(widthPixels('a4', 'R8_FINE')).toBe(1728);
    expect(widthPixels('b4', 'R8_FINE')).toBe(2048);
    expect(widthPixels('a3', '200_200')).toBe(2432);
    expect(widthPixels('a4', 'R16_SUPERFINE')).toBe(3456);
    expect(widthPixels('a3', '400_400')).toBe(4864);
    expect(widthPixels('a4', '300_300')).toBe(2592);
  });

  it('refuses what it cannot represent or read', () => {
    expect(() => encodeDcs({ ...DCS_BASE, coding: 'mmr' })).toThrow(/ECM/);
    expect(() => encodeDcs({ ...DCS_BASE, modem: { modulation: 'v29', bitRate: 4800 } })).toThrow(RangeError);
    expect(decodeDcs(Uint8Array.of(0, 0x02 | (0b0100 << 2), 0))).toMatchObject({ ok: false }); // bits 11-14 = 0010: reserved
    expect(decodeDcs(Uint8Array.of(0, 0x0a))).toMatchObject({ ok: false });
    expect(decodeDcs(Uint8Array.of(0, 0x0a, 0x80, 0x40))).toMatchObject({ ok: false, reason: /without ECM/ }); // T.6 without ECM
  });

  it('CTC carries the new rate in DCS bits 11-14', () => {
    expect(hex(encodeCtc({ modulation: 'v29', bitRate: 9600 }))).toBe('0004');
    expect(decodeCtc(Uint8Array.of(0, 0x20))).toEqual({ modulation: 'v17', bitRate: 14400 });
    expect(decodeCtc(Uint8Array.of(0))).toBeUndefined();
  });
});
