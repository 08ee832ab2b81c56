// Whole calls: a caller session and an answerer session over the ideal loopback front ends.
// Every page must arrive pixel-identical, both sides must report success and the same count.

import { describe, expect, it } from 'vitest';
import { runLoopbackCall, type LoopbackCall } from '../../test/helpers/t30-loopback.js';
import { noise, rng, textPage } from '../../test/vectors/synthetic-pages.js';
import { firstDifference, type Bitmap } from '../codecs/index.js';
import { ALL_RESOLUTIONS, widthPixels, type Coding, type PaperWidth, type Resolution } from './modes.js';
import type { T30Params } from './negotiate.js';
import type { PageSource } from './types.js';

/** Pages drawn for whatever mode is negotiated: width from the params, content from the index. */
function pages(count: number, height = 150): PageSource & { drawn: Bitmap[] } {
  const drawn: Bitmap[] = [];
  return {
    count,
    drawn,
    get(i: number, p: T30Params): Bitmap {
      const bm = textPage(p.widthPixels, height, 100 + i);
      drawn[i] = bm;
      return bm;
    },
  };
}

function expectDelivered(call: LoopbackCall, source: { drawn: Bitmap[] }, count: number): void {
  expect(call.caller, call.caller.message).toMatchObject({ completion: 'T30_ERR_OK', code: 0, pages: count });
  expect(call.answerer, call.answerer.message).toMatchObject({ completion: 'T30_ERR_OK', code: 0, pages: count });
  expect(call.confirmed).toEqual([...Array(count).keys()]);
  expect(call.received).toHaveLength(count);
  call.received.forEach((page, i) => {
    expect(page.index).toBe(i);
    expect(firstDifference(page.bitmap!, source.drawn[i]!), `page ${i}`).toBeNull();
  });
}

const MODES: Array<{ ecm: boolean; coding: Coding }> = [
  { ecm: false, coding: 'mh' },
  { ecm: false, coding: 'mr' },
  { ecm: true, coding: 'mh' },
  { ecm: true, coding: 'mr' },
  { ecm: true, coding: 'mmr' },
];

describe('loopback: every coding, ECM on and off, every resolution', () => {
  const cases = MODES.flatMap((m) => ALL_RESOLUTIONS.flatMap((resolution) => [1, 3].map((count) => ({ ...m, resolution, count }))));
  it.each(cases)('$coding ecm=$ecm $resolution, $count page(s)', async ({ ecm, coding, resolution, count }) => {
    const source = pages(count);
    const call = await runLoopbackCall(
      { ident: '+1 555 0100', ecm, codings: [coding], source, formats: { resolutions: [resolution], widths: ['a4'] } },
      { ident: '+1 555 0199' },
    );
    expectDelivered(call, source, count);
    const p = call.received[0]!.params;
    expect(p).toMatchObject({ ecm, coding, resolution, widthPixels: widthPixels('a4', resolution) });
    expect(call.caller.remoteIdent).toBe('+1 555 0199');
    expect(call.answerer.remoteIdent).toBe('+1 555 0100');
  });
});

describe('loopback: negotiation', () => {
  it('takes the best common mode: V.17 14400, MMR, ECM', async () => {
    const source = pages(1);
    const call = await runLoopbackCall({ source });
    expectDelivered(call, source, 1);
    expect(call.caller.params).toMatchObject({ modem: { modulation: 'v17', bitRate: 14400 }, coding: 'mmr', ecm: true, resolution: 'R8_FINE' });
  });

  it('falls back HD → R8 superfine when the receiver has no R16, and renders at its width', async () => {
    const source = pages(2);
    const formats = { resolutions: ['R16_SUPERFINE', 'R8_SUPERFINE', 'R8_FINE'] as Resolution[], widths: ['a4'] as PaperWidth[] };
    const call = await runLoopbackCall({ source, formats }, { resolutions: ['R8_STANDARD', 'R8_FINE', 'R8_SUPERFINE'] });
    expectDelivered(call, source, 2);
    expect(call.received[0]!.params).toMatchObject({ resolution: 'R8_SUPERFINE', widthPixels: 1728 });
  });

  it('sends B4 and A3 where the receiver takes them, A4 where not', async () => {
    for (const [widths, expected] of [
      [['a4', 'b4', 'a3'], 2432],
      [['a4', 'b4'], 2048],
      [['a4'], 1728],
    ] as Array<[PaperWidth[], number]>) {
      const source = pages(1, 60);
      const call = await runLoopbackCall({ source, formats: { resolutions: ['R8_FINE'], widths: ['a3', 'b4', 'a4'] } }, { widths });
      expectDelivered(call, source, 1);
      expect(call.received[0]!.params.widthPixels).toBe(expected);
    }
  });

  it.each([false, true])('uses EOM and a new DCS when the next page needs another resolution (ecm=%s)', async (ecm) => {
    const source = pages(3, 80);
    source.formats = (i) => ({ resolutions: [i === 0 ? 'R8_FINE' : 'R16_SUPERFINE'], widths: ['a4'] });
    const call = await runLoopbackCall({ source, ecm });
    expectDelivered(call, source, 3);
    expect(call.received.map((p) => p.params.resolution)).toEqual(['R8_FINE', 'R16_SUPERFINE', 'R16_SUPERFINE']);
    const sent = call.log.flatMap((e) => (e.side === 'caller' && e.p.kind === 'frame' && e.p.direction === 'tx' ? [e.p.name] : []));
    if (ecm) {
      // The post-message commands ride in PPS: count the DCS exchanges and the pages' PPS.
      expect(sent.filter((n) => n === 'DCS')).toHaveLength(2);
      expect(sent.filter((n) => n === 'PPS')).toHaveLength(3);
    } else {
      expect(sent.filter((n) => ['MPS', 'EOP', 'EOM', 'DCS'].includes(n))).toEqual(['DCS', 'EOM', 'DCS', 'MPS', 'EOP']);
    }
  });

  it('sends 64-octet ECM frames when told to', async () => {
    const source = pages(2);
    const call = await runLoopbackCall({ source, ecmFrameSize: 64 });
    expectDelivered(call, source, 2);
    expect(call.received[0]!.params.ecmFrameSize).toBe(64);
  });
});

describe('loopback: long calls and damage on the line', () => {
  it('ten pages, ECM and not', async () => {
    for (const ecm of [true, false]) {
      const source = pages(10, 200);
      const call = await runLoopbackCall({ source, ecm });
      expectDelivered(call, source, 10);
    }
  });

  it('a page larger than one ECM block goes in several blocks (PPS-NULL between them)', async () => {
    const big = noise(1728, 700, 9, 0.3);
    const source = { count: 2, drawn: [big, big], get: () => big };
    const call = await runLoopbackCall({ source, codings: ['mh'] });
    expectDelivered(call, source, 2);
    const pps = call.log.filter((e) => e.side === 'caller' && e.p.kind === 'frame' && e.p.direction === 'tx' && e.p.name === 'PPS');
    expect(pps.length).toBeGreaterThan(2);
  });

  it('lost and corrupt ECM frames are asked for again (PPR) and the page arrives whole', async () => {
    const source = pages(2, 200);
    let n = 0;
    const call = await runLoopbackCall(
      { source },
      {},
      {
        // The first burst loses every third FCD frame and corrupts every seventh.
        tamper: (to, e) => {
          if (to !== 'answerer' || e.kind !== 'hdlc' || e.frame[2] !== 0x06) return e;
          n++;
          if (n > 40) return e;
          if (n % 3 === 0) return null;
          return n % 7 === 0 ? { ...e, crcOk: false } : e;
        },
      },
    );
    expectDelivered(call, source, 2);
    expect(call.log.some((e) => e.side === 'answerer' && e.p.kind === 'frame' && e.p.name === 'PPR')).toBe(true);
  });

  it('a garbled non-ECM page is refused (RTN), retrained lower and sent again', async () => {
    const source = pages(1, 200);
    let state: 'before' | 'garbling' | 'after' = 'before';
    const call = await runLoopbackCall(
      { source, ecm: false },
      {},
      {
        // Every fifth octet of the first page transmission is inverted (TCF, all zeros, passes untouched).
        tamper: (to, e) => {
          if (to !== 'answerer' || state === 'after') return e;
          if (e.kind === 'image-end' && state === 'garbling') state = 'after';
          if (e.kind !== 'image-data' || (state === 'before' && e.data.every((b) => b === 0))) return e;
          state = 'garbling';
          return { ...e, data: e.data.map((b, i) => (i % 5 === 0 ? b ^ 0xff : b)) };
        },
      },
    );
    expectDelivered(call, source, 1);
    expect(call.log.some((e) => e.side === 'answerer' && e.p.kind === 'frame' && e.p.name === 'RTN')).toBe(true);
    expect(call.caller.params!.modem.bitRate).toBe(12000);
  });

  it('real-time pacing: a two-page fax takes the time it takes, with no timer firing early', async () => {
    const source = pages(2, 400);
    const call = await runLoopbackCall({ source, ecm: false }, {}, { paced: true });
    expectDelivered(call, source, 2);
    expect(call.elapsedMs).toBeGreaterThan(10_000);
    expect(call.elapsedMs).toBeLessThan(60_000);
  });

  it('the line drops in the middle: both sides report −3108', async () => {
    const source = pages(3, 300);
    const call = await runLoopbackCall(
      { source, ecm: false },
      {},
      {
        paced: true,
        onLoopback: (line, s) => {
          let dropped = false;
          const check = (): void => {
            if (!dropped && s.caller.state.pages === 1 && s.caller.state.state === 'I') {
              dropped = true;
              line.drop('BYE');
            }
          };
          const cmd = line.caller.command.bind(line.caller);
          line.caller.command = (c) => {
            cmd(c);
            check();
          };
        },
      },
    );
    expect(call.caller).toMatchObject({ completion: 'T30_ERR_CALLDROPPED', code: -3108, pages: 1 });
    expect(call.answerer).toMatchObject({ completion: 'T30_ERR_CALLDROPPED', code: -3108, pages: 1 });
  });
});

describe('loopback: a noisy line', () => {
  // Frames and image data are dropped or corrupted at random (tx-done and the line itself stay
  // reliable, as the front-end contract promises; nothing arrives twice, as on a real line).
  // Every call must end on both sides without an internal error, and a success must mean
  // every page arrived intact.
  const seeds = Array.from({ length: 24 }, (_, i) => ({ seed: i + 1, ecm: i % 2 === 0 }));
  it.each(seeds)('seed $seed ecm=$ecm', async ({ seed, ecm }) => {
    const rand = rng(seed);
    const source = pages(3, 120);
    const call = await runLoopbackCall(
      { source, ecm },
      {},
      {
        limitMs: 3_600_000,
        tamper: (_to, e) => {
          if (e.kind === 'tx-done' || e.kind === 'line-down') return e;
          const r = rand();
          if (r < 0.04) return null;
          if (r < 0.08 && e.kind === 'hdlc') return { ...e, crcOk: false };
          if (r < 0.1 && e.kind === 'image-data') return { ...e, data: e.data.map((b) => b ^ 0x24) };
          return e;
        },
      },
    );
    for (const r of [call.caller, call.answerer]) expect(r.completion, r.message).not.toBe('T30_ERR_INTERNAL');
    if (call.caller.code === 0) {
      expect(call.caller.pages).toBe(3);
      expect(call.confirmed).toEqual([0, 1, 2]);
    }
    if (call.answerer.code === 0) {
      expect(call.received.length).toBeGreaterThanOrEqual(call.caller.pages);
      if (ecm) call.received.forEach((p, i) => expect(firstDifference(p.bitmap!, source.drawn[i]!), `page ${i}`).toBeNull());
    }
  });
});

