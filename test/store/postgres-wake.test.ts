// Change notifications of a shared PostgreSQL store wake the workers of other nodes at once:
// a job queued through one store instance is leased by a dispatcher on another, and an event
// inserted through one is delivered by a webhook worker on another, on a clock that never
// advances — so neither worker's poll can be what woke it. Skipped without PostgreSQL binaries,
// failed instead when CI is set.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/log.js';
import type { CallRequest, CallResult, FaxLine } from '../../src/engine/index.js';
import { DEFAULT_JOBS_CONFIG, Dispatcher, FaxService } from '../../src/jobs/index.js';
import { WebhookWorker } from '../../src/webhooks/index.js';
import { openPostgresStore, type PostgresJobStore } from '../../src/store/postgres.js';
import { withPgServer } from './engines.js';

/** Answers every call at once with success and records it. */
class InstantLine implements FaxLine {
  readonly name = 'instant';
  calls: CallRequest[] = [];
  async call(req: CallRequest): Promise<CallResult> {
    this.calls.push(req);
    return { code: 0, message: 'Fax delivered', lastConfirmedPage: req.totalPages, aborted: false, detail: {} };
  }
}

withPgServer({ name: 'PostgreSQL change notifications', what: 'wake', placeholder: 'wakes' }, (server) => {
  /** Two store instances ("nodes") on one fresh database. */
  async function twoNodes(): Promise<{ a: PostgresJobStore; b: PostgresJobStore; close: () => Promise<void> }> {
    const url = await server.createDatabase();
    const a = await openPostgresStore(url);
    const b = await openPostgresStore(url);
    return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) };
  }

  describe('PostgreSQL change notifications wake workers on other nodes', () => {
    it('a job queued through one store is leased and sent by a dispatcher on another, without its poll', async () => {
      const { a, b, close } = await twoNodes();
      const clock = new ManualClock();
      const line = new InstantLine();
      const dispatcher = new Dispatcher({
        store: b, clock, owner: 'node-b', lines: { virtual: line }, config: DEFAULT_JOBS_CONFIG,
        fetch: { timeoutMs: 5000, allowHosts: [] }, logger: silentLogger, pollMs: 3_600_000, otherLines: 'leave',
      });
      try {
        const { account } = await a.createAccount({ name: 'a', balanceCents: 1000, faxNumber: '+14155550100', nowMs: clock.now() });
        dispatcher.start();
        await clock.advance(0); // the first look at the store: nothing yet; the next poll is an hour away
        const service = new FaxService({ store: a, clock, config: DEFAULT_JOBS_CONFIG });
        const input = {
          callerId: null, templateId: null, smartDocumentId: null, cover: null, sendAtMs: null, quality: 'Standard' as const,
          files: [{ fileName: 'a.txt', fileUrl: null, data: Buffer.from('hello\n'), pages: null }],
        };
        const [jobId] = (await service.send({ accountId: account.id, mode: 'test' }, { ...input, numbers: ['+14155550123'] }, null)).jobIds;
        // Real time passes (the notification, the document preparation); the clock does not.
        await vi.waitFor(async () => expect((await a.getJobById(jobId!))?.status).toBe('delivered'), { timeout: 20_000, interval: 50 });
        expect(line.calls.map((c) => c.jobId)).toEqual([jobId]);
        expect(clock.now()).toBe(new ManualClock().now());

      } finally {
        await dispatcher.stop();
        await close();
      }
    });

    it('an event inserted through one store is delivered by a webhook worker on another, without its poll', async () => {
      const { a, b, close } = await twoNodes();
      const clock = new ManualClock();
      const received: string[] = [];
      const http: Server = createServer((req, res) => {
        req.on('data', () => {});
        req.on('end', () => (received.push(String(req.headers['x-service-event-id'])), res.end('ok')));
      });
      await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/hook`;
      const worker = new WebhookWorker({ store: b, clock, owner: 'node-b', logger: silentLogger, allowPrivateTargets: true, pollMs: 3_600_000 });
      try {
        const { account } = await a.createAccount({ name: 'a', balanceCents: 0, faxNumber: '+14155550100', webhookUrl: url, nowMs: clock.now() });
        worker.start();
        await worker.whenIdle();
        await a.outbox.insertEvent(account.id, null, { eventId: 'evt-wake', type: 'fax.test', body: '{}' }, clock.now());
        await vi.waitFor(() => expect(received).toEqual(['evt-wake']), { timeout: 20_000, interval: 50 });
        await worker.whenIdle();
        expect((await a.outbox.getDeliveryByEventId(account.id, 'evt-wake'))?.status).toBe('delivered');
      } finally {
        await worker.stop();
        http.close();
        await close();
      }
    });
  });
});
