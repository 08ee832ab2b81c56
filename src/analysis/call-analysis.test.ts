// Reading line events as a T.30 call, on hand-made event lists: an ECM page of three blocks put
// back together across a PPR retransmission, a page with frames that never came, who sent what
// in a mono capture (polling included), and the TCF measure.
import { describe, expect, it } from 'vitest';
import { encodeMMR, firstDifference, reverseBits } from '../codecs/index.js';
import { buildFrame, DIS_DEFAULTS, encodeDcs, encodeDis, fcfByte, type Dcs, type FcfName, type ModemSpec } from '../t30/index.js';
import { noise } from '../../test/vectors/synthetic-pages.js';
import { analyzeCall, measureTcf, type ReportEntry } from './call-analysis.js';
import type { BurstEvent, HeardFrame, LineEvent, Source } from './line-events.js';

const V17: ModemSpec = { modulation: 'v17', bitRate: 14400 };
const DCS: Dcs = { receive: true, modem: V17, resolution: 'R8_STANDARD', coding: 'mmr', width: 'a4', length: 'a4', scanLineMs: 0, ecm: true, ecmFrameSize: 64, subaddress: false, senderId: false };

let clock = 0;
const f = (name: FcfName, info: ArrayLike<number> = [], source: Source = 'caller'): LineEvent => ({ kind: 'frame', atMs: (clock += 100), source, frame: buildFrame(fcfByte(name, 1), info), crcOk: true });
const dis = (source: Source = 'answerer'): LineEvent => ({ kind: 'frame', atMs: (clock += 100), source, frame: buildFrame(0x80, encodeDis({ ...DIS_DEFAULTS, ecm: true, t6: true })), crcOk: true });
const burst = (frames: HeardFrame[], data = new Uint8Array(0), source: Source = 'caller'): BurstEvent => ({
  kind: 'burst', atMs: (clock += 100), endMs: clock + 50, source, modem: V17, training: 'short', trained: true, data, bits: data.length * 8, frames,
});
const tcf = (source: Source = 'caller') => burst([], new Uint8Array(2700), source);
const fcd = (n: number, payload: Uint8Array): HeardFrame => ({ atMs: clock, frame: buildFrame(0x06, [n, ...payload], false), crcOk: true });
const pps = (fcf2: FcfName, page: number, block: number, frames: number) => f('PPS', [fcfByte(fcf2, 1), page, block, frames - 1]);
/** PPR FIF: bit j of octet i asks for frame 8i + j again. */
function pprMap(frames: number[]): Uint8Array {
  const map = new Uint8Array(32);
  for (const n of frames) map[n >>> 3]! |= 1 << (n & 7);
  return map;
}
const names = (entries: ReportEntry[]) => entries.filter((e) => e.kind === 'frame').map((e) => `${e.from === 'caller' ? '>' : '<'}${(e as { name: string }).name}`);

/** A page coded MMR and cut into 64-octet FCD payloads in HDLC order, 256 to a block. */
function ecmPage(): { bitmap: ReturnType<typeof noise>; blocks: Uint8Array[][] } {
  const bitmap = noise(1728, 120, 5, 0.2);
  const hdlc = reverseBits(encodeMMR(bitmap));
  const frames: Uint8Array[] = [];
  for (let at = 0; at < hdlc.length; at += 64) {
    const p = new Uint8Array(64);
    p.set(hdlc.subarray(at, at + 64));
    frames.push(p);
  }
  const blocks: Uint8Array[][] = [];
  for (let i = 0; i < frames.length; i += 256) blocks.push(frames.slice(i, i + 256));
  return { bitmap, blocks };
}

describe('ECM pages', () => {
  it('three blocks, two frames lost and one corrupt in the first burst, sent again after PPR: the page is whole', () => {
    clock = 0;
    const { bitmap, blocks } = ecmPage();
    expect(blocks.length).toBe(3);
    const [b0, b1, b2] = blocks as [Uint8Array[], Uint8Array[], Uint8Array[]];
    const firstBurst = b0.map((p, n) => (n === 10 ? { ...fcd(n, p), crcOk: false } : fcd(n, p))).filter((_, n) => n !== 3 && n !== 77);
    const events: LineEvent[] = [
      dis(),
      f('DCS', encodeDcs(DCS)),
      tcf(),
      f('CFR', [], 'answerer'),
      burst(firstBurst),
      pps('NULL', 0, 0, b0.length),
      f('PPR', pprMap([3, 10, 77]), 'answerer'),
      burst([fcd(3, b0[3]!), fcd(10, b0[10]!), fcd(77, b0[77]!)]),
      pps('NULL', 0, 0, b0.length),
      f('MCF', [], 'answerer'),
      burst(b1.map((p, n) => fcd(n, p))),
      pps('NULL', 0, 1, b1.length),
      f('MCF', [], 'answerer'),
      burst(b2.map((p, n) => fcd(n, p))),
      pps('EOP', 0, 2, b2.length),
      f('MCF', [], 'answerer'),
      f('DCN'),
    ];
    const c = analyzeCall(events);
    expect(c.pages).toHaveLength(1);
    const page = c.pages[0]!;
    expect(page).toMatchObject({ ecm: true, coding: 'mmr', missingFrames: 0, frames: b0.length + b1.length + b2.length, width: 1728, height: 120 });
    expect(page.error).toBeUndefined();
    expect(firstDifference(page.bitmap!, bitmap)).toBeNull();
    const ppsText = c.entries.filter((e) => e.kind === 'frame' && e.name === 'PPS').map((e) => (e as { detail: string }).detail);
    expect(ppsText[0]).toBe(`NULL, page 0, block 0, 256 frames (253 received, 1 bad)`);
    expect(ppsText[1]).toBe(`NULL, page 0, block 0, 256 frames (3 received)`);
    expect(ppsText[3]).toMatch(/^EOP, page 0, block 2/);
    expect(c.entries.find((e) => e.kind === 'frame' && e.name === 'PPR')).toMatchObject({ detail: '3 frames to send again' });
    // The page is listed where its first burst began.
    const pageEntry = c.entries.find((e) => e.kind === 'page')!;
    expect(pageEntry.atMs).toBe((events[4] as BurstEvent).atMs);
  });

  it('a frame that never came: the MMR page ends at the hole, its rows above it intact', () => {
    clock = 0;
    const { bitmap, blocks } = ecmPage();
    const b0 = blocks[0]!;
    const c = analyzeCall([dis(), f('DCS', encodeDcs(DCS)), tcf(), f('CFR', [], 'answerer'), burst(b0.map((p, n) => fcd(n, p)).filter((_, n) => n !== 200)), pps('EOP', 0, 0, b0.length), f('DCN')]);
    expect(c.pages).toHaveLength(1);
    const page = c.pages[0]!;
    expect(page).toMatchObject({ missingFrames: 1, frames: 255 });
    expect(page.error).toMatch(/^MMR data does not decode after row \d+/);
    expect(page.height).toBeGreaterThan(10);
    expect(page.height).toBeLessThan(bitmap.height);
    const rows = page.height * bitmap.stride;
    expect(Buffer.from(page.bitmap!.data.subarray(0, rows)).equals(Buffer.from(bitmap.data.subarray(0, rows)))).toBe(true);
  });

  it('ECM frames with no PPS after them are still put on a page, with a note', () => {
    clock = 0;
    const { blocks } = ecmPage();
    const c = analyzeCall([dis(), f('DCS', encodeDcs(DCS)), tcf(), f('CFR', [], 'answerer'), burst(blocks[0]!.map((p, n) => fcd(n, p)))]);
    expect(c.entries.some((e) => e.kind === 'note' && /no PPS/.test(e.text))).toBe(true);
    expect(c.pages).toHaveLength(1);
    expect(c.pages[0]!.frames).toBe(256);
  });
});

describe('who sent what in a mono capture', () => {
  it('an ordinary call: DIS/CFR/MCF from the answerer, DCS, TCF, pages and EOP from the caller', () => {
    clock = 0;
    const nonEcm = { ...DCS, ecm: false, coding: 'mh' as const };
    const c = analyzeCall([
      { kind: 'tone', atMs: 1, source: 'mixed', tone: 'CNG' },
      { kind: 'tone', atMs: 2, source: 'mixed', tone: 'CED', durationMs: 3000 },
      f('CSI', [0x31], 'mixed'),
      dis('mixed'),
      f('DCS', encodeDcs(nonEcm), 'mixed'),
      tcf('mixed'),
      f('CFR', [], 'mixed'),
      f('EOP', [], 'mixed'),
      f('MCF', [], 'mixed'),
      f('DCN', [], 'mixed'),
    ]);
    expect(names(c.entries)).toEqual(['<CSI', '<DIS', '>DCS', '<CFR', '>EOP', '<MCF', '>DCN']);
    expect(c.entries.filter((e) => e.kind !== 'frame').map((e) => `${e.kind}:${'from' in e ? e.from : ''}`)).toEqual(['tone:caller', 'tone:answerer', 'tcf:caller']);
  });

  it('polling: after a DTC the answerer transmits and the caller confirms', () => {
    clock = 0;
    const c = analyzeCall([dis('mixed'), f('CIG', [0x32], 'mixed'), { ...(f('DTC', [], 'mixed') as Extract<LineEvent, { kind: 'frame' }>), frame: buildFrame(0x81, encodeDis(DIS_DEFAULTS)) }, f('DCS', encodeDcs(DCS), 'mixed'), f('CFR', [], 'mixed'), f('CRP', [], 'mixed')]);
    expect(names(c.entries)).toEqual(['<DIS', '>CIG', '>DTC', '<DCS', '>CFR', '<CRP']);
  });
});

describe('other events', () => {
  it('a burst before any DCS is a note; a frame with a bad FCS changes nothing', () => {
    clock = 0;
    const c = analyzeCall([tcf(), { kind: 'frame', atMs: (clock += 100), source: 'caller', frame: buildFrame(fcfByte('DCS', 1), encodeDcs(DCS)), crcOk: false }]);
    expect(c.entries[0]).toMatchObject({ kind: 'note', text: 'V.17 14400 burst before any DCS: ignored' });
    expect(c.entries[1]).toMatchObject({ kind: 'frame', name: 'DCS', crcOk: false, detail: 'bad FCS' });
    expect(c.mode).toBeUndefined();
    expect(c.frames).toEqual({ ok: 0, bad: 1 });
  });

  it('a training that failed on a page burst', () => {
    clock = 0;
    const c = analyzeCall([f('DCS', encodeDcs({ ...DCS, ecm: false, coding: 'mh' })), tcf(), f('CFR', [], 'answerer'), { ...burst([]), trained: false }]);
    expect(c.entries.at(-1)).toMatchObject({ kind: 'training-failed', modem: V17 });
    expect(c.mode).toMatchObject({ confirmed: true });
  });
});

describe('measureTcf', () => {
  const bits = (s: string) => {
    const clean = s.replace(/\s/g, '');
    const data = new Uint8Array(Math.ceil(clean.length / 8));
    for (let i = 0; i < clean.length; i++) if (clean[i] === '1') data[i >>> 3]! |= 0x80 >>> (i & 7);
    return { data, bits: clean.length, modem: { modulation: 'v27ter' as const, bitRate: 2400 as const } };
  };
  it.each([
    ['clean zeros', '0'.repeat(3600), { errors: 0, bits: 3600, ok: true, longestZeroRunMs: 1500 }],
    ['ones before the zeros are not the TCF', '1111' + '0'.repeat(3600), { errors: 0, bits: 3600, ok: true }],
    ['the shutdown after it is not either', '0'.repeat(3600) + '1011001110', { errors: 0, bits: 3600, ok: true }],
    ['an error in the middle: counted, still a long enough run', '0'.repeat(2500) + '1' + '0'.repeat(1099), { errors: 1, bits: 3600, ok: true }],
    ['errors every half second: no run of a second', ('0'.repeat(1199) + '1').repeat(3), { errors: 2, ok: false, longestZeroRunMs: (1199 * 1000) / 2400 }],
    ['nothing but ones', '1'.repeat(100), { errors: 0, bits: 0, ok: false, longestZeroRunMs: 0 }],
  ])('%s', (_n, s, expected) => expect(measureTcf(bits(s))).toMatchObject(expected));
});
