// Choosing the mode from a DIS, and the receiver's view of a DCS.
import { describe, expect, it } from 'vitest';
import { DIS_DEFAULTS, type Dcs, type Dis } from './dis.js';
import { ratesFor, RATE_CODES, type ModemSupport } from './modes.js';
import { chooseMode, paramsFromDcs, type ReceiverCaps, type TransmitterCaps } from './negotiate.js';

const ALL: ModemSupport = { v27ter: true, v29: true, v17: true };
const TX: TransmitterCaps = { modems: ALL, ecm: true, ecmFrameSize: 256, codings: ['mh', 'mr', 'mmr'] };
const DIS: Dis = { ...DIS_DEFAULTS, readyToReceive: true, modems: ALL, resolutions: ['R8_STANDARD', 'R8_FINE'], twoD: true, ecm: true, t6: true };
const FINE = { resolutions: ['R8_FINE', 'R8_STANDARD'] as const, widths: ['a4'] as const };
const rate = RATE_CODES[0]!;

describe('chooseMode', () => {
  it('prefers MMR over MR over MH, MMR only with ECM', () => {
    const pick = (dis: Partial<Dis>, tx: Partial<TransmitterCaps> = {}): unknown => {
      const c = chooseMode({ ...DIS, ...dis }, { ...TX, ...tx }, rate, FINE);
      return c.ok ? `${c.params.coding}${c.params.ecm ? '+ecm' : ''}` : c.completion;
    };
    expect(pick({})).toBe('mmr+ecm');
    expect(pick({ t6: false })).toBe('mr+ecm');
    expect(pick({ ecm: false })).toBe('mr');
    expect(pick({}, { ecm: false })).toBe('mr');
    expect(pick({ twoD: false, t6: false })).toBe('mh+ecm');
    expect(pick({ ecm: false }, { codings: ['mmr'] })).toBe('T30_ERR_INCOMPATIBLE');
    expect(pick({ twoD: false }, { codings: ['mr'], ecm: false })).toBe('T30_ERR_INCOMPATIBLE');
  });

  it('takes the first resolution and width of the page the receiver has', () => {
    const c = chooseMode(DIS, TX, rate, { resolutions: ['R16_SUPERFINE', 'R8_SUPERFINE', 'R8_FINE'], widths: ['a3', 'a4'] });
    expect(c.ok && [c.params.resolution, c.params.paperWidth, c.params.widthPixels]).toEqual(['R8_FINE', 'a4', 1728]);
    const hd = chooseMode({ ...DIS, resolutions: [...DIS.resolutions, 'R16_SUPERFINE'], widths: ['a4', 'b4'] }, TX, rate, { resolutions: ['R16_SUPERFINE'], widths: ['b4', 'a4'] });
    expect(hd.ok && [hd.params.resolution, hd.params.widthPixels, hd.params.xDpi, hd.params.yDpi]).toEqual(['R16_SUPERFINE', 4096, 408, 391]);
    expect(chooseMode(DIS, TX, rate, { resolutions: ['400_400'], widths: ['a4'] })).toMatchObject({ ok: false, completion: 'T30_ERR_NORESSUPPORT' });
    expect(chooseMode(DIS, TX, rate, { resolutions: ['R8_FINE'], widths: ['b4'] })).toMatchObject({ ok: false, completion: 'T30_ERR_NOSIZESUPPORT' });
  });

  it('applies the minimum scan-line time of the resolution (non-ECM only) at the rate', () => {
    const dis = { ...DIS, resolutions: [...DIS.resolutions, 'R8_SUPERFINE' as const], scanLine: { standardMs: 20 as const, fineMs: 10 as const, superfineMs: 5 as const } };
    const at = (resolution: 'R8_STANDARD' | 'R8_FINE' | 'R8_SUPERFINE', ecm: boolean): [number, number] => {
      const c = chooseMode(dis, { ...TX, ecm }, RATE_CODES[3]!, { resolutions: [resolution], widths: ['a4'] });
      if (!c.ok) throw new Error(c.detail);
      return [c.params.scanLineMs, c.params.minScanLineBits];
    };
    expect(at('R8_STANDARD', false)).toEqual([20, 192]); // 9600 bit/s × 20 ms
    expect(at('R8_FINE', false)).toEqual([10, 96]);
    expect(at('R8_SUPERFINE', false)).toEqual([5, 48]);
    expect(at('R8_STANDARD', true)).toEqual([0, 0]);
  });

  it('uses K = 4 above fine unless the receiver asks for more (bit 122), and the longest length', () => {
    const sf = { ...DIS, resolutions: [...DIS.resolutions, 'R8_SUPERFINE' as const], lengths: ['a4', 'b4'] as Dis['lengths'] };
    const c = chooseMode(sf, TX, rate, { resolutions: ['R8_SUPERFINE'], widths: ['a4'] });
    expect(c.ok && [c.params.kFactor, c.params.length]).toEqual([4, 'b4']);
    const k = chooseMode({ ...sf, kGreaterThan4: true }, TX, rate, { resolutions: ['R8_SUPERFINE'], widths: ['a4'] });
    expect(k.ok && k.params.kFactor).toBe(8);
  });
});

describe('ratesFor', () => {
  const names = (l: ModemSupport, r: ModemSupport, max?: number): string[] => ratesFor(l, r, max).map((s) => `${s.modem.modulation}/${s.modem.bitRate}`);
  it('one modulation per rate, best first', () => {
    expect(names(ALL, ALL)).toEqual(['v17/14400', 'v17/12000', 'v29/9600', 'v29/7200', 'v27ter/4800', 'v27ter/2400']);
    expect(names(ALL, { v27ter: true, v29: true, v17: false })).toEqual(['v29/9600', 'v29/7200', 'v27ter/4800', 'v27ter/2400']);
    expect(names(ALL, { v27ter: false, v29: true, v17: false })).toEqual(['v29/9600', 'v29/7200']);
    expect(names(ALL, { v27ter: true, v27terFallbackOnly: true, v29: false, v17: false })).toEqual(['v27ter/2400']);
    expect(names({ v27ter: true, v29: false, v17: true }, ALL)).toEqual(['v17/14400', 'v17/12000', 'v17/9600', 'v17/7200', 'v27ter/4800', 'v27ter/2400']);
    expect(names(ALL, ALL, 9600)).toEqual(['v29/9600', 'v29/7200', 'v27ter/4800', 'v27ter/2400']);
    expect(names({ v27ter: false, v29: false, v17: true }, { v27ter: true, v29: false, v17: false })).toEqual([]);
  });
});

describe('paramsFromDcs', () => {
  const RX: ReceiverCaps = { modems: ALL, ecm: true, codings: ['mh', 'mr', 'mmr'], resolutions: ['R8_STANDARD', 'R8_FINE'], widths: ['a4'], lengths: ['a4'], scanLine: { standardMs: 0, fineMs: 0, superfineMs: 0 } };
  const DCS: Dcs = { receive: true, modem: { modulation: 'v29', bitRate: 9600 }, resolution: 'R8_FINE', coding: 'mr', width: 'a4', length: 'a4', scanLineMs: 10, ecm: false, ecmFrameSize: 256, subaddress: false, senderId: false };
  it('reads the mode, with the fill the transmitter owes at that rate', () => {
    expect(paramsFromDcs(DCS, RX)).toMatchObject({ ok: true, params: { widthPixels: 1728, minScanLineBits: 96, kFactor: 4, yDpi: 196 } });
    // 200 × 200 rides on the same DIS bit as R8 fine.
    expect(paramsFromDcs({ ...DCS, resolution: '200_200' }, RX)).toMatchObject({ ok: true, params: { xDpi: 200, yDpi: 200 } });
  });
  it('refuses what we did not offer', () => {
    expect(paramsFromDcs({ ...DCS, width: 'b4' }, RX)).toMatchObject({ ok: false });
    expect(paramsFromDcs({ ...DCS, resolution: 'R8_SUPERFINE' }, RX)).toMatchObject({ ok: false });
    expect(paramsFromDcs({ ...DCS, coding: 'mmr', ecm: true }, { ...RX, codings: ['mh'] })).toMatchObject({ ok: false });
    expect(paramsFromDcs({ ...DCS, ecm: true }, { ...RX, ecm: false })).toMatchObject({ ok: false });
    expect(paramsFromDcs({ ...DCS, modem: { modulation: 'v17', bitRate: 14400 } }, { ...RX, modems: { ...ALL, v17: false } })).toMatchObject({ ok: false });
  });
});
