// The library as an embedder uses it, in process over real sockets: documents rendered to
// TIFF-F/PDF/PNG, one call sent over UDPTL to a listening library instance, the job engine on a
// SQLite store with its events, and the HTTP API mounted on the embedder's fastify.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { closeWorkers, createFaxEngine, faxstackHttp, FaxError, listenForFax, renderFax, RenderedFax, sendFax, type FaxCallEvent, type FaxEngineEvent } from '../../src/index.js';

const letter = Buffer.from('A letter from the faxstack library.\n\nSecond paragraph.\n');

afterAll(() => closeWorkers());

describe('renderFax', () => {
  it('renders a cover page and a text document to TIFF-F, PDF and PNG', async () => {
    const fax = await renderFax([{ data: letter, name: 'letter.txt' }], { cover: { subject: 'Hello', toName: 'Ann' }, header: { fromName: 'Lib', fromNumber: '+14155550100' } });
    expect([fax.pageCount, fax.xDpi, fax.yDpi, fax.width]).toEqual([2, 204, 196, 1728]);
    expect(fax.tiff().subarray(0, 2).toString('latin1')).toBe('II');
    expect(fax.pdf().subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const png = await fax.previewPng(2, { width: 300 });
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(RenderedFax.fromTiff(fax.tiff('mmr')).pageCount).toBe(2);
  });

  it('refuses what is not a document, and a private URL naming fetchAllowHosts', async () => {
    await expect(renderFax([new Uint8Array([0, 1, 2, 3])])).rejects.toMatchObject({ code: -3006 });
    const refused = renderFax(['http://127.0.0.1:9/x.pdf']);
    await expect(refused).rejects.toBeInstanceOf(FaxError);
    await expect(refused).rejects.toThrow(/127\.0\.0\.1 is a loopback address; to allow it, add 127\.0\.0\.1 to the fetchAllowHosts setting/);
  });
});

describe('sendFax → listenForFax over UDPTL', () => {
  it('delivers the pages; both ends report the same result, with progress events', async () => {
    const listener = await listenForFax({ listen: 'udptl://127.0.0.1:0', ident: 'RECEIVER' });
    const events: FaxCallEvent[] = [];
    const sent = await sendFax([{ data: letter }], { via: listener.url, ident: '+14155550100', onEvent: (e) => events.push(e), render: { header: false } });
    const received = await listener.result;
    expect(sent).toMatchObject({ success: true, code: 0, pages: 1, pagesTotal: 1, remoteIdent: 'RECEIVER' });
    expect(received).toMatchObject({ success: true, pages: 1, remoteIdent: '+14155550100' });
    expect(received.fax?.pageCount).toBe(1);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['phase', 'negotiated', 'page']));
    expect(events.at(-1)).toEqual({ type: 'page', page: 1, pagesTotal: 1 });
  }, 60_000);

  it('an aborted call, or a listener stopped, says why it ended', async () => {
    const fax = await renderFax([{ data: letter }]);
    const ac = new AbortController();
    const sending = sendFax(fax, { via: 'udptl://127.0.0.1:9', signal: ac.signal, onEvent: (e) => e.type === 'phase' && ac.abort('no answer within 1 s') });
    const r = await sending;
    expect(r).toMatchObject({ success: false, code: -3103, pages: 0, pagesTotal: 1 });
    expect(r.message).toContain('no answer within 1 s');

    const stop = new AbortController();
    const listener = await listenForFax({ listen: 'udptl://127.0.0.1:0', signal: stop.signal });
    stop.abort('stopped listening');
    const rx = await listener.result;
    expect(rx).toMatchObject({ success: false, pages: 0, fax: null });
    expect(rx.message).toContain('stopped listening');
  }, 30_000);
});

describe('createFaxEngine', () => {
  it('submits a fax as the API does, reports its progress and completion, and serves the API on the embedder’s fastify', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'faxstack-lib-'));
    const engine = await createFaxEngine({ dataDir, logLevel: 'silent' });
    try {
      const acct = await engine.createAccount({ name: 'lib', faxNumber: '+14155550100', balance: 5 });
      const seen: FaxEngineEvent[] = [];
      engine.on('event', (e) => seen.push(e));
      const request = { faxNumber: '+14155550123', faxData: [{ fileName: 'letter.txt', fileData: letter.toString('base64') }] };
      const sub = await engine.send(acct.testKey, request, { idempotencyKey: 'k-1' });
      expect(sub).toMatchObject({ jobIds: [expect.any(Number)], replayed: false, scheduled: false });
      expect(await engine.send(acct.testKey, request, { idempotencyKey: 'k-1' })).toMatchObject({ jobIds: sub.jobIds, replayed: true });
      await expect(engine.send(acct.testKey, { ...request, faxNumber: 'nope' })).rejects.toMatchObject({ field: 'faxNumber' });
      const done = await engine.waitFor(acct.testKey, sub.jobIds[0]!);
      expect(done).toMatchObject({ jobId: sub.jobIds[0], faxStatus: 'delivered', code: 0, faxTransferredPages: 1 });
      expect(seen.some((e) => e.type === 'progress' && e.progress.stage === 'transmitting')).toBe(true);
      expect(seen.some((e) => e.type === 'completed' && e.fax.jobId === sub.jobIds[0])).toBe(true);
      expect((await engine.list(acct.testKey)).map((f) => f.jobId)).toContain(sub.jobIds[0]);
      await expect(engine.get('not-a-key', 1)).rejects.toMatchObject({ code: -3009 });

      const app = Fastify();
      app.get('/', async () => 'the embedder’s own route');
      await app.register(faxstackHttp(engine, { logLevel: 'silent' }));
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      try {
        const status = await fetch(`${url}/v1/customer/fax-status?jobId=${sub.jobIds[0]}`, { headers: { accessToken: acct.testKey } });
        expect(status.status).toBe(200);
        expect(await status.json()).toMatchObject({ status: 1, data: { jobId: sub.jobIds[0], faxStatus: 'delivered' } });
        const posted = await fetch(`${url}/v1/customer/fax-send`, { method: 'POST', headers: { accessToken: acct.testKey, 'content-type': 'application/json' }, body: JSON.stringify(request) });
        expect(posted.status).toBe(200);
        expect(await (await fetch(`${url}/`)).text()).toBe('the embedder’s own route');
        expect((await fetch(`${url}/dashboard/sign-in`)).status).toBe(200);
      } finally {
        await app.close();
      }
    } finally {
      await engine.close();
    }
  }, 60_000);
});
