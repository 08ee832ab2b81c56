// The JobStore contract: one suite, run unchanged against every engine.
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import type { JobStore, NewJob, NewEvent, JobRecord } from '../../src/store/index.js';

const T0 = Date.UTC(2026, 0, 1);
let seq = 0;
const ev = (type = 'fax.completed') => (job: JobRecord): NewEvent => ({
  eventId: `evt-${job.jobId}-${++seq}`,
  type,
  body: JSON.stringify({ event: type, data: { jobId: job.jobId, faxStatus: job.status } }),
});

function newJob(over: Partial<NewJob> = {}): NewJob {
  return {
    toNumber: '+14155550123', fromNumber: '+14155550100', quality: 'Standard', cover: null, templateId: null,
    smartDocumentId: null, sendAtMs: null, deadlineMs: T0 + 86_400_000, line: 'virtual', maxAttempts: 3,
    totalPages: 2, priceCentsPerPage: 7, reserveCents: 14, originalJobId: null, ...over,
  };
}

const pagesOf = (pageCount: number) => ({ tiff: Buffer.from(`II*\0fake-tiff-${pageCount}`), pageCount, quality: 'Standard' as const, width: 1728, xDpi: 204, yDpi: 196 });

const doc = { fileName: 'a.pdf', fileUrl: null, data: Buffer.from('%PDF-1.4 test'), format: 'pdf', pageCount: 2 };

export function jobStoreContract(name: string, open: () => Promise<{ store: JobStore; reopen: () => Promise<JobStore> }>): void {
  describe(`JobStore contract: ${name}`, () => {
    let store: JobStore;
    let reopen: () => Promise<JobStore>;
    let accountId: number;

    beforeEach(async () => {
      ({ store, reopen } = await open());
      const created = await store.createAccount({ name: 'acme', balanceCents: 100, faxNumber: '+14155550100', webhookUrl: 'http://127.0.0.1:1/hook', nowMs: T0 });
      accountId = created.account.id;
    });
    afterEach(async () => {
      await store.close();
    });

    const create = (over: Partial<NewJob> = {}, idem: { key: string; hash: string } | null = null) =>
      store.createJobs({
        accountId, keyMode: 'live', jobs: [newJob(over)], documents: [doc], pages: [['1-2']],
        idempotency: idem ? { key: idem.key, requestHash: idem.hash, expiresAtMs: T0 + 86_400_000 } : null, nowMs: T0,
      });

    it('migrations are idempotent and accounts get live and test keys that authenticate', async () => {
      await store.migrate();
      const c = await store.createAccount({ name: 'b', balanceCents: 0, faxNumber: '+14155550199', nowMs: T0 });
      expect(c.liveKey).toMatch(/^fs_live_/);
      expect(c.testKey).toMatch(/^fs_test_/);
      expect(await store.findApiKey(c.liveKey)).toMatchObject({ accountId: c.account.id, mode: 'live' });
      expect(await store.findApiKey(c.testKey)).toMatchObject({ accountId: c.account.id, mode: 'test' });
      expect(await store.findApiKey(c.liveKey + 'x')).toBeNull();
    });

    it('dashboard passwords: set, look up by name, clear; key summaries show prefixes only', async () => {
      expect(await store.passwordHash(accountId)).toBeNull();
      expect(await store.signInCandidates('acme')).toEqual([]);
      expect(await store.setPasswordHash(accountId, 'scrypt$hash')).toBe(true);
      expect(await store.setPasswordHash(accountId + 999, 'x')).toBe(false);
      expect(await store.passwordHash(accountId)).toBe('scrypt$hash');
      expect(await store.signInCandidates('acme')).toEqual([{ accountId, passwordHash: 'scrypt$hash' }]);
      expect(await store.signInCandidates('other')).toEqual([]);
      expect(await store.setPasswordHash(accountId, null)).toBe(true);
      expect(await store.signInCandidates('acme')).toEqual([]);
      const c = await store.createAccount({ name: 'k', balanceCents: 0, faxNumber: '+14155550199', nowMs: T0 });
      const fresh = await store.rotateApiKey(c.account.id, 'live', T0 + 5);
      const keys = await store.apiKeys(c.account.id);
      expect(keys.map((k) => k.mode)).toEqual(['live', 'test']);
      expect(keys[0]).toEqual({ mode: 'live', prefix: fresh.slice(0, 12), createdAtMs: T0 + 5 });
      expect(keys[1]!.prefix).toBe(c.testKey.slice(0, 12));
    });

    it('rotating a key revokes the old one', async () => {
      const c = await store.createAccount({ name: 'b', balanceCents: 0, faxNumber: '+14155550199', nowMs: T0 });
      const fresh = await store.rotateApiKey(c.account.id, 'test', T0);
      expect(await store.findApiKey(c.testKey)).toBeNull();
      expect(await store.findApiKey(fresh)).toMatchObject({ mode: 'test' });
      expect(await store.findApiKey(c.liveKey)).not.toBeNull();
    });

    it('creating jobs reserves the balance and records it in the ledger', async () => {
      const r = await create();
      expect(r.kind).toBe('created');
      expect((await store.getAccount(accountId))!.balanceCents).toBe(86);
      const ledger = await store.ledger(accountId);
      expect(ledger.map((l) => [l.kind, l.amountCents])).toEqual([['topup', 100], ['reserve', -14]]);
      const id = (r as { jobIds: number[] }).jobIds[0]!;
      const job = (await store.getJob(accountId, id))!;
      expect(job).toMatchObject({ status: 'sending', stage: 'queued', reservedCents: 14, totalPages: 2, direction: 'sent' });
      expect(await store.jobDocuments(id)).toMatchObject([{ fileName: 'a.pdf', pages: ['1-2'], format: 'pdf', byteLength: doc.data.length }]);
    });

    it('refuses a reservation larger than the balance and writes nothing', async () => {
      const r = await create({ reserveCents: 101 });
      expect(r).toEqual({ kind: 'insufficient_balance', neededCents: 101, balanceCents: 100 });
      expect(await store.listJobs(accountId, { limit: 10 })).toEqual([]);
      expect((await store.getAccount(accountId))!.balanceCents).toBe(100);
    });

    it('replays an idempotency key and refuses it with another body', async () => {
      const a = await create({}, { key: 'k1', hash: 'h1' });
      const b = await create({}, { key: 'k1', hash: 'h1' });
      expect(b).toEqual({ kind: 'replayed', jobIds: (a as { jobIds: number[] }).jobIds });
      expect(await create({}, { key: 'k1', hash: 'h2' })).toEqual({ kind: 'idempotency_conflict' });
      expect((await store.getAccount(accountId))!.balanceCents).toBe(86);
    });

    it('another account never sees a job', async () => {
      const r = (await create()) as { jobIds: number[] };
      const other = await store.createAccount({ name: 'x', balanceCents: 0, faxNumber: '+14155550198', nowMs: T0 });
      expect(await store.getJob(other.account.id, r.jobIds[0]!)).toBeNull();
      expect(await store.listJobs(other.account.id, { limit: 10 })).toEqual([]);
      expect((await store.cancelJob({ accountId: other.account.id, jobId: r.jobIds[0]!, nowMs: T0, message: 'x', event: ev() })).kind).toBe('not_found');
    });

    it('leases due jobs once, completes them once, settles the ledger and queues the event', async () => {
      const r = (await create()) as { jobIds: number[] };
      const id = r.jobIds[0]!;
      const leased = await store.leaseDueJobs({ owner: 'A', nowMs: T0, leaseMs: 30_000, limit: 10 });
      expect(leased.map((j) => [j.jobId, j.stage, j.leaseOwner])).toEqual([[id, 'preparing', 'A']]);
      expect(await store.leaseDueJobs({ owner: 'B', nowMs: T0 + 1000, leaseMs: 30_000, limit: 10 })).toEqual([]);
      expect(await store.updateProgress(id, 'B', { stage: 'dialing', nowMs: T0 })).toBe(false);
      expect(await store.updateProgress(id, 'A', { stage: 'transmitting', transferredPages: 1, nowMs: T0 })).toBe(true);
      expect(await store.savePreparedFax(id, 'A', pagesOf(2), T0)).toBe(true);
      // One call opens the attempt and hands back the pages and the attempts before it.
      await expect(store.startAttempt(id, 'B', T0)).rejects.toThrow();
      expect(await store.startAttempt(id, 'A', T0)).toMatchObject({ attempt: 1, fax: { ...pagesOf(2), id: expect.any(Number) }, earlier: [] });
      expect(await store.finishAttempt(id, 1, { code: -3101, message: 'busy', pagesTransferred: 0, nowMs: T0 + 1000 })).toMatchObject([
        { attempt: 1, code: -3101, message: 'busy', endedAtMs: T0 + 1000 },
      ]);
      expect(await store.startAttempt(id, 'A', T0 + 2000)).toMatchObject({ attempt: 2, earlier: [{ attempt: 1, code: -3101 }] });
      // The attempt that ended the job is closed in the transaction that completes it.
      const done = await store.completeJob({
        jobId: id, owner: 'A', outcome: { status: 'failed', code: -3107, message: 'page 2 failed', transferredPages: 1 }, nowMs: T0 + 5000, event: ev(),
        attempt: { attempt: 2, code: -3107, message: 'page 2 failed', pagesTransferred: 1, detail: { ecm: true } },
      });
      expect(done).toMatchObject({ status: 'failed', stage: null, code: -3107, transferredPages: 1, chargedCents: 7, reservedCents: 0, callEndMs: T0 + 5000 });
      expect(await store.completeJob({ jobId: id, owner: 'A', outcome: { status: 'delivered', code: 0, message: '', transferredPages: 2 }, nowMs: T0, event: ev() })).toBeNull();
      expect((await store.getAccount(accountId))!.balanceCents).toBe(93);
      const ledger = await store.ledger(accountId);
      expect(ledger.reduce((s, l) => s + l.amountCents, 0)).toBe(93);
      const deliveries = await store.outbox.listDeliveries(accountId, 10);
      expect(deliveries).toHaveLength(1);
      expect(deliveries[0]).toMatchObject({ jobId: id, status: 'pending', url: 'http://127.0.0.1:1/hook', attempts: 0 });
      expect(await store.attempts(id)).toMatchObject([
        { attempt: 1, code: -3101, pagesTransferred: 0 },
        { attempt: 2, startedAtMs: T0 + 2000, endedAtMs: T0 + 5000, code: -3107, pagesTransferred: 1, detail: { ecm: true } },
      ]);
      expect(await store.getJob(accountId, id)).toMatchObject({ attempts: 2 });
    });

    it('starts no attempt for a job without prepared pages', async () => {
      const id = ((await create()) as { jobIds: number[] }).jobIds[0]!;
      await store.leaseDueJobs({ owner: 'A', nowMs: T0, leaseMs: 30_000, limit: 10 });
      expect(await store.startAttempt(id, 'A', T0)).toBeNull();
      expect(await store.attempts(id)).toEqual([]);
      expect(await store.getJob(accountId, id)).toMatchObject({ attempts: 0 });
    });

    it('a job whose lease expired is taken over and its open attempt closed', async () => {
      const id = ((await create()) as { jobIds: number[] }).jobIds[0]!;
      await store.leaseDueJobs({ owner: 'A', nowMs: T0, leaseMs: 30_000, limit: 10 });
      await store.savePreparedFax(id, 'A', pagesOf(2), T0);
      await store.startAttempt(id, 'A', T0);
      expect(await store.nextDueAtMs()).toBe(T0 + 30_000);
      const again = await store.leaseDueJobs({ owner: 'B', nowMs: T0 + 30_000, leaseMs: 30_000, limit: 10 });
      expect(again.map((j) => j.leaseOwner)).toEqual(['B']);
      expect((await store.attempts(id))[0]).toMatchObject({ endedAtMs: T0 + 30_000, code: -3199 });
    });

    it('releaseLeases makes started jobs due at once (restart of the embedded service)', async () => {
      const id = ((await create()) as { jobIds: number[] }).jobIds[0]!;
      await store.leaseDueJobs({ owner: 'A', nowMs: T0, leaseMs: 30_000, limit: 10 });
      expect(await store.releaseLeases(null, T0 + 1)).toBe(1);
      expect((await store.leaseDueJobs({ owner: 'B', nowMs: T0 + 1, leaseMs: 30_000, limit: 10 })).map((j) => j.jobId)).toEqual([id]);
    });

    it('scheduled jobs wait for sendAt; cancel works until dialing, then refuses', async () => {
      const sched = ((await create({ sendAtMs: T0 + 3_600_000 })) as { jobIds: number[] }).jobIds[0]!;
      expect((await store.getJob(accountId, sched))!.stage).toBe('scheduled');
      expect(await store.leaseDueJobs({ owner: 'A', nowMs: T0, leaseMs: 30_000, limit: 10 })).toEqual([]);
      expect(await store.nextDueAtMs()).toBe(T0 + 3_600_000);
      const c = await store.cancelJob({ accountId, jobId: sched, nowMs: T0 + 10, message: 'canceled', event: ev() });
      expect(c).toMatchObject({ kind: 'canceled', job: { status: 'canceled', reservedCents: 0, chargedCents: 0 } });
      expect((await store.getAccount(accountId))!.balanceCents).toBe(100);
      expect((await store.cancelJob({ accountId, jobId: sched, nowMs: T0, message: 'x', event: ev() })).kind).toBe('not_cancelable');
      const now = ((await create()) as { jobIds: number[] }).jobIds[0]!;
      await store.leaseDueJobs({ owner: 'A', nowMs: T0, leaseMs: 30_000, limit: 10 });
      expect((await store.cancelJob({ accountId, jobId: now, nowMs: T0, message: 'x', event: ev() })).kind).toBe('not_cancelable');
    });

    it('requeue puts a job back for a later attempt', async () => {
      const id = ((await create()) as { jobIds: number[] }).jobIds[0]!;
      await store.leaseDueJobs({ owner: 'A', nowMs: T0, leaseMs: 30_000, limit: 10 });
      expect(await store.requeueJob(id, 'A', T0 + 300_000, T0)).toBe(true);
      expect(await store.getJob(accountId, id)).toMatchObject({ stage: 'queued', leaseOwner: null, nextAttemptAtMs: T0 + 300_000 });
      expect(await store.leaseDueJobs({ owner: 'A', nowMs: T0 + 299_999, leaseMs: 30_000, limit: 10 })).toEqual([]);
      expect(await store.leaseDueJobs({ owner: 'A', nowMs: T0 + 300_000, leaseMs: 30_000, limit: 10 })).toHaveLength(1);
    });

    it('leases and reports due times only for the lines asked for (a daemon serves only its own lines)', async () => {
      const v = ((await create()) as { jobIds: number[] }).jobIds[0]!;
      const g = ((await create({ line: 'gateways', reserveCents: 0 })) as { jobIds: number[] }).jobIds[0]!;
      expect(await store.leaseDueJobs({ owner: 'A', nowMs: T0, leaseMs: 30_000, limit: 10, lines: [] })).toEqual([]);
      expect(await store.nextDueAtMs({ lines: [] })).toBeNull();
      expect(await store.nextDueAtMs({ lines: ['other'] })).toBeNull();
      expect(await store.nextDueAtMs({ lines: ['gateways'] })).toBe(T0);
      expect((await store.leaseDueJobs({ owner: 'A', nowMs: T0, leaseMs: 30_000, limit: 10, lines: ['gateways', 'other'] })).map((j) => j.jobId)).toEqual([g]);
      // The leased job's lease expiry counts for its line only.
      expect(await store.nextDueAtMs({ lines: ['gateways'] })).toBe(T0 + 30_000);
      expect(await store.nextDueAtMs({ lines: ['virtual'] })).toBe(T0);
      expect((await store.leaseDueJobs({ owner: 'B', nowMs: T0 + 30_000, leaseMs: 30_000, limit: 10, lines: ['virtual'] })).map((j) => j.jobId)).toEqual([v]);
      expect(await store.leaseDueJobs({ owner: 'B', nowMs: T0 + 30_000, leaseMs: 30_000, limit: 10, lines: ['virtual'] })).toEqual([]);
    });

    it('leases and reports due times without the lines excluded (lines whose channels are all busy)', async () => {
      const v = ((await create()) as { jobIds: number[] }).jobIds[0]!;
      const g = ((await create({ line: 'gateways', reserveCents: 0 })) as { jobIds: number[] }).jobIds[0]!;
      expect(await store.nextDueAtMs({ excludeLines: ['virtual', 'gateways'] })).toBeNull();
      expect(await store.leaseDueJobs({ owner: 'A', nowMs: T0, leaseMs: 30_000, limit: 10, excludeLines: ['virtual', 'gateways'] })).toEqual([]);
      expect((await store.leaseDueJobs({ owner: 'A', nowMs: T0, leaseMs: 30_000, limit: 10, excludeLines: ['virtual'] })).map((j) => j.jobId)).toEqual([g]);
      expect((await store.leaseDueJobs({ owner: 'A', nowMs: T0, leaseMs: 30_000, limit: 10, excludeLines: [] })).map((j) => j.jobId)).toEqual([v]);
    });

    it('records the exact page count with its reservation, up and down, never below zero balance', async () => {
      const id = ((await create()) as { jobIds: number[] }).jobIds[0]!;
      const balance = async () => (await store.getAccount(accountId))!.balanceCents;
      expect(await store.setPageCount(id, 'A', 3, T0)).toBe('lease_lost');
      expect([await balance(), (await store.getJob(accountId, id))!.totalPages]).toEqual([86, 2]);
      await store.leaseDueJobs({ owner: 'A', nowMs: T0, leaseMs: 30_000, limit: 10 });
      expect(await store.setPageCount(id, 'B', 3, T0)).toBe('lease_lost');
      expect(await store.setPageCount(id, 'A', 7, T0 + 1)).toBe('ok');
      expect(await balance()).toBe(51);
      expect(await store.getJob(accountId, id)).toMatchObject({ totalPages: 7, reservedCents: 49, updatedAtMs: T0 + 1, message: 'Preparing documents' });
      // 15 pages need 105 cents; the account holds 100 with the reservation: the count is kept, the reservation is not.
      expect(await store.setPageCount(id, 'A', 15, T0)).toBe('insufficient_balance');
      expect(await balance()).toBe(51);
      expect(await store.getJob(accountId, id)).toMatchObject({ totalPages: 15, reservedCents: 49 });
      expect(await store.setPageCount(id, 'A', 1, T0)).toBe('ok');
      expect(await balance()).toBe(93);
      expect(await store.getJob(accountId, id)).toMatchObject({ totalPages: 1, reservedCents: 7 });
      // A test key reserves nothing, whatever the count.
      const t = (await store.createJobs({ accountId, keyMode: 'test', jobs: [newJob({ reserveCents: 0 })], documents: [doc], pages: [null], idempotency: null, nowMs: T0 })) as { jobIds: number[] };
      await store.leaseDueJobs({ owner: 'A', nowMs: T0, leaseMs: 30_000, limit: 10 });
      expect(await store.setPageCount(t.jobIds[0]!, 'A', 40, T0)).toBe('ok');
      expect(await balance()).toBe(93);
      expect(await store.getJob(accountId, t.jobIds[0]!)).toMatchObject({ totalPages: 40, reservedCents: 0 });
    });

    it('hands out the documents of a job with their content in one read (null until a fileUrl is fetched)', async () => {
      const id = ((await create()) as { jobIds: number[] }).jobIds[0]!;
      const docs = await store.jobDocuments(id);
      expect(await store.jobDocumentContents(id)).toEqual(docs.map((d) => ({ ...d, data: doc.data })));
      const url = { fileName: 'b.pdf', fileUrl: 'https://example.com/b.pdf', data: null, format: null, pageCount: null };
      const r = (await store.createJobs({ accountId, keyMode: 'test', jobs: [newJob({ reserveCents: 0 })], documents: [doc, url], pages: [null, ['2']], idempotency: null, nowMs: T0 })) as { jobIds: number[] };
      const both = await store.jobDocumentContents(r.jobIds[0]!);
      expect(both.map((d) => [d.index, d.fileName, d.pages, d.byteLength, d.data])).toEqual([[0, 'a.pdf', null, doc.data.length, doc.data], [1, 'b.pdf', ['2'], null, null]]);
      await store.setDocumentContent(both[1]!.documentId, Buffer.from('%PDF-fetched'), 'pdf', 1);
      expect((await store.jobDocumentContents(r.jobIds[0]!))[1]).toMatchObject({ format: 'pdf', pageCount: 1, data: Buffer.from('%PDF-fetched') });
    });

    it('resend shares the documents of the original', async () => {
      const id = ((await create()) as { jobIds: number[] }).jobIds[0]!;
      const r = await store.createResend({ accountId, keyMode: 'test', originalJobId: id, job: newJob({ reserveCents: 0, originalJobId: id, toNumber: '+14155550124' }), nowMs: T0 });
      const newId = (r as { jobIds: number[] }).jobIds[0]!;
      expect(newId).not.toBe(id);
      const [a, b] = [await store.jobDocuments(id), await store.jobDocuments(newId)];
      expect(b.map((d) => d.documentId)).toEqual(a.map((d) => d.documentId));
      expect(await store.getJob(accountId, newId)).toMatchObject({ originalJobId: id, toNumber: '+14155550124', keyMode: 'test' });
    });

    it('prepared pages are saved under the lease, shared by a resend and private to the account', async () => {
      const id = ((await create()) as { jobIds: number[] }).jobIds[0]!;
      const fax = { tiff: Buffer.from('II*\0fake-tiff'), pageCount: 3, quality: 'Standard' as const, width: 1728, xDpi: 204, yDpi: 196 };
      expect(await store.savePreparedFax(id, 'A', fax, T0)).toBe(false);
      await store.leaseDueJobs({ owner: 'A', nowMs: T0, leaseMs: 30_000, limit: 10 });
      expect(await store.savePreparedFax(id, 'A', fax, T0)).toBe(true);
      expect(await store.getJob(accountId, id)).toMatchObject({ totalPages: 3, preparedId: expect.any(Number) });
      expect(await store.preparedFax(accountId, id)).toMatchObject({ ...fax, id: expect.any(Number) });
      await store.completeJob({ jobId: id, owner: 'A', outcome: { status: 'delivered', code: 0, message: '', transferredPages: 3 }, nowMs: T0, event: ev() });
      const r = await store.createResend({ accountId, keyMode: 'test', originalJobId: id, job: newJob({ reserveCents: 0, originalJobId: id }), nowMs: T0 });
      const newId = (r as { jobIds: number[] }).jobIds[0]!;
      expect((await store.getJob(accountId, newId))!.preparedId).toBe((await store.getJob(accountId, id))!.preparedId);
      expect((await store.preparedFax(accountId, newId))!.tiff).toEqual(fax.tiff);
      const other = await store.createAccount({ name: 'x', balanceCents: 0, faxNumber: '+14155550198', nowMs: T0 });
      expect(await store.preparedFax(other.account.id, id)).toBeNull();
    });

    it('stores a received fax with its pages and its fax.received event, and routes by fax number', async () => {
      expect((await store.findAccountByFaxNumber('+14155550100'))?.id).toBe(accountId);
      expect(await store.findAccountByFaxNumber('+14155550999')).toBeNull();
      const fax = { tiff: Buffer.from('II*\0received'), pageCount: 2, quality: 'Standard' as const, width: 1728, xDpi: 204, yDpi: 196 };
      const job = await store.createReceivedJob({
        accountId, fromNumber: '+14155550123', toNumber: '+14155550100', quality: 'Standard', callStartMs: T0, nowMs: T0 + 30_000,
        outcome: { status: 'delivered', code: 0, message: 'Fax received', transferredPages: 2 }, fax, event: ev('fax.received'),
      });
      expect(job).toMatchObject({ direction: 'received', status: 'delivered', stage: null, totalPages: 2, transferredPages: 2, callEndMs: T0 + 30_000, chargedCents: 0 });
      expect((await store.preparedFax(accountId, job.jobId))!.tiff).toEqual(fax.tiff);
      expect((await store.listJobs(accountId, { limit: 10, direction: 'received' })).map((j) => j.jobId)).toEqual([job.jobId]);
      const [d] = await store.outbox.listDeliveries(accountId, 10);
      expect(d).toMatchObject({ type: 'fax.received', jobId: job.jobId, status: 'pending' });
      expect((await store.getAccount(accountId))!.balanceCents).toBe(100);
    });

    it('webhook outbox: claim, attempts, retry, failure, redelivery', async () => {
      const d = await store.outbox.insertEvent(accountId, null, { eventId: 'e1', type: 'webhook.test', body: '{"event":"webhook.test"}' }, T0);
      expect(d.status).toBe('pending');
      const claimed = await store.outbox.claimDueDeliveries({ owner: 'W', nowMs: T0, leaseMs: 60_000, limit: 10 });
      expect(claimed.map((c) => c.eventId)).toEqual(['e1']);
      // The claim carries the account's current signing secret: the sender needs no other read.
      expect(claimed[0]!.signingSecret).toBe((await store.getAccount(accountId))!.webhookSecret);
      expect(await store.outbox.claimDueDeliveries({ owner: 'X', nowMs: T0, leaseMs: 60_000, limit: 10 })).toEqual([]);
      await store.outbox.recordDeliveryAttempt({ deliveryId: d.id, owner: 'W', attempt: { atMs: T0, httpStatus: 500, latencyMs: 3, error: null }, next: { status: 'pending', nextAttemptAtMs: T0 + 300_000 } });
      expect(await store.outbox.nextDeliveryDueAtMs()).toBe(T0 + 300_000);
      expect(await store.outbox.claimDueDeliveries({ owner: 'W', nowMs: T0 + 299_999, leaseMs: 60_000, limit: 10 })).toEqual([]);
      const rotated = await store.setWebhook(accountId, { rotateSecret: true });
      expect((await store.outbox.claimDueDeliveries({ owner: 'W', nowMs: T0 + 300_000, leaseMs: 60_000, limit: 10 }))[0]!.signingSecret).toBe(rotated.webhookSecret);
      await store.outbox.recordDeliveryAttempt({ deliveryId: d.id, owner: 'W', attempt: { atMs: T0 + 300_000, httpStatus: null, latencyMs: 10_000, error: 'timeout' }, next: { status: 'failed' } });
      expect(await store.outbox.getDeliveryByEventId(accountId, 'e1')).toMatchObject({ status: 'failed', attempts: 2, nextAttemptAtMs: null });
      expect((await store.outbox.deliveryAttempts(d.id)).map((a) => [a.attempt, a.httpStatus, a.error])).toEqual([[1, 500, null], [2, null, 'timeout']]);
      const again = await store.outbox.redeliver(accountId, 'e1', T0 + 400_000);
      expect(again).toMatchObject({ status: 'pending', attempts: 0, eventId: 'e1', body: '{"event":"webhook.test"}' });
      const other = await store.createAccount({ name: 'x', balanceCents: 0, faxNumber: '+14155550198', nowMs: T0 });
      expect(await store.outbox.redeliver(other.account.id, 'e1', T0)).toBeNull();
    });

    it('an event with no webhook URL is kept as skipped', async () => {
      await store.setWebhook(accountId, { url: null });
      const d = await store.outbox.insertEvent(accountId, null, { eventId: 'e2', type: 'webhook.test', body: '{}' }, T0);
      expect(d.status).toBe('skipped');
      expect(await store.outbox.claimDueDeliveries({ owner: 'W', nowMs: T0 + 1e9, leaseMs: 1, limit: 10 })).toEqual([]);
    });

    it('rotating the webhook secret changes it', async () => {
      const before = (await store.getAccount(accountId))!.webhookSecret;
      const after = await store.setWebhook(accountId, { rotateSecret: true });
      expect(after.webhookSecret).not.toBe(before);
      expect(after.webhookSecret).toMatch(/^whsec_/);
    });

    it('everything survives reopening the store', async () => {
      const id = ((await create()) as { jobIds: number[] }).jobIds[0]!;
      await store.leaseDueJobs({ owner: 'A', nowMs: T0, leaseMs: 30_000, limit: 10 });
      store = await reopen();
      expect(await store.getJob(accountId, id)).toMatchObject({ stage: 'preparing', leaseOwner: 'A' });
      expect((await store.getAccount(accountId))!.balanceCents).toBe(86);
      expect(await store.documentBytes((await store.jobDocuments(id))[0]!.documentId)).toEqual(doc.data);
    });

    it('lists jobs newest first with filters and keyset paging', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) ids.push(((await create({ reserveCents: 0, toNumber: `+1415555012${i}` })) as { jobIds: number[] }).jobIds[0]!);
      const page1 = await store.listJobs(accountId, { limit: 2 });
      expect(page1.map((j) => j.jobId)).toEqual([ids[4], ids[3]]);
      const page2 = await store.listJobs(accountId, { limit: 2, beforeJobId: ids[3] });
      expect(page2.map((j) => j.jobId)).toEqual([ids[2], ids[1]]);
      expect((await store.listJobs(accountId, { limit: 10, number: '5550122' })).map((j) => j.jobId)).toEqual([ids[2]]);
      expect(await store.listJobs(accountId, { limit: 10, status: 'delivered' })).toEqual([]);
    });

    it('searches jobs by subject (case-insensitive), number digits and job id (the dashboard search box)', async () => {
      const a = ((await create({ reserveCents: 0, toNumber: '+442071838750', cover: { subject: 'Signed CONTRACT at 5%' } })) as { jobIds: number[] }).jobIds[0]!;
      const b = ((await create({ reserveCents: 0, toNumber: '+14155550199', cover: { subject: 'Invoice_X' } })) as { jobIds: number[] }).jobIds[0]!;
      const c = ((await create({ reserveCents: 0, toNumber: '+14155550177' })) as { jobIds: number[] }).jobIds[0]!;
      const ids = async (query: string) => (await store.listJobs(accountId, { limit: 10, query })).map((j) => j.jobId);
      expect(await ids('contract')).toEqual([a]);
      expect(await ids('  signed contract ')).toEqual([a]);
      expect(await ids('t 5%')).toEqual([a]); // no LIKE wildcards
      expect(await ids('invoice_')).toEqual([b]);
      expect(await ids('+1 415-555-0199')).toEqual([b]);
      expect(await ids('4155550100')).toEqual([c, b, a]); // the from number
      expect(await ids('(207) 183-8750')).toEqual([a]);
      expect(await ids(String(c))).toEqual([c]);
      expect(await ids(`#${b}`)).toEqual([b]);
      expect(await ids('nothing like it')).toEqual([]);
      expect(await ids('')).toEqual([c, b, a]);
      expect(await store.listJobs(accountId, { limit: 10, query: 'contract', status: 'delivered' })).toEqual([]);
    });
  });
}
