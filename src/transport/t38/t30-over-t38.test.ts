// Whole T.30 calls (src/t30 sessions, caller and answerer) over two T38FrontEnds on a memory
// link: ECM and non-ECM, clean and lossy lines at redundancy 3, fast and real-time pacing.
// Pages must arrive pixel-identical and both sides must report success.
import { describe, expect, it } from 'vitest';
import { firstDifference } from '../../codecs/index.js';
import { ManualClock } from '../../shared/clock.js';
import { T30Session, type ReceivedPage, type T30Result } from '../../t30/index.js';
import { textPage } from '../../../test/vectors/synthetic-pages.js';
import { T38FrontEnd, type T38FrontEndOptions } from './front-end.js';
import { createMemoryLink, type MemoryLinkOptions } from './memory-link.js';

interface CallOptions {
  ecm: boolean;
  pages: number;
  link?: Omit<MemoryLinkOptions, 'clock'>;
  fe?: Partial<T38FrontEndOptions>;
  limitMs?: number;
}

async function call(o: CallOptions): Promise<{ caller: T30Result; answerer: T30Result; received: ReceivedPage[]; elapsedMs: number; source: ReturnType<typeof textPage>[] }> {
  const clock = new ManualClock();
  const t0 = clock.now();
  const link = createMemoryLink({ clock, delayMs: 20, ...o.link });
  const fe = (transport: typeof link.a) => new T38FrontEnd({ transport, clock, pacing: 'fast', ...o.fe });
  const source = Array.from({ length: o.pages }, (_, i) => textPage(1728, 300, i + 1));
  const received: ReceivedPage[] = [];
  const answerer = new T30Session({
    config: { role: 'answerer', ident: '+1 555 0199', ecm: o.ecm },
    frontEnd: fe(link.b),
    clock,
    onProgress: (p) => p.kind === 'page-received' && received.push(p.page),
  });
  const caller = new T30Session({
    config: { role: 'caller', ident: '+1 555 0100', ecm: o.ecm, source: { count: source.length, get: (i: number) => source[i]! } },
    frontEnd: fe(link.a),
    clock,
  });
  answerer.start();
  caller.start();
  const limit = o.limitMs ?? 300_000;
  while (!(caller.finished && answerer.finished) && clock.now() - t0 < limit) await clock.advance(50);
  expect(caller.finished && answerer.finished, `call unfinished: caller ${caller.state.state}, answerer ${answerer.state.state}`).toBe(true);
  return { caller: await caller.result, answerer: await answerer.result, received, elapsedMs: clock.now() - t0, source };
}

function expectDelivered(r: Awaited<ReturnType<typeof call>>, pages: number): void {
  expect(r.caller.completion, r.caller.message).toBe('T30_ERR_OK');
  expect(r.answerer.completion, r.answerer.message).toBe('T30_ERR_OK');
  expect(r.received).toHaveLength(pages);
  r.received.forEach((p, i) => expect(firstDifference(p.bitmap!, r.source[i]!)).toBeNull());
}

describe('T.30 over T.38 (memory link)', () => {
  it.each([
    ['non-ECM', false],
    ['ECM', true],
  ])('%s, 2 pages, clean line, fast pacing', async (_n, ecm) => {
    expectDelivered(await call({ ecm, pages: 2 }), 2);
  });

  it.each([
    ['non-ECM, 5 % loss', false, 0.05, 11],
    ['ECM, 10 % loss', true, 0.1, 12],
    ['ECM, 10 % loss, T.38 version 0', true, 0.1, 13],
  ])('%s at redundancy 3, with duplicates and reordering', async (name, ecm, loss, seed) => {
    const r = await call({
      ecm,
      pages: 2,
      link: { loss, seed, duplicate: 0.02, reorder: 0.05, reorderDelayMs: 15 },
      fe: { errorCorrection: { scheme: 'redundancy', depth: 3 }, version: name.includes('version 0') ? 0 : 3 },
    });
    expectDelivered(r, 2);
  });

  it('ECM with FEC, 5 % loss', async () => {
    expectDelivered(await call({ ecm: true, pages: 1, link: { loss: 0.05, seed: 21 }, fe: { errorCorrection: { scheme: 'fec', span: 3, entries: 3 } } }), 1);
  });

  it('real-time pacing: a page takes its line time', async () => {
    const r = await call({ ecm: false, pages: 1, fe: { pacing: 'realtime' } });
    expectDelivered(r, 1);
    // CED, DIS/DCS exchanges at 300 bit/s with 1 s preambles, 1.5 s TCF, the page at 14400: several seconds.
    expect(r.elapsedMs).toBeGreaterThan(8000);
    expect(r.elapsedMs).toBeLessThan(60_000);
  });
});
