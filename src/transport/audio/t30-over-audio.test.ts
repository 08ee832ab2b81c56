// Whole T.30 calls (src/t30 sessions, caller and answerer) over two AudioFrontEnds joined back to
// back, block by block in line time (a ManualClock advanced 20 ms per block), through the line
// model: every modem and rate, ECM on and off, clean lines and impaired ones. Pages must arrive
// pixel-identical and both sides must report success with the mode asked for.
import { describe, expect, it } from 'vitest';
import { LineModel, type LineModelOptions } from '../../../native-free-dsp/index.js';
import { firstDifference } from '../../codecs/index.js';
import { ManualClock } from '../../shared/clock.js';
import { T30Session, type ReceivedPage, type T30Result } from '../../t30/index.js';
import type { Coding } from '../../t30/modes.js';
import { textPage } from '../../../test/vectors/synthetic-pages.js';
import { AudioFrontEnd } from './front-end.js';

const BLOCK = 160;

interface CallOptions {
  ecm: boolean;
  pages: number;
  maxBitRate?: number;
  /** Codings the answerer offers (the caller picks the best of them). */
  codings?: Coding[];
  /** Line impairments each way. */
  line?: LineModelOptions;
  rows?: number;
  limitMs?: number;
}

interface CallResult {
  caller: T30Result;
  answerer: T30Result;
  received: ReceivedPage[];
  source: ReturnType<typeof textPage>[];
  lineMs: number;
}

export async function audioCall(o: CallOptions): Promise<CallResult> {
  const clock = new ManualClock();
  const t0 = clock.now();
  const a = new AudioFrontEnd();
  const b = new AudioFrontEnd();
  const source = Array.from({ length: o.pages }, (_, i) => textPage(1728, o.rows ?? 200, i + 1));
  const received: ReceivedPage[] = [];
  const answerer = new T30Session({
    config: { role: 'answerer', ident: '+1 555 0199', ecm: o.ecm, ...(o.codings ? { codings: o.codings } : {}) },
    frontEnd: b,
    clock,
    onProgress: (p) => p.kind === 'page-received' && received.push(p.page),
  });
  const caller = new T30Session({
    config: {
      role: 'caller', ident: '+1 555 0100', ecm: o.ecm,
      source: { count: source.length, get: (i: number) => source[i]! },
      ...(o.maxBitRate ? { maxBitRate: o.maxBitRate } : {}),
    },
    frontEnd: a,
    clock,
  });
  const ab = o.line ? new LineModel({ seed: 1, ...o.line }) : undefined;
  const ba = o.line ? new LineModel({ seed: 2, ...o.line }) : undefined;
  let aOut = new Int16Array(BLOCK);
  let bOut = new Int16Array(BLOCK);
  let aIn = new Int16Array(BLOCK);
  let bIn = new Int16Array(BLOCK);
  answerer.start();
  caller.start();
  const limit = o.limitMs ?? 300_000;
  while (!(caller.finished && answerer.finished) && clock.now() - t0 < limit) {
    a.process(aIn, aOut);
    b.process(bIn, bOut);
    [aIn, bOut] = [bOut, aIn];
    [bIn, aOut] = [aOut, bIn];
    if (ba) ba.process(aIn, aIn);
    if (ab) ab.process(bIn, bIn);
    await clock.advance(BLOCK / 8);
  }
  expect(caller.finished && answerer.finished, `call unfinished: caller ${caller.state.state}, answerer ${answerer.state.state}`).toBe(true);
  return { caller: await caller.result, answerer: await answerer.result, received, source, lineMs: clock.now() - t0 };
}

function expectDelivered(r: CallResult, pages: number): void {
  expect(r.caller.completion, r.caller.message).toBe('T30_ERR_OK');
  expect(r.answerer.completion, r.answerer.message).toBe('T30_ERR_OK');
  expect(r.received).toHaveLength(pages);
  r.received.forEach((p, i) => expect(firstDifference(p.bitmap!, r.source[i]!)).toBeNull());
}

describe('T.30 over audio (two AudioFrontEnds back to back)', () => {
  it.each([
    [14400, 'v17', false, 'mh'],
    [14400, 'v17', true, 'mmr'],
    [12000, 'v17', false, 'mr'],
    [12000, 'v17', true, 'mr'],
    [9600, 'v29', false, 'mr'],
    [9600, 'v29', true, 'mmr'],
    [7200, 'v29', false, 'mh'],
    [4800, 'v27ter', false, 'mr'],
    [4800, 'v27ter', true, 'mh'],
    [2400, 'v27ter', false, 'mh'],
  ] as const)('%i bit/s (%s), ECM %s, %s: the page arrives pixel for pixel', async (rate, modulation, ecm, coding) => {
    const codings: Coding[] = coding === 'mh' ? ['mh'] : coding === 'mr' ? ['mh', 'mr'] : ['mh', 'mr', 'mmr'];
    const r = await audioCall({ ecm, pages: 1, maxBitRate: rate, codings });
    expectDelivered(r, 1);
    expect(r.caller.params).toMatchObject({ modem: { modulation, bitRate: rate }, ecm, coding });
  });

  it('3 pages, ECM, V.17 14400, through a µ-law hop, 30 dB SNR, −20 dB gain and +7 Hz', async () => {
    const r = await audioCall({ ecm: true, pages: 3, line: { codec: 'ulaw', snrDb: 30, signalDbm0: -13, gainDb: -20, freqOffsetHz: 7 } });
    expectDelivered(r, 3);
    expect(r.caller.params?.modem).toMatchObject({ modulation: 'v17', bitRate: 14400 });
  });

  it('2 pages, non-ECM, V.29 9600, through an A-law hop at 24 dB SNR with an echo', async () => {
    const r = await audioCall({ ecm: false, pages: 2, maxBitRate: 9600, line: { codec: 'alaw', snrDb: 24, signalDbm0: -13, echo: { delayMs: 8, lossDb: 20 } } });
    expectDelivered(r, 2);
  });

  it('a line too noisy for 14400 falls back after FTT and still delivers', async () => {
    const r = await audioCall({ ecm: true, pages: 1, line: { snrDb: 15, signalDbm0: -13 } });
    expectDelivered(r, 1);
    expect(r.caller.params!.modem.bitRate).toBeLessThan(14400);
  });
});
