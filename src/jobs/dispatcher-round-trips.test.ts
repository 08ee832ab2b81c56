// How often the dispatcher goes to the store for one fax: each store call is a round trip (a
// transaction on PostgreSQL), so the path lease → prepare → attempt → complete says in one call
// what one call can say (docs/architecture.md).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { countingStore } from '../../test/kit/counting-store.js';
import { ManualClock } from '../shared/clock.js';
import { silentLogger } from '../shared/log.js';
import type { CallProgress, CallRequest, CallResult, FaxLine } from '../engine/index.js';
import { openSqliteStore, type SqliteJobStore } from '../store/index.js';
import { DEFAULT_JOBS_CONFIG } from './config.js';
import { Dispatcher } from './dispatcher.js';
import { FaxService } from './service.js';

/** A line whose one call dials, transmits and has its one page confirmed. */
class OnePageLine implements FaxLine {
  readonly name = 'one-page';
  async call(req: CallRequest, progress: CallProgress): Promise<CallResult> {
    progress.stage('dialing');
    progress.stage('transmitting');
    progress.pageConfirmed(req.firstPage);
    return { code: 0, message: 'Fax delivered', lastConfirmedPage: req.firstPage, aborted: false, detail: {} };
  }
}

let store: SqliteJobStore;
let dispatcher: Dispatcher | undefined;
afterEach(async () => {
  await dispatcher?.stop();
  await store.close();
});

it('delivers a one-page fax in eight store calls after the lease: prepare 2, page count 1, attempt 1, progress 3, completion 1', async () => {
  const clock = new ManualClock();
  store = await openSqliteStore(join(mkdtempSync(join(tmpdir(), 'faxstack-trips-')), 'fax.db'));
  const accountId = (await store.createAccount({ name: 'a', balanceCents: 1000, faxNumber: '+14155550100', nowMs: clock.now() })).account.id;
  const counted = countingStore(store);
  const config = { ...DEFAULT_JOBS_CONFIG, liveLine: 'one-page' };
  dispatcher = new Dispatcher({ store: counted.store, clock, owner: 'test', lines: { 'one-page': new OnePageLine() }, config, fetch: { timeoutMs: 5000, allowHosts: [] }, logger: silentLogger });
  const service = new FaxService({ store, clock, config, onJob: () => dispatcher!.notify() });
  dispatcher.start();
  const [id] = (await service.send({ accountId, mode: 'live' }, {
    numbers: ['+14155550123'], callerId: null, templateId: null, smartDocumentId: null, cover: null, sendAtMs: null,
    quality: 'Standard', files: [{ fileName: 'a.txt', fileUrl: null, data: Buffer.from('one page\n'), pages: null }],
  }, null)).jobIds;
  for (let t = 0; (await store.getJob(accountId, id!))!.status === 'sending'; t += 100) {
    if (t > 600_000) throw new Error('the fax was not delivered');
    await clock.advance(100);
  }
  expect(await store.getJob(accountId, id!)).toMatchObject({ status: 'delivered', transferredPages: 1, attempts: 1, chargedCents: DEFAULT_JOBS_CONFIG.pricePerPageCents });
  expect(await store.attempts(id!)).toMatchObject([{ attempt: 1, code: 0, pagesTransferred: 1, endedAtMs: expect.any(Number) }]);
  // The looks at the store for due work (leaseDueJobs, nextDueAtMs) depend on the clock's steps, not on the fax.
  const leased = counted.calls.indexOf('leaseDueJobs');
  const forTheFax = counted.calls.filter((c, i) => i > leased && c !== 'leaseDueJobs' && c !== 'nextDueAtMs');
  expect(forTheFax).toEqual([
    'jobDocumentContents', 'savePreparedFax', // preparing: the documents with their content, the pages
    'setPageCount', // the exact count and its reservation
    'startAttempt', // the attempt, its pages and the attempts before it
    'updateProgress', 'updateProgress', 'updateProgress', // dialing, transmitting, page 1 confirmed
    'completeJob', // the attempt closed, the job settled, its webhook event queued
  ]);
});
