// The calling transmitter against scripted receivers (TSB-85 style: a check id per step).
// Frames are in TSB-85 notation; "+" frames carry the X bit of a station that received DIS.

import { describe, expect, it } from 'vitest';
import { decodeMH, decodeMMR, encodeMMR, type Bitmap } from '../../src/codecs/index.js';
import { DIS_DEFAULTS, decodeDcs, encodeDis, type Dis } from '../../src/t30/dis.js';
import { buildFrame, Fcf, fcfByte, parseFrame } from '../../src/t30/fcf.js';
import { reverseBits } from '../../src/codecs/index.js';
import type { CallerConfig } from '../../src/t30/types.js';
import { textPage } from '../vectors/synthetic-pages.js';
import { Dut, frame, lastFrame, lineDown, sentFrames, sentHdlc, start, timeout, txDone } from './harness.js';
import { toTsb } from './tsb85.js';

const PAGE = textPage(1728, 120, 7);

function caller(extra: Partial<CallerConfig> = {}, pages: Bitmap[] = [PAGE]): Dut {
  return new Dut({ role: 'caller', ident: '+0123456789', source: { count: pages.length, get: (i) => pages[i]! }, ...extra });
}

function disFrame(d: Partial<Dis>): Uint8Array {
  return buildFrame(Fcf.DIS, encodeDis({ ...DIS_DEFAULTS, readyToReceive: true, ...d }));
}

const V17 = { v27ter: true, v29: true, v17: true };
const ECM_DIS = disFrame({ modems: V17, ecm: true, t6: true, twoD: true, resolutions: ['R8_STANDARD', 'R8_FINE'], scanLine: { standardMs: 0, fineMs: 0, superfineMs: 0 } });

/** Runs a caller up to the first image transmission after CFR. */
function toFirstPage(dut: Dut, dis: Uint8Array | string): ReturnType<Dut['feed']> {
  dut.feed(start, frame(dis), txDone, txDone);
  return dut.feed(frame('FF C8 21'));
}

describe('MT-NE-01 one page, non-ECM, to a V.27 ter receiver', () => {
  it('runs the whole exchange frame by frame', () => {
    const dut = caller();
    dut.check('MT-NE-01.01 CNG, listen for V.21, T1', start, ['rx v21', 'tone cng', 'start T1 35000']);
    const dcs = dut.check('MT-NE-01.02 TSI and DCS for the best common mode', frame('FF C8 01 00 50 00'), [
      'stop T1',
      'negotiated v27ter/4800 mh R8_STANDARD a4',
      'hdlc v21 TSI+ DCS+',
    ]);
    expect(sentFrames(dcs), 'MT-NE-01.03 TSI reversed and padded, DCS = 4800 V.27 ter, MH, A4, 20 ms').toEqual([
      'FF C0 C2 9C 1C EC 6C AC 2C CC 4C 8C 0C D4 04 04 04 04 04 04 04 04 04',
      'FF C8 C1 00 50 00',
    ]);
    dut.check('MT-NE-01.04 75 ms, then TCF for 1.5 s', txDone, ['silence 75', 'tcf v27ter/4800 1500ms']);
    dut.check('MT-NE-01.05 T4 for the answer to TCF', txDone, ['start T4 3000']);
    const img = dut.check('MT-NE-01.06 CFR: the page', frame('FF C8 21'), ['stop T4', 'silence 75', 'image v27ter/4800']);
    const data = (img[2] as { data: Uint8Array }).data;
    const decoded = decodeMH(data, { width: 1728 });
    expect(decoded.end, 'MT-NE-01.07 the page ends with RTC').toBe('rtc');
    expect(decoded.height).toBe(PAGE.height);
    // 20 ms at 4800 bit/s: at least 96 bits per coded line (EOL included).
    expect(data.length * 8, 'MT-NE-01.08 minimum scan-line fill').toBeGreaterThanOrEqual(96 * PAGE.height);
    dut.check('MT-NE-01.09 EOP after the last page', txDone, ['silence 75', 'hdlc v21 EOP+']);
    dut.check('MT-NE-01.10 T4 for the answer to EOP', txDone, ['start T4 3000']);
    dut.check('MT-NE-01.11 MCF: page confirmed, DCN', frame('FF C8 31'), ['stop T4', 'confirmed 0', 'rx none', 'hdlc v21 DCN+', 'start T4 3000']);
    dut.check('MT-NE-01.12 hang up once DCN has gone', txDone, ['stop T4', 'hangup', 'done T30_ERR_OK 0 pages=1']);
  });
});

describe('MT-NE-02 training fails at every rate', () => {
  it('falls back 14400 → 12000 → 9600 → 7200 → 4800 → 2400, then −3105', () => {
    const dut = caller();
    dut.feed(start);
    const rates: string[] = [];
    let out = dut.feed(frame('FF C8 01 00 76 20'));
    for (let i = 0; i < 6; i++) {
      const dcs = parseFrame(sentHdlc(out).at(-1)!)!;
      expect(dcs.name, `MT-NE-02.${i + 1} DCS`).toBe('DCS');
      const d = decodeDcs(dcs.info);
      if (!d.ok) throw new Error(d.reason);
      rates.push(`${d.dcs.modem.modulation}/${d.dcs.modem.bitRate}`);
      out = dut.feed(txDone, txDone, frame('FF C8 22'));
    }
    expect(rates, 'MT-NE-02.07 one DCS/TCF per rate').toEqual(['v17/14400', 'v17/12000', 'v29/9600', 'v29/7200', 'v27ter/4800', 'v27ter/2400']);
    expect(sentFrames(out), 'MT-NE-02.08 DCN after the sixth FTT').toEqual(['FF C8 DF']);
    const end = dut.feed(txDone);
    expect(end.at(-1), 'MT-NE-02.09 −3105').toMatchObject({ kind: 'done', result: { completion: 'T30_ERR_CANNOT_TRAIN', code: -3105, pages: 0 } });
  });

  it('starts at --max-rate and never goes up', () => {
    const dut = caller({ maxBitRate: 9600 });
    const out = dut.feed(start, frame('FF C8 01 00 76 20'));
    expect(out).toContainEqual(expect.objectContaining({ kind: 'negotiated', params: expect.objectContaining({ modem: { modulation: 'v29', bitRate: 9600 } }) }));
  });
});

describe('MT-NE-03 no answer to DCS/TCF', () => {
  it('repeats DCS and TCF after each T4, three times in all, then −3105', () => {
    const dut = caller();
    dut.feed(start, frame('FF C8 01 00 50 00'), txDone, txDone);
    dut.check('MT-NE-03.01 T4: DCS again', timeout('T4'), ['hdlc v21 TSI+ DCS+']);
    dut.feed(txDone, txDone);
    dut.check('MT-NE-03.02 T4: DCS a third time', timeout('T4'), ['hdlc v21 TSI+ DCS+']);
    dut.feed(txDone, txDone);
    dut.check('MT-NE-03.03 T4: give up', timeout('T4'), ['rx none', 'hdlc v21 DCN+', 'start T4 3000']);
    expect(dut.feed(txDone).at(-1), 'MT-NE-03.04').toMatchObject({ result: { completion: 'T30_ERR_TX_PHBDEAD', code: -3105 } });
  });

  it('ignores a response with a bad FCS and repeats on T4 (TSB-85 MTGN12)', () => {
    const dut = caller();
    dut.feed(start, frame('FF C8 01 00 72 20'), txDone, txDone);
    dut.check('MT-NE-03.05 corrupt CFR', frame('FF C8 21', false), []);
    dut.check('MT-NE-03.06 T4', timeout('T4'), ['hdlc v21 TSI+ DCS+']);
    dut.feed(txDone, txDone);
    dut.check('MT-NE-03.07 CFR', frame('FF C8 21'), ['stop T4', 'silence 75', 'image v29/9600']);
  });
});

describe('MT-NE-04 RTN', () => {
  it('retrains one rate lower and sends the page again', () => {
    const dut = caller();
    toFirstPage(dut, 'FF C8 01 00 72 20');
    dut.feed(txDone, txDone);
    const retrain = dut.check('MT-NE-04.01 RTN: DCS at the next rate', frame('FF C8 32'), [
      'stop T4',
      'negotiated v29/7200 mh R8_FINE a4',
      'hdlc v21 TSI+ DCS+',
    ]);
    expect(toTsb(sentHdlc(retrain)[1]!), 'MT-NE-04.02 DCS: 7200 V.29, fine, B4 length').toBe('FF C8 C1 00 72 20');
    dut.feed(txDone, txDone);
    const again = dut.check('MT-NE-04.03 CFR: the same page', frame('FF C8 21'), ['stop T4', 'silence 75', 'image v29/7200']);
    expect(decodeMH((again[2] as { data: Uint8Array }).data, { width: 1728 }).height).toBe(PAGE.height);
    dut.feed(txDone, txDone);
    dut.check('MT-NE-04.04 MCF', frame('FF C8 31'), ['stop T4', 'confirmed 0', 'rx none', 'hdlc v21 DCN+', 'start T4 3000']);
  });

  it('gives up after the page was refused three times: −3107', () => {
    const dut = caller();
    toFirstPage(dut, 'FF C8 01 00 76 20');
    for (let i = 0; i < 2; i++) dut.feed(txDone, txDone, frame('FF C8 32'), txDone, txDone, frame('FF C8 21'));
    const out = dut.feed(txDone, txDone, frame('FF C8 32'));
    expect(sentFrames(out).at(-1), 'MT-NE-04.05').toBe('FF C8 DF');
    expect(dut.feed(txDone).at(-1), 'MT-NE-04.06').toMatchObject({ result: { completion: 'T30_ERR_RETRYDCN', code: -3107, pages: 0 } });
  });

  it('RTP keeps the page and retrains before the next one', () => {
    const dut = caller({}, [PAGE, PAGE]);
    toFirstPage(dut, 'FF C8 01 00 72 20');
    dut.check('MT-NE-04.07 MPS', txDone, ['silence 75', 'hdlc v21 MPS+']);
    dut.feed(txDone);
    dut.check('MT-NE-04.08 RTP: confirmed, DCS again', frame('FF C8 33'), ['stop T4', 'confirmed 0', 'hdlc v21 TSI+ DCS+']);
  });
});

describe('MT-NE-05 the receiver cannot take the document: −3106', () => {
  it('no common coding (we only send MMR, the receiver has no ECM)', () => {
    const dut = caller({ codings: ['mmr'] });
    dut.feed(start);
    const out = dut.check('MT-NE-05.01 DCN instead of DCS', frame('FF C8 01 00 76 20'), ['stop T1', 'rx none', 'hdlc v21 DCN+', 'start T4 3000']);
    expect(sentFrames(out)).toEqual(['FF C8 DF']);
    expect(dut.feed(txDone).at(-1), 'MT-NE-05.02').toMatchObject({ result: { completion: 'T30_ERR_INCOMPATIBLE', code: -3106 } });
  });

  it('no common resolution (HD only, the receiver has no R16)', () => {
    const dut = caller({ formats: { resolutions: ['R16_SUPERFINE'], widths: ['a4'] } });
    dut.feed(start, frame('FF C8 01 00 76 20'), txDone);
    expect(dut.state.result, 'MT-NE-05.03').toMatchObject({ completion: 'T30_ERR_NORESSUPPORT', code: -3106 });
  });

  it('a DIS without "ready to receive"', () => {
    const dut = caller();
    dut.feed(start, frame('FF C8 01 00 80 11 01 01 01 40'), txDone);
    expect(dut.state.result, 'MT-NE-05.04').toMatchObject({ completion: 'T30_ERR_RX_INCAPABLE', code: -3106 });
  });
});

describe('MT-NE-06 the peer never answers, or goes away', () => {
  it('T1 expires without DIS: −3103, no DCN', () => {
    const dut = caller();
    dut.feed(start);
    dut.check('MT-NE-06.01', timeout('T1'), ['hangup', 'done T30_ERR_T1_EXPIRED -3103 pages=0']);
  });

  it('the line drops in the middle of a page: −3108', () => {
    const dut = caller();
    toFirstPage(dut, 'FF C8 01 00 50 00');
    dut.check('MT-NE-06.02', lineDown, ['hangup', 'done T30_ERR_CALLDROPPED -3108 pages=0']);
  });

  it('no answer to EOP: EOP three times, then −3107', () => {
    const dut = caller();
    toFirstPage(dut, 'FF C8 01 00 50 00');
    dut.feed(txDone, txDone);
    dut.check('MT-NE-06.03 T4: EOP again', timeout('T4'), ['hdlc v21 EOP+']);
    dut.feed(txDone);
    dut.check('MT-NE-06.04 CRP: EOP again', frame('FF C8 58'), ['stop T4', 'hdlc v21 EOP+']);
    dut.feed(txDone);
    dut.check('MT-NE-06.05 T4: give up', timeout('T4'), ['rx none', 'hdlc v21 DCN+', 'start T4 3000']);
    expect(dut.state.result).toMatchObject({ completion: 'T30_ERR_TX_PHDDEAD', code: -3107 });
  });

  it('DCN in answer to the page: −3107', () => {
    const dut = caller();
    toFirstPage(dut, 'FF C8 01 00 50 00');
    dut.feed(txDone, txDone);
    dut.check('MT-NE-06.06', frame('FF C8 5F'), ['stop T4', 'hangup', 'done T30_ERR_TX_BADPG -3107 pages=0']);
  });

  it('hears its own EOP echoed back and keeps waiting', () => {
    const dut = caller();
    toFirstPage(dut, 'FF C8 01 00 50 00');
    dut.feed(txDone, txDone);
    dut.check('MT-NE-06.07', frame('FF C8 F4'), ['start T4 3000']);
  });
});

// ---- ECM ----------------------------------------------------------------------------------------

/** An ECM caller after CFR: returns the first burst's FCD frames. */
function ecmToFirstBurst(dut: Dut): Uint8Array[] {
  dut.feed(start, frame(ECM_DIS), txDone, txDone);
  const out = dut.feed(frame('FF C8 21'));
  return sentHdlc(out).filter((f) => f[2] === Fcf.FCD);
}

function ppr(frames: number[]): Uint8Array {
  const map = new Uint8Array(32);
  for (const f of frames) map[f >> 3]! |= 1 << (f & 7);
  return buildFrame(fcfByte('PPR', 0), map);
}

describe('MT-EC-01 ECM: PPR of specific frames, then MCF', () => {
  it('sends exactly the frames asked for, then the page is confirmed', () => {
    const dut = caller({ formats: { resolutions: ['R8_FINE'], widths: ['a4'] } });
    const fcd = ecmToFirstBurst(dut);
    const n = fcd.length;
    expect(n, 'MT-EC-01.01 the page needs several frames').toBeGreaterThan(4);
    expect(fcd.map((f) => f[3]), 'MT-EC-01.02 frames numbered from 0').toEqual([...Array(n).keys()]);
    // The frames carry the page, MMR-coded, first bit in bit 0 of each octet.
    const data = reverseBits(Uint8Array.from(fcd.flatMap((f) => [...f.subarray(4)])));
    expect(decodeMMR(data, { width: 1728 }).height, 'MT-EC-01.03').toBe(PAGE.height);
    expect(Buffer.from(data.subarray(0, 64)).equals(Buffer.from(encodeMMR(PAGE).subarray(0, 64)))).toBe(true);

    const pps = dut.check('MT-EC-01.04 PPS-EOP after the burst', txDone, ['silence 75', 'hdlc v21 PPS+']);
    expect(toTsb(sentHdlc(pps)[0]!), 'MT-EC-01.05 page 0, block 0, n frames').toBe(
      toTsb(buildFrame(fcfByte('PPS', 1), [fcfByte('EOP', 1), 0, 0, n - 1])),
    );
    dut.feed(txDone);
    const again = dut.check('MT-EC-01.06 PPR for frames 1 and 3', frame(ppr([1, 3, ...Array.from({ length: 256 - n }, (_, i) => n + i)])), [
      'stop T4',
      'silence 75',
      'hdlc v17/14400 short FCD×2 RCP×3',
    ]);
    const resent = sentHdlc(again).filter((f) => f[2] === Fcf.FCD);
    expect(resent.map((f) => f[3]), 'MT-EC-01.07 only those frames').toEqual([1, 3]);
    expect(resent[0], 'MT-EC-01.08 unchanged').toEqual(fcd[1]);
    const pps2 = dut.feed(txDone);
    expect(lastFrame(pps2)!.info[3], 'MT-EC-01.09 PPS counts the frames of this burst').toBe(1);
    dut.feed(txDone);
    dut.check('MT-EC-01.10 MCF', frame('FF C8 31'), ['stop T4', 'confirmed 0', 'rx none', 'hdlc v21 DCN+', 'start T4 3000']);
  });
});

describe('MT-EC-02 ECM: RNR flow control', () => {
  it('answers RNR with RR under T5 until MCF', () => {
    const dut = caller();
    ecmToFirstBurst(dut);
    dut.feed(txDone, txDone);
    dut.check('MT-EC-02.01 RNR: RR, T5 starts', frame('FF C8 37'), ['stop T4', 'start T5 60000', 'hdlc v21 RR+']);
    dut.check('MT-EC-02.02 T4 for the answer to RR', txDone, ['start T4 3000']);
    dut.check('MT-EC-02.03 RNR again: RR again, T5 runs on', frame('FF C8 37'), ['stop T4', 'hdlc v21 RR+']);
    dut.feed(txDone);
    dut.check('MT-EC-02.04 no answer to RR: RR again', timeout('T4'), ['hdlc v21 RR+']);
    dut.feed(txDone);
    dut.check('MT-EC-02.05 MCF ends flow control', frame('FF C8 31'), ['stop T4', 'stop T5', 'confirmed 0', 'rx none', 'hdlc v21 DCN+', 'start T4 3000']);
  });

  it('T5 expires: DCN, −3107', () => {
    const dut = caller();
    ecmToFirstBurst(dut);
    dut.feed(txDone, txDone, frame('FF C8 37'), txDone);
    dut.check('MT-EC-02.06', timeout('T5'), ['stop T4', 'rx none', 'hdlc v21 DCN+', 'start T4 3000']);
    expect(dut.state.result).toMatchObject({ completion: 'T30_ERR_TX_T5EXP', code: -3107 });
  });
});

describe('MT-EC-03 ECM: the fourth PPR', () => {
  it('sends CTC one rate lower when frames got through, then a long-training burst', () => {
    const dut = caller();
    const n = ecmToFirstBurst(dut).length;
    const all = Array.from({ length: 256 }, (_, i) => i);
    dut.feed(txDone, txDone);
    // Each PPR lets one more frame through.
    for (let k = 1; k <= 3; k++) dut.feed(frame(ppr(all.slice(k))), txDone, txDone);
    const ctc = dut.check('MT-EC-03.01 CTC', frame(ppr(all.slice(4))), ['stop T4', 'negotiated v17/12000 mmr R8_FINE a4 ecm256', 'hdlc v21 CTC+']);
    expect(toTsb(sentHdlc(ctc)[0]!), 'MT-EC-03.02 CTC names 12000 V.17').toBe('FF C8 C8 00 14');
    dut.feed(txDone);
    dut.check('MT-EC-03.03 CTR: the frames still owed, long training', frame('FF C8 23'), ['stop T4', 'silence 75', `hdlc v17/12000 long FCD×${n - 4} RCP×3`]);
  });

  it('sends EOR when nothing got through; ERR ends the call with −3107', () => {
    const dut = caller();
    ecmToFirstBurst(dut);
    const all = Array.from({ length: 256 }, (_, i) => i);
    dut.feed(txDone, txDone);
    for (let k = 1; k <= 3; k++) dut.feed(frame(ppr(all)), txDone, txDone);
    const eor = dut.check('MT-EC-03.04 EOR-EOP', frame(ppr(all)), ['stop T4', 'hdlc v21 EOR+']);
    expect(toTsb(sentHdlc(eor)[0]!)).toBe('FF C8 F3 F4');
    dut.feed(txDone);
    dut.check('MT-EC-03.05 ERR', frame('FF C8 38'), ['stop T4', 'rx none', 'hdlc v21 DCN+', 'start T4 3000']);
    expect(dut.state.result).toMatchObject({ completion: 'T30_ERR_RETRYDCN', code: -3107 });
  });
});
