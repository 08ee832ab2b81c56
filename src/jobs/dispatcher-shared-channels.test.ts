// Two dispatchers ("daemons") sharing one store and one gateway: each has its own GatewayPool
// whose channels are taken in the store's coordination facet (storeChannels), so together they
// never place more calls than the gateway's channels; a job that finds them all taken goes back
// to the queue without an attempt; every job is sent once. SQLite store, ManualClock.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { silentLogger } from '../shared/log.js';
import { GatewayPool, parseGateways, type CallProgress, type CallRequest, type CallResult, type FaxLine } from '../engine/index.js';
import { openSqliteStore, type SqliteJobStore } from '../store/index.js';
import { DEFAULT_JOBS_CONFIG, withGatewayLine } from './config.js';
import { Dispatcher } from './dispatcher.js';
import { FaxService } from './service.js';
import { storeChannels } from './store-channels.js';

const LEASE_MS = 30_000;
const gateways = parseGateways({ gateways: [{ name: 'nanp', address: 'a', channels: 2, prefixes: ['+1'] }] });

/** Calls of every pool on the gateway, held until the test ends them; counts them at once over all pools. */
class Gateway {
  held: { jobId: number; owner: string; end: () => void }[] = [];
  peak = 0;
  line(owner: string): FaxLine {
    return {
      name: 'nanp',
      call: (req: CallRequest, progress: CallProgress) =>
        new Promise<CallResult>((resolve) => {
          progress.stage('dialing');
          this.held.push({
            jobId: req.jobId, owner,
            end: () => {
              for (let p = req.firstPage; p <= req.totalPages; p++) progress.pageConfirmed(p);
              resolve({ code: 0, message: 'Fax delivered', lastConfirmedPage: req.totalPages, aborted: false, detail: {} });
            },
          });
          this.peak = Math.max(this.peak, this.held.length);
        }),
    };
  }
  endOldest(): void {
    this.held.shift()!.end();
  }
}

describe('Dispatchers sharing gateway channels through the store', () => {
  let dir: string;
  let store: SqliteJobStore;
  let clock: ManualClock;
  const dispatchers: Dispatcher[] = [];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'faxstack-shared-ch-'));
    store = await openSqliteStore(join(dir, 'fax.db'));
    clock = new ManualClock();
  });
  afterEach(async () => {
    for (const d of dispatchers.splice(0)) await d.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('two daemons never exceed the channels together; every job is sent once, with one attempt', async () => {
    const gw = new Gateway();
    const config = withGatewayLine(DEFAULT_JOBS_CONFIG, gateways);
    for (const owner of ['d1', 'd2']) {
      const pool = new GatewayPool(gateways, () => gw.line(owner), { shared: storeChannels(store.coordination, { owner, clock, leaseMs: LEASE_MS }) });
      const d = new Dispatcher({
        store, clock, owner, lines: { [pool.name]: pool }, otherLines: 'leave', config, leaseMs: LEASE_MS,
        fetch: { timeoutMs: 5000, allowHosts: [] }, logger: silentLogger, slotRetryMs: 1000, pollMs: 500,
        // d1 runs one job at a time, so d2 needs the other channel (on SQLite nothing wakes d2 when d1's call ends).
        ...(owner === 'd1' ? { concurrency: 1 } : {}),
      });
      dispatchers.push(d);
    }
    const { account } = await store.createAccount({ name: 'a', balanceCents: 10_000, faxNumber: '+14155550100', nowMs: clock.now() });
    const service = new FaxService({ store, clock, config, onJob: () => dispatchers.forEach((d) => d.notify()) });
    const jobIds: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await service.send({ accountId: account.id, mode: 'live' }, {
        numbers: [`+1415555020${i}`], callerId: null, templateId: null, smartDocumentId: null, cover: null, sendAtMs: null, quality: 'Standard',
        files: [{ fileName: 'a.txt', fileUrl: null, data: Buffer.from('page 1\n'), pages: null }],
      }, null);
      jobIds.push(...r.jobIds);
    }
    for (const d of dispatchers) d.start();

    const owners = new Set<string>();
    for (let step = 0; step < 2000; step++) {
      const done = (await Promise.all(jobIds.map((id) => store.getJobById(id)))).every((j) => j!.status !== 'sending');
      if (done) break;
      // Both daemons' calls together stay within the gateway's channels, and so do the store's holds.
      expect(gw.held.length).toBeLessThanOrEqual(2);
      expect((await store.coordination.channelsBusy(clock.now())).nanp ?? 0).toBeLessThanOrEqual(2);
      if (gw.held.length === 2 || (step % 10 === 9 && gw.held.length > 0)) {
        owners.add(gw.held[0]!.owner);
        gw.endOldest();
      }
      await clock.advance(100);
    }
    expect(gw.peak).toBe(2);
    expect(owners).toEqual(new Set(['d1', 'd2']));
    for (const id of jobIds) {
      expect(await store.getJobById(id)).toMatchObject({ status: 'delivered', attempts: 1 });
      expect((await store.attempts(id)).map((a) => a.code)).toEqual([0]);
    }
    expect(await store.coordination.channelHolds(clock.now())).toEqual([]);
  });
});
