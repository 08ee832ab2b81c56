// The spandsp T.38 test peer proven against itself before it judges our stack: two peers (one
// sending, one receiving) over UDPTL on 127.0.0.1, in lockstep, through the T.38 matrix and the
// peer's failure modes. This checks the harness itself: the lockstep timing, the UDPTL framing
// and redundancy recovery, the loss model, and the pixel comparison.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { peerParty, runLockstep, SpandspPeer, T30_ERR, type PeerOptions } from './peer.js';
import { buildPeer, INTEROP_REQUIRED } from './spandsp/build.js';
import { compareFaxTiffs } from './tiff-compare.js';
import { QUALITIES, REDUNDANCY, selectedMatrix, writeCaseDocument, type T38Case } from './t38-matrix.js';

const build = buildPeer();
const dir = mkdtempSync(join(tmpdir(), 'faxstack-spandsp-self-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Call {
  tx: SpandspPeer;
  rx: SpandspPeer;
  simulatedMs: number;
}

/** Starts a receiving and a sending peer pointed at each other and runs them until `until`. */
async function call(
  tag: string,
  send: Partial<PeerOptions>,
  receive: Partial<PeerOptions>,
  opts: { until?: (tx: SpandspPeer, rx: SpandspPeer) => boolean; maxSimulatedMs?: number; tailMs?: number } = {},
): Promise<Call> {
  if (!build.ok) throw new Error(build.reason);
  const rx = await SpandspPeer.start(build.binary, { role: 'receive', tiff: join(dir, `${tag}-rx.tif`), ...receive });
  const tx = await SpandspPeer.start(build.binary, { role: 'send', tiff: join(dir, `${tag}-tx.tif`), remote: `127.0.0.1:${rx.port}`, ...send });
  try {
    await rx.setRemote(`127.0.0.1:${tx.port}`);
    const until = opts.until ?? ((t, r) => t.done !== undefined && r.done !== undefined);
    const simulatedMs = await runLockstep(peerParty(tx), peerParty(rx), {
      done: () => until(tx, rx),
      maxSimulatedMs: opts.maxSimulatedMs ?? 10 * 60_000,
      tailMs: opts.tailMs ?? 500,
    });
    await Promise.all([tx.quit(), rx.quit()]);
    return { tx, rx, simulatedMs };
  } catch (err) {
    tx.kill();
    rx.kill();
    throw err;
  }
}

function peerOptions(c: T38Case): Partial<PeerOptions> {
  return { ecm: c.ecm, redundancy: c.redundancy, lossPct: c.lossPct, maxBurst: c.maxBurst };
}

describe.skipIf(!build.ok && !INTEROP_REQUIRED)('spandsp T.38 peer against itself', () => {
  it('builds against libspandsp', () => {
    expect(build.ok ? '' : build.reason).toBe('');
  });

  describe('the matrix: pages arrive pixel-identical, both sides report success and the same page count', () => {
    const cases = selectedMatrix(['spandsp-to-spandsp']);
    it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      const tag = c.name.replace(/[^a-z0-9]+/gi, '-');
      writeCaseDocument(c, join(dir, `${tag}-tx.tif`));
      const q = QUALITIES[c.quality];
      const { tx, rx, simulatedMs } = await call(
        tag,
        { ...peerOptions(c), seed: c.seed },
        { ...peerOptions(c), seed: c.seed + 1, allowCompression: [c.compression], allowResolution: q.peerResolutions },
        { maxSimulatedMs: c.maxSimulatedMs },
      );
      const [t, r] = [tx.done, rx.done];
      expect(t, `sender finished within ${simulatedMs} ms`).toBeDefined();
      expect(r, `receiver finished within ${simulatedMs} ms`).toBeDefined();
      expect({ success: t!.success, completion: t!.completion.name, pages: t!.pages }).toEqual({ success: true, completion: 'OK', pages: c.pages });
      expect({ success: r!.success, completion: r!.completion.name, pages: r!.pages }).toEqual({ success: true, completion: 'OK', pages: c.pages });
      expect({ ecm: r!.ecm, compression: r!.compression, resolution: r!.resolution, width: r!.width }).toEqual({
        ecm: c.ecm,
        compression: c.compression,
        resolution: q.line,
        width: q.width,
      });
      if (c.lossPct > 0) expect(t!.udptl.dropped + r!.udptl.dropped).toBeGreaterThan(0);
      const cmp = compareFaxTiffs(join(dir, `${tag}-tx.tif`), join(dir, `${tag}-rx.tif`), dir, tag);
      expect(cmp.detail).toBe('');
      expect(cmp.receivedPages).toBe(c.pages);
    }, 300_000);
  });

  it('is deterministic: the same call twice gives the same events at the same sample times', async () => {
    const c = { quality: 'Low', pages: 2, compression: 'mr' } as const;
    const runs = [];
    for (const tag of ['det-a', 'det-b']) {
      writeCaseDocument(c, join(dir, `${tag}-tx.tif`));
      const lossy = { ecm: true, redundancy: 2, lossPct: 10 };
      const { tx, rx, simulatedMs } = await call(tag, { ...lossy, seed: 5 }, { ...lossy, seed: 6, allowCompression: ['mr'] });
      const strip = (p: SpandspPeer) => p.events.filter((e) => e.event !== 'ready' && e.event !== 'quit');
      runs.push({ simulatedMs, tx: strip(tx), rx: strip(rx) });
    }
    expect(runs[0]!.rx.at(-1)).toMatchObject({ event: 'done', success: true, pages: 2 });
    expect(runs[1]).toEqual(runs[0]);
  }, 60_000);

  describe('UDPTL redundancy', () => {
    it('without redundancy, 5 % loss damages a non-ECM page and the comparison says so', async () => {
      const c = { quality: 'Standard', pages: 1, compression: 'mh' } as const;
      writeCaseDocument(c, join(dir, 'nored-tx.tif'));
      const lossy = { ecm: false, redundancy: 0, lossPct: 5 };
      const { rx } = await call('nored', { ...lossy, seed: 11 }, { ...lossy, seed: 12, allowCompression: ['mh'] });
      expect(rx.done?.udptl.lost).toBeGreaterThan(0);
      const cmp = compareFaxTiffs(join(dir, 'nored-tx.tif'), join(dir, 'nored-rx.tif'), dir, 'nored');
      expect(cmp.identical).toBe(false);
    }, 120_000);

    it('redundancy 3 recovers every datagram of 10 % loss when no more than 3 go in a row', async () => {
      const c = { quality: 'Low', pages: 1, compression: 'mr' } as const;
      writeCaseDocument(c, join(dir, 'red-tx.tif'));
      const lossy = { ecm: false, redundancy: 3, lossPct: 10, maxBurst: 3 };
      const { tx, rx } = await call('red', { ...lossy, seed: 21 }, { ...lossy, seed: 22 });
      // Recovered: all but the last few the sender dropped, which no later datagram carried.
      expect(rx.done!.udptl.recovered).toBeGreaterThan(tx.done!.udptl.dropped - REDUNDANCY);
      expect(rx.done!.udptl.lost).toBe(0);
      expect(compareFaxTiffs(join(dir, 'red-tx.tif'), join(dir, 'red-rx.tif'), dir, 'red').detail).toBe('');
    }, 120_000);

    it('FEC instead of redundancy: parity rebuilds lost packets, the pages arrive whole', async () => {
      const c = { quality: 'Standard', pages: 2, compression: 'mmr' } as const;
      writeCaseDocument(c, join(dir, 'fec-tx.tif'));
      const lossy = { ecm: true, fec: { span: 3, entries: 3 }, lossPct: 5 };
      const { tx, rx } = await call('fec', { ...lossy, seed: 31 }, { ...lossy, seed: 32 });
      expect(rx.done!.udptl.recoveredFec).toBeGreaterThan(0);
      expect(rx.done!.udptl.recovered).toBe(0);
      expect([tx.done?.success, rx.done?.success, rx.done?.pages]).toEqual([true, true, 2]);
      expect(compareFaxTiffs(join(dir, 'fec-tx.tif'), join(dir, 'fec-rx.tif'), dir, 'fec').detail).toBe('');
    }, 120_000);
  });

  describe('failure modes', () => {
    const doc = { quality: 'Standard', pages: 3, compression: 'mh' } as const;
    const prepare = (tag: string) => writeCaseDocument({ ...doc, pages: 10 }, join(dir, `${tag}-tx.tif`));

    it('no-answer: the caller gives up when nothing ever answers (spandsp 0.0.6 reports T0, not T1)', async () => {
      prepare('noanswer');
      const { tx, rx } = await call('noanswer', {}, { fail: 'no-answer' }, { until: (t) => t.done !== undefined });
      expect(tx.done?.completion.code).toBe(T30_ERR.T0_EXPIRED);
      expect(tx.done?.pages).toBe(0);
      // spandsp's T0, its wait for any answer at all: 60 s of simulated time.
      expect(tx.done!.samples / 8).toBeGreaterThanOrEqual(60_000);
      expect(tx.done!.samples / 8).toBeLessThan(62_000);
      expect(rx.done).toBeUndefined();
    }, 60_000);

    it.each([true, false])('hangup-mid-page by the receiver (ECM %s): both sides end with "call dropped" after page 1', async (ecm) => {
      const tag = `hangup-rx-${ecm}`;
      prepare(tag);
      const { tx, rx } = await call(tag, { ecm }, { ecm, fail: 'hangup-mid-page', failPage: 2 });
      expect(rx.events.some((e) => e.event === 'hangup')).toBe(true);
      expect(tx.events.some((e) => e.event === 'line-down')).toBe(true);
      for (const p of [tx, rx]) expect({ code: p.done?.completion.code, pages: p.done?.pages }).toEqual({ code: T30_ERR.CALLDROPPED, pages: 1 });
    }, 60_000);

    it('hangup-mid-page by the sender: the sender ends with "call dropped" after page 1', async () => {
      prepare('hangup-tx');
      const { tx, rx } = await call('hangup-tx', { ecm: false, fail: 'hangup-mid-page', failPage: 2 }, { ecm: false });
      expect({ code: tx.done?.completion.code, pages: tx.done?.pages }).toEqual({ code: T30_ERR.CALLDROPPED, pages: 1 });
      // Without ECM the receiver answers the cut-short page, draws ICMP unreachable and drops too.
      expect({ code: rx.done?.completion.code, pages: rx.done?.pages }).toEqual({ code: T30_ERR.CALLDROPPED, pages: 1 });
    }, 60_000);

    it.each([true, false])('silent-mid-page by the receiver (ECM %s): the sender gets no response after the page', async (ecm) => {
      const tag = `silent-${ecm}`;
      prepare(tag);
      const { tx } = await call(tag, { ecm }, { ecm, fail: 'silent-mid-page', failPage: 2 }, { until: (t) => t.done !== undefined });
      expect(tx.done?.completion.name).toBe('No response after sending a page');
      expect(tx.done?.pages).toBe(1);
    }, 60_000);

    it('reject-coding by the receiver: it refuses DCS with DCN, the sender ends before any page', async () => {
      prepare('reject');
      const { tx, rx } = await call('reject', {}, { fail: 'reject-coding' });
      expect(rx.events.some((e) => e.event === 'reject')).toBe(true);
      expect(tx.done?.completion.name).toBe('Received bad response to DCS or training');
      expect(rx.done?.completion.code).toBe(T30_ERR.INCOMPATIBLE);
      expect([tx.done?.pages, rx.done?.pages]).toEqual([0, 0]);
    }, 60_000);

    it.each([
      ['HD (R16 × 15.4)', 'HD', ['standard', 'fine']],
      ['Standard (fine)', 'Standard', ['standard']],
    ] as const)('a receiver without %s makes the spandsp sender give up: resolution not supported', async (_n, quality, allowResolution) => {
      const tag = `nores-${quality}`;
      writeCaseDocument({ quality, pages: 1, compression: 'mh' }, join(dir, `${tag}-tx.tif`));
      const { tx } = await call(tag, {}, { allowResolution: [...allowResolution] });
      expect(tx.done?.completion.code).toBe(T30_ERR.NORESSUPPORT);
    }, 60_000);

    it.each([true, false])('ftt-always (ECM %s): the receiver fails every TCF, the sender runs out of rates', async (ecm) => {
      const tag = `ftt-${ecm}`;
      prepare(tag);
      const { tx, rx } = await call(tag, { ecm }, { ecm, fail: 'ftt-always' });
      expect(tx.done?.completion.code).toBe(T30_ERR.CANNOT_TRAIN);
      expect(tx.done?.pages).toBe(0);
      expect(rx.done?.success).toBe(false);
    }, 60_000);
  });
});
