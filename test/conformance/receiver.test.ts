// The answering receiver against scripted transmitters (TSB-85 style: a check id per step).
// Frames are in TSB-85 notation or built with the codec of the frame.

import { describe, expect, it } from 'vitest';
import { encodeMH, encodeMMR, firstDifference } from '../../src/codecs/index.js';
import { encodeDcs, type Dcs } from '../../src/t30/dis.js';
import { ecmBlocks, ppsFrame, rcpFrame } from '../../src/t30/ecm.js';
import { buildFrame, fcfByte } from '../../src/t30/fcf.js';
import { encodeIdent } from '../../src/t30/ident.js';
import type { AnswererConfig, ReceivedPage, T30Action } from '../../src/t30/types.js';
import { textPage } from '../vectors/synthetic-pages.js';
import { burst, Dut, frame, highSpeed, lineDown, sentFrames, start, tcf, timeout, txDone } from './harness.js';

const PAGE = textPage(1728, 120, 3);
const TSI = buildFrame(fcfByte('TSI', 1), encodeIdent('+0123456789'), false);

function answerer(extra: Partial<AnswererConfig> = {}): Dut {
  return new Dut({ role: 'answerer', ident: '5550199', ...extra });
}

const DCS: Dcs = {
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
const dcsFrame = (d: Partial<Dcs>): Uint8Array => buildFrame(fcfByte('DCS', 1), encodeDcs({ ...DCS, ...d }));
const ECM_DCS: Partial<Dcs> = { modem: { modulation: 'v17', bitRate: 14400 }, coding: 'mmr', ecm: true, scanLineMs: 0 };

const received = (out: T30Action[]): ReceivedPage[] => out.flatMap((a) => (a.kind === 'page-received' ? [a.page] : []));

/** An answerer that has sent DIS and is waiting for DCS. */
function toDcs(dut: Dut): void {
  dut.feed(start, txDone, txDone);
}

describe('MR-NE-01 two pages, non-ECM, from a V.27 ter transmitter', () => {
  it('runs the whole exchange frame by frame', () => {
    const dut = answerer();
    dut.check('MR-NE-01.01 CED, listen for V.21', start, ['rx v21', 'tone ced']);
    const dis = dut.check('MR-NE-01.02 CSI and DIS, T1', txDone, ['hdlc v21 CSI DIS', 'start T1 35000']);
    expect(sentFrames(dis), 'MR-NE-01.03 CSI reversed; DIS = all rates, fine/superfine/R16/300, 2-D, T.6, ECM, A3, unlimited, 0 ms, SUB').toEqual([
      'FF C0 02 9C 9C 8C 0C AC AC AC 04 04 04 04 04 04 04 04 04 04 04 04 04',
      'FF C8 01 00 77 5F 23 01 F9 80',
    ]);
    dut.check('MR-NE-01.04 T4 for the answer to DIS', txDone, ['start T4 3000']);
    dut.check('MR-NE-01.05 TSI is noted', frame(TSI), []);
    dut.check('MR-NE-01.06 DCS: listen for TCF, T2', frame('FF C8 C1 00 50 00'), [
      'stop T1',
      'stop T4',
      'negotiated v27ter/4800 mh R8_STANDARD a4',
      'rx image v27ter/4800',
      'start T2 6000',
    ]);
    dut.check('MR-NE-01.07 900 octets of zeros at 4800: CFR', tcf(4800), ['stop T2', 'rx v21', 'hdlc v21 CFR']);
    dut.check('MR-NE-01.08 listen for the page', txDone, ['rx image v27ter/4800', 'start T2 6000']);
    const coded = encodeMH(PAGE, { minScanLineBits: 96 });
    dut.check('MR-NE-01.09 the page, then V.21 again', highSpeed(coded), ['stop T2', 'rx v21', 'start T2 6000']);
    const mcf = dut.check('MR-NE-01.10 MPS: page kept, MCF', frame('FF C8 F2'), ['stop T2', 'received 0 perfect', 'hdlc v21 MCF']);
    expect(sentFrames(mcf), 'MR-NE-01.11 MCF without X bit').toEqual(['FF C8 31']);
    const page = received(mcf)[0]!;
    expect(firstDifference(page.bitmap!, PAGE), 'MR-NE-01.12 the page decodes to what was sent').toBeNull();
    expect(page.data).toEqual(coded);
    dut.check('MR-NE-01.13 the next page', txDone, ['rx image v27ter/4800', 'start T2 6000']);
    dut.feed(highSpeed(coded));
    dut.check('MR-NE-01.14 EOP: MCF', frame('FF C8 F4'), ['stop T2', 'received 1 perfect', 'hdlc v21 MCF']);
    dut.check('MR-NE-01.15 wait for DCN under T4', txDone, ['rx v21', 'start T4 3000']);
    dut.check('MR-NE-01.16 DCN: done', frame('FF C8 DF'), ['stop T4', 'hangup', 'done T30_ERR_OK 0 pages=2']);
    expect(dut.state.result?.remoteIdent, 'MR-NE-01.17 the TSI').toBe('+0123456789');
  });
});

describe('MR-NE-02 training check', () => {
  it('answers a bad TCF with FTT and trains again at the lower rate', () => {
    const dut = answerer();
    toDcs(dut);
    dut.feed(frame(dcsFrame({ modem: { modulation: 'v29', bitRate: 9600 } })));
    dut.check('MR-NE-02.01 10101010… is no TCF: FTT', tcf(9600, 1500, 0x55), ['stop T2', 'rx v21', 'hdlc v21 FTT']);
    dut.check('MR-NE-02.02 T2 for the next DCS', txDone, ['start T2 6000']);
    dut.check('MR-NE-02.03 DCS at 7200', frame(dcsFrame({ modem: { modulation: 'v29', bitRate: 7200 } })), [
      'stop T2',
      'negotiated v29/7200 mh R8_STANDARD a4',
      'rx image v29/7200',
      'start T2 6000',
    ]);
    dut.check('MR-NE-02.04 CFR', tcf(7200), ['stop T2', 'rx v21', 'hdlc v21 CFR']);
  });

  it('answers FTT when T2 passes without TCF', () => {
    const dut = answerer();
    toDcs(dut);
    dut.feed(frame(dcsFrame({})));
    dut.check('MR-NE-02.05', timeout('T2'), ['rx v21', 'hdlc v21 FTT']);
  });

  it('answers FTT at once when the training signal ends with no data (a modem that could not train)', () => {
    const dut = answerer();
    toDcs(dut);
    dut.feed(frame(dcsFrame({ modem: { modulation: 'v17', bitRate: 14400 } })));
    dut.check('MR-NE-02.07 training heard', { kind: 'carrier', on: true }, ['stop T2']);
    dut.check('MR-NE-02.08 it ends without data: FTT', { kind: 'carrier', on: false }, ['rx v21', 'hdlc v21 FTT']);
  });

  it('half a second of zeros at 14400 is not enough', () => {
    const dut = answerer();
    toDcs(dut);
    dut.feed(frame(dcsFrame({ modem: { modulation: 'v17', bitRate: 14400 } })));
    const data = new Uint8Array(2700);
    data[900] = 1;
    data[1800] = 1;
    dut.check('MR-NE-02.06', highSpeed(data), ['stop T2', 'rx v21', 'hdlc v21 FTT']);
  });
});

describe('MR-NE-03 a DCS we cannot take: −3106', () => {
  it('MR coding when we offered MH only', () => {
    const dut = answerer({ codings: ['mh'] });
    toDcs(dut);
    dut.check('MR-NE-03.01 DCN', frame('FF C8 C1 00 51 00'), ['stop T1', 'stop T4', 'rx none', 'hdlc v21 DCN', 'start T4 3000']);
    expect(dut.feed(txDone).at(-1), 'MR-NE-03.02').toMatchObject({ result: { completion: 'T30_ERR_INCOMPATIBLE', code: -3106 } });
  });

  it('a reserved rate code', () => {
    const dut = answerer();
    toDcs(dut);
    dut.feed(frame(buildFrame(fcfByte('DCS', 1), [0x00, 0x12, 0x00])), txDone);
    expect(dut.state.result, 'MR-NE-03.03').toMatchObject({ completion: 'T30_ERR_INCOMPATIBLE', code: -3106 });
  });
});

describe('MR-NE-04 page quality and the end of the call', () => {
  function toPage(dut: Dut): void {
    toDcs(dut);
    dut.feed(frame(dcsFrame({})), tcf(4800), txDone);
  }

  it('a garbled page is answered RTN and not kept; DCN after RTN is −3107', () => {
    const dut = answerer();
    toPage(dut);
    const noise = encodeMH(PAGE).map((b, i) => (i % 7 === 3 ? b ^ 0x5a : b));
    dut.feed(highSpeed(noise));
    const out = dut.check('MR-NE-04.01 RTN', frame('FF C8 F4'), ['stop T2', 'hdlc v21 RTN']);
    expect(received(out)).toEqual([]);
    dut.feed(txDone);
    dut.check('MR-NE-04.02 DCN', frame('FF C8 DF'), ['stop T4', 'hangup', 'done T30_ERR_RX_DCNNORTN -3107 pages=0']);
  });

  it('repeats MCF when EOP comes again (our MCF was lost)', () => {
    const dut = answerer();
    toPage(dut);
    dut.feed(highSpeed(encodeMH(PAGE)), frame('FF C8 F4'), txDone);
    dut.check('MR-NE-04.03', frame('FF C8 F4'), ['stop T4', 'hdlc v21 MCF']);
  });

  it('tells a repeated command from a page that never came', () => {
    const dut = answerer();
    toPage(dut);
    dut.feed(highSpeed(encodeMH(PAGE)), frame('FF C8 F2'), txDone);
    dut.check('MR-NE-04.10 MPS again, no page since: MCF again, then listen for the page', [frame('FF C8 F2'), txDone], [
      'stop T2',
      'hdlc v21 MCF',
      'rx image v27ter/4800',
      'start T2 6000',
    ]);
    dut.check('MR-NE-04.11 EOP without its page: RTN, not MCF', frame('FF C8 F4'), ['rx v21', 'stop T2', 'hdlc v21 RTN']);
  });

  it('asks CRP for a corrupt command, then answers it', () => {
    const dut = answerer();
    toPage(dut);
    dut.feed(highSpeed(encodeMH(PAGE)));
    const crp = dut.check('MR-NE-04.04 CRP (T2 restarts: something was heard)', frame('FF C8 F4', false), ['start T2 6000', 'hdlc v21 CRP']);
    expect(sentFrames(crp)).toEqual(['FF C8 58']);
    dut.check('MR-NE-04.05 EOP', frame('FF C8 F4'), ['stop T2', 'received 0 perfect', 'hdlc v21 MCF']);
  });

  it('a line that drops after MCF to EOP is a success; mid-page it is −3108', () => {
    const ok = answerer();
    toPage(ok);
    ok.feed(highSpeed(encodeMH(PAGE)), frame('FF C8 F4'), txDone);
    ok.check('MR-NE-04.06', lineDown, ['stop T4', 'hangup', 'done T30_ERR_OK 0 pages=1']);
    const mid = answerer();
    toPage(mid);
    mid.feed({ kind: 'carrier', on: true }, { kind: 'image-data', data: new Uint8Array(100) });
    mid.check('MR-NE-04.07', lineDown, ['hangup', 'done T30_ERR_CALLDROPPED -3108 pages=0']);
  });

  it('no DCN after EOP: MCF again each T4, then done', () => {
    const dut = answerer();
    toPage(dut);
    dut.feed(highSpeed(encodeMH(PAGE)), frame('FF C8 F4'), txDone);
    dut.check('MR-NE-04.08', timeout('T4'), ['hdlc v21 MCF']);
    dut.feed(txDone, timeout('T4'), txDone);
    dut.check('MR-NE-04.09', timeout('T4'), ['hangup', 'done T30_ERR_OK 0 pages=1']);
  });
});

describe('MR-NE-05 timers', () => {
  it('T1: DIS every T4 while no DCS comes, then DCN and −3103', () => {
    const dut = answerer();
    toDcs(dut);
    dut.check('MR-NE-05.01 T4: DIS again', timeout('T4'), ['hdlc v21 CSI DIS']);
    dut.check('MR-NE-05.02 T1', timeout('T1'), ['rx none', 'hdlc v21 DCN', 'start T4 3000']);
    expect(dut.state.result).toMatchObject({ completion: 'T30_ERR_T1_EXPIRED', code: -3103 });
  });

  it('T2 passes without a page: DCN and −3107', () => {
    const dut = answerer();
    toDcs(dut);
    dut.feed(frame(dcsFrame({})), tcf(4800), txDone);
    dut.check('MR-NE-05.03', timeout('T2'), ['rx none', 'hdlc v21 DCN', 'start T4 3000']);
    expect(dut.state.result).toMatchObject({ completion: 'T30_ERR_RX_T2EXPFAX', code: -3107 });
  });
});

// ---- ECM ----------------------------------------------------------------------------------------

const BLOCK = ecmBlocks(encodeMMR(PAGE), 256)[0]!;
const N = BLOCK.length;
const fcd = (i: number): Uint8Array => BLOCK[i]!;
const rcps = [rcpFrame(), rcpFrame(), rcpFrame()];
const pps = (fcf2: 'NULL' | 'MPS' | 'EOP', frames: number, block = 0, page = 0): Uint8Array => ppsFrame({ fcf2, page, block, frames }, 1);

/** An ECM answerer listening for the first burst. */
function toEcmBurst(extra: Partial<AnswererConfig> = {}): Dut {
  const dut = answerer(extra);
  toDcs(dut);
  dut.feed(frame(dcsFrame(ECM_DCS)), tcf(14400));
  dut.check('MR-EC-00 short training after TCF', txDone, ['rx image-hdlc v17/14400 short', 'start T2 6000']);
  return dut;
}

describe('MR-EC-01 missing and corrupt frames', () => {
  it('asks for exactly those frames with PPR, then confirms the page', () => {
    expect(N).toBeGreaterThan(6);
    const dut = toEcmBurst();
    const first = [...Array(N).keys()].filter((i) => i !== 2 && i !== 5).map((i) => frame(fcd(i), i !== 6));
    dut.feed({ kind: 'carrier', on: true }, first);
    dut.check('MR-EC-01.01 RCP: V.21 for PPS', frame(rcps[0]!), ['rx v21', 'start T2 6000']);
    dut.feed(frame(rcps[1]!), frame(rcps[2]!), { kind: 'carrier', on: false });
    const ppr = dut.check('MR-EC-01.02 PPS-EOP: PPR', frame(pps('EOP', N)), ['stop T2', 'hdlc v21 PPR']);
    const map = sentFrames(ppr)[0]!.split(' ').slice(3);
    const wanted = (f: number): boolean => (parseInt(map[f >> 3]!, 16) & (0x80 >> (f & 7))) !== 0; // TSB notation: bit-reversed octets
    const asked = [...Array(256).keys()].filter(wanted);
    expect(asked.filter((f) => f < N), 'MR-EC-01.03 frames 2, 5 and 6 (bad FCS)').toEqual([2, 5, 6]);
    expect(asked.filter((f) => f >= N), 'MR-EC-01.04 and every frame past the block').toHaveLength(256 - N);
    dut.check('MR-EC-01.05 listen for the retransmission', txDone, ['rx image-hdlc v17/14400 short', 'start T2 6000']);
    dut.feed(burst([fcd(2), fcd(5), fcd(6), ...rcps]));
    const mcf = dut.check('MR-EC-01.06 PPS-EOP (3 frames): MCF', frame(pps('EOP', 3)), ['stop T2', 'received 0 perfect', 'hdlc v21 MCF']);
    expect(firstDifference(received(mcf)[0]!.bitmap!, PAGE), 'MR-EC-01.07 the page, error free').toBeNull();
    dut.check('MR-EC-01.08 wait for DCN', txDone, ['rx v21', 'start T4 3000']);
    dut.check('MR-EC-01.09', frame('FF C8 DF'), ['stop T4', 'hangup', 'done T30_ERR_OK 0 pages=1']);
  });

  it('repeats MCF to a PPS it already answered (our MCF was lost)', () => {
    const dut = toEcmBurst();
    dut.feed(burst([...BLOCK.map((_, i) => fcd(i)), ...rcps]));
    dut.check('MR-EC-01.10 PPS-NULL: MCF', frame(pps('NULL', N)), ['stop T2', 'hdlc v21 MCF']);
    dut.feed(txDone);
    dut.check('MR-EC-01.11 the same PPS again: MCF again', frame(pps('NULL', N)), ['stop T2', 'hdlc v21 MCF']);
    dut.check('MR-EC-01.12 a PPS for another page is an error', [txDone, frame(pps('NULL', N, 0, 5))], [
      'rx image-hdlc v17/14400 short',
      'start T2 6000',
      'stop T2',
      'rx none',
      'hdlc v21 DCN',
      'start T4 3000',
    ]);
  });
});

describe('MR-EC-02 RNR flow control', () => {
  it('answers RNR while not ready, then MCF to RR', () => {
    const dut = toEcmBurst();
    dut.feed({ kind: 'rx-ready', ready: false });
    dut.feed(burst([...BLOCK.map((_, i) => fcd(i)), ...rcps]));
    const rnr = dut.check('MR-EC-02.01 PPS: RNR', frame(pps('EOP', N)), ['stop T2', 'hdlc v21 RNR']);
    expect(sentFrames(rnr)).toEqual(['FF C8 37']);
    dut.check('MR-EC-02.02 T2 for RR', txDone, ['start T2 6000']);
    dut.check('MR-EC-02.03 RR while still busy: RNR', frame('FF C8 F6'), ['stop T2', 'hdlc v21 RNR']);
    dut.feed(txDone, { kind: 'rx-ready', ready: true });
    dut.check('MR-EC-02.04 RR when ready: MCF', frame('FF C8 F6'), ['stop T2', 'received 0 perfect', 'hdlc v21 MCF']);
  });

  it('T2 without RR: −3107', () => {
    const dut = toEcmBurst();
    dut.feed({ kind: 'rx-ready', ready: false }, burst([...BLOCK.map((_, i) => fcd(i)), ...rcps]), frame(pps('EOP', N)), txDone);
    dut.check('MR-EC-02.05', timeout('T2'), ['rx none', 'hdlc v21 DCN', 'start T4 3000']);
    expect(dut.state.result).toMatchObject({ completion: 'T30_ERR_RX_T2EXPRR', code: -3107 });
  });
});

describe('MR-EC-03 CTC and EOR', () => {
  it('CTC: CTR, then the next burst at the new rate with long training', () => {
    const dut = toEcmBurst();
    dut.feed(burst([fcd(0), ...rcps]), frame(pps('EOP', N)), txDone);
    const ctr = dut.check('MR-EC-03.01 CTC to 12000', frame('FF C8 C8 00 14'), ['stop T2', 'negotiated v17/12000 mmr R8_STANDARD a4 ecm256', 'hdlc v21 CTR']);
    expect(sentFrames(ctr)).toEqual(['FF C8 23']);
    dut.check('MR-EC-03.02 long training', txDone, ['rx image-hdlc v17/12000 long', 'start T2 6000']);
  });

  it('EOR: ERR; the damaged page is not kept', () => {
    const dut = toEcmBurst();
    dut.feed(burst([fcd(0), ...rcps]), frame(pps('EOP', N)), txDone);
    const err = dut.check('MR-EC-03.03 EOR-EOP: ERR', frame('FF C8 F3 F4'), ['stop T2', 'hdlc v21 ERR']);
    expect(sentFrames(err)).toEqual(['FF C8 38']);
    dut.feed(txDone);
    dut.check('MR-EC-03.04 DCN', frame('FF C8 DF'), ['stop T2', 'hangup', 'done T30_ERR_RETRYDCN -3107 pages=0']);
  });
});

