// docs/api.md: the fax object and its states, the envelope, fax-send; decision 2
// (faxStatus + stage + sendAt), 6 (status 0/1), 9 (recipients). Over real HTTP, time on a ManualClock.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FAX_OBJECT_FIELDS, NUM, PRICE_CENTS, START_MS, inline, keysOf, runUntil, startDocServer, startHarness, textDoc,
  type DocServer, type FaxObject, type Harness,
} from './harness.js';
import { DEFAULT_VIRTUAL_TIMING } from '../../src/engine/index.js';

let h: Harness;
let docs: DocServer;
beforeEach(async () => {
  h = await startHarness({ fetchAllowHosts: ['127.0.0.1'] });
  docs = await startDocServer();
});
afterEach(async () => {
  await h.close();
  await docs.close();
});

const sec = (ms: number) => Math.floor(ms / 1000);

function expectFaxObjectTypes(f: FaxObject): void {
  expect(keysOf(f)).toEqual(FAX_OBJECT_FIELDS);
  for (const k of ['jobId', 'faxCallLength', 'faxCallStart', 'faxCallEnd', 'faxTotalPages', 'faxTransferredPages', 'code'] as const) {
    expect(Number.isInteger(f[k]), k).toBe(true);
  }
  for (const k of ['fromNumber', 'toNumber', 'faxStatus', 'message', 'direction'] as const) expect(typeof f[k], k).toBe('string');
  expect(f.fromNumber).toMatch(/^\+\d{8,15}$/);
  expect(f.toNumber).toMatch(/^\+\d{8,15}$/);
  expect(['sending', 'delivered', 'canceled', 'failed']).toContain(f.faxStatus);
  expect(['sent', 'received']).toContain(f.direction);
  expect(f.stage === null || ['scheduled', 'queued', 'preparing', 'dialing', 'transmitting'].includes(f.stage)).toBe(true);
  expect(f.sendAt === null || typeof f.sendAt === 'string').toBe(true);
}

describe('fax-send', () => {
  it('answers the envelope with status 1 and an integer jobId; the job reads status 0 while sending and 1 once delivered', async () => {
    const a = await h.account();
    const r = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(2)] });
    expect(r.http).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(keysOf(r.body)).toEqual(['data', 'message', 'status']);
    expect(r.body.status).toBe(1);
    expect(typeof r.body.message).toBe('string');
    expect(keysOf(r.body.data)).toEqual(['jobId', 'jobIds']);
    const jobId = r.body.data.jobId;
    expect(Number.isInteger(jobId) && jobId > 0).toBe(true);
    expect(r.body.data.jobIds).toEqual([jobId]);

    const s = await h.status(a, jobId);
    expect(s.http).toBe(200);
    expect(keysOf(s.body)).toEqual(['data', 'message', 'status']);
    expect(s.body.status).toBe(0); // docs/api.md decision 6: "Fax processing started"
    const f = s.body.data;
    expectFaxObjectTypes(f);
    expect(f).toMatchObject({
      jobId, fromNumber: '+14155550100', toNumber: NUM.ok, faxStatus: 'sending', stage: 'queued', direction: 'sent',
      faxTotalPages: 2, faxTransferredPages: 0, code: 0, sendAt: null, faxCallStart: sec(START_MS), faxCallEnd: 0, faxCallLength: 0,
    });

    const done = await h.finish(a, jobId);
    const s2 = await h.status(a, jobId);
    expect(s2.body.status).toBe(1);
    expectFaxObjectTypes(done);
    expect(done).toMatchObject({ jobId, faxStatus: 'delivered', stage: null, code: 0, faxTotalPages: 2, faxTransferredPages: 2, direction: 'sent' });
    expect(done.message.length).toBeGreaterThan(0);
    expect(done.faxCallStart).toBe(sec(START_MS));
    // The virtual line's call: dial, then a real T.30 call whose receiver prints each of the two
    // Standard pages for pageMs; the T.30 exchange itself adds seconds, not minutes.
    const t = DEFAULT_VIRTUAL_TIMING;
    const minEndMs = START_MS + t.dialMs + 2 * t.pageMs.Standard;
    expect(done.faxCallEnd).toBeGreaterThanOrEqual(sec(minEndMs));
    expect(done.faxCallEnd).toBeLessThan(sec(minEndMs + 60_000));
    expect(done.faxCallLength).toBe(done.faxCallEnd - done.faxCallStart);
  });

  it('moves through the stages queued → preparing → dialing → transmitting → finished (stage null)', async () => {
    docs.route('/slow.txt', { body: textDoc(2), hold: true });
    const a = await h.account();
    const r = await h.send(a, { faxNumber: NUM.ok, faxData: [{ fileName: 'slow.txt', fileUrl: docs.url('/slow.txt') }] });
    const jobId = r.body.data.jobId;
    const seen: (string | null)[] = [];
    const look = async () => {
      const s = await h.status(a, jobId);
      expect(s.http).toBe(200);
      expect(s.body.status).toBe(s.body.data.faxStatus === 'sending' ? 0 : 1);
      if (seen[seen.length - 1] !== s.body.data.stage || seen.length === 0) seen.push(s.body.data.stage);
      return s.body.data;
    };
    expect((await look()).stage).toBe('queued');
    await h.clock.advance(0); // the dispatcher's wake-up: the job is leased and its document fetched
    await docs.requested('/slow.txt');
    expect((await look()).stage).toBe('preparing'); // the document server holds the answer
    docs.release('/slow.txt');
    await runUntil(h.clock, async () => (await look()).faxStatus !== 'sending', { stepMs: 100, maxMs: 30_000, what: 'delivery' });
    expect(seen).toEqual(['queued', 'preparing', 'dialing', 'transmitting', null]);
    const f = (await h.status(a, jobId)).body.data;
    expect(f).toMatchObject({ faxStatus: 'delivered', faxTotalPages: 2, faxTransferredPages: 2 });
  });

  it('send_at schedules the job: stage scheduled with sendAt, nothing happens before the time, dialing starts at it', async () => {
    const a = await h.account();
    const sendAtMs = START_MS + 3600_000;
    // Given with an offset; read back in UTC.
    const r = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)], send_at: '2026-01-05T12:00:00+02:00' });
    expect(r.http).toBe(200);
    expect(r.body.status).toBe(1);
    expect(r.body.message).toMatch(/scheduled/i);
    const jobId = r.body.data.jobId;
    const s = await h.status(a, jobId);
    expect(s.body.status).toBe(0);
    expect(s.body.data).toMatchObject({ faxStatus: 'sending', stage: 'scheduled', sendAt: new Date(sendAtMs).toISOString(), faxCallStart: sec(START_MS) });

    await h.clock.set(sendAtMs - 1);
    expect((await h.status(a, jobId)).body.data.stage).toBe('scheduled');
    expect(await h.svc.store.attempts(jobId)).toEqual([]);

    await h.clock.advance(1);
    const job = await h.svc.store.getJobById(jobId);
    expect(['preparing', 'dialing']).toContain(job?.stage);
    const attempts = await h.svc.store.attempts(jobId);
    expect(attempts.map((x) => x.startedAtMs)).toEqual([sendAtMs]);

    const done = await h.finish(a, jobId);
    expect(done).toMatchObject({ faxStatus: 'delivered', stage: null, sendAt: new Date(sendAtMs).toISOString(), faxCallStart: sec(START_MS) });
    expect(done.faxCallEnd).toBeGreaterThanOrEqual(sec(sendAtMs));
    expect(done.faxCallLength).toBe(done.faxCallEnd - done.faxCallStart);
  });

  it.each([
    ['an array', [NUM.ok, NUM.ok2, NUM.busy]],
    ['a comma-separated string', `${NUM.ok}, ${NUM.ok2},${NUM.busy}`],
  ])('recipients as %s: one job each, data.jobIds in order, jobId the first; a live key reserves for each', async (_, faxNumber) => {
    const a = await h.account({ balanceCents: 1000 });
    const r = await h.send(a, { faxNumber, faxData: [inline(2)] }, { live: true });
    expect(r.http).toBe(200);
    const { jobId, jobIds } = r.body.data;
    expect(jobIds).toHaveLength(3);
    expect(new Set(jobIds).size).toBe(3);
    expect(jobId).toBe(jobIds[0]);
    expect((await h.svc.store.getAccount(a.id))?.balanceCents).toBe(1000 - 3 * 2 * PRICE_CENTS);
    const finished = [];
    for (const id of jobIds) finished.push(await h.finish(a, id));
    expect(finished.map((f) => f.toNumber)).toEqual([NUM.ok, NUM.ok2, NUM.busy]);
    expect(finished.map((f) => f.faxStatus)).toEqual(['delivered', 'delivered', 'failed']);
    expect((await h.svc.store.getAccount(a.id))?.balanceCents).toBe(1000 - 2 * 2 * PRICE_CENTS);
  });

  it('the same number written twice is one recipient (one job, one charge)', async () => {
    const a = await h.account();
    const r = await h.send(a, { faxNumber: ['+1 415 555 0123', NUM.ok], faxData: [inline(1)] });
    expect(r.body.data.jobIds).toHaveLength(1);
    expect((await h.status(a, r.body.data.jobId)).body.data.toNumber).toBe(NUM.ok);
  });

  it('15 recipients are accepted (the limit)', async () => {
    const a = await h.account();
    const nums = Array.from({ length: 15 }, (_, i) => `+1415555${String(1000 + i).padStart(4, '0')}`);
    const r = await h.send(a, { faxNumber: nums, faxData: [inline(1)] });
    expect(r.http).toBe(200);
    expect(r.body.data.jobIds).toHaveLength(15);
  });

  it('callerId becomes fromNumber when it is the account number or a registered caller ID (else -3000); without it the account number is used', async () => {
    const a = await h.account();
    const refused = await h.send(a, { faxNumber: NUM.ok, callerId: '+44 20 7946 0958', faxData: [inline(1)] });
    expect(refused.http).toBe(400);
    expect(refused.body).toMatchObject({ status: -2, data: { code: -3000, field: 'callerId' } });
    expect(refused.body.message).toMatch(/settings page/);
    expect((await h.send(a, { faxNumber: NUM.ok, callerId: '+1 415 555 0100', faxData: [inline(1)] })).http).toBe(200);
    await h.svc.store.users.addCallerId(a.id, '+442079460958', h.clock.now());
    const r1 = await h.send(a, { faxNumber: NUM.ok, callerId: '+44 20 7946 0958', faxData: [inline(1)] });
    const r2 = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)] });
    expect((await h.status(a, r1.body.data.jobId)).body.data.fromNumber).toBe('+442079460958');
    expect((await h.status(a, r2.body.data.jobId)).body.data.fromNumber).toBe('+14155550100');
  });

  it('cover fields (subject, from_name, to_name, message) add a cover page', async () => {
    const a = await h.account();
    const r = await h.send(a, { faxNumber: NUM.ok, subject: 'Contract', from_name: 'Ann', to_name: 'Bob', message: 'Please sign.', faxData: [inline(2)] });
    const done = await h.finish(a, r.body.data.jobId);
    expect(done).toMatchObject({ faxStatus: 'delivered', faxTotalPages: 3, faxTransferredPages: 3 });
  });

  it('pages selects from each attachment (1-based, n or from-to, in order) and the total counts them', async () => {
    const a = await h.account();
    const r = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(5, { pages: ['4', '1-2'] }), inline(3), inline(3, { pages: ['2-3'] })] });
    expect(r.http).toBe(200);
    const done = await h.finish(a, r.body.data.jobId);
    expect(done).toMatchObject({ faxStatus: 'delivered', faxTotalPages: 3 + 3 + 2, faxTransferredPages: 8 });
  });

  it('faxQuality paces the line: HD takes longer than Low; default Standard; case-insensitive', async () => {
    const a = await h.account();
    const low = await h.send(a, { faxNumber: NUM.ok, faxQuality: 'Low', faxData: [inline(3)] });
    const fLow = await h.finish(a, low.body.data.jobId, { stepMs: 100 });
    const hd = await h.send(a, { faxNumber: NUM.ok, faxQuality: 'hd', faxData: [inline(3)] });
    const fHd = await h.finish(a, hd.body.data.jobId, { stepMs: 100 });
    expect(fLow.faxStatus).toBe('delivered');
    expect(fHd.faxStatus).toBe('delivered');
    expect(fHd.faxCallLength).toBeGreaterThan(fLow.faxCallLength);
  });

  it('a test key fax finishes within seconds of simulated time (virtual line)', async () => {
    const a = await h.account();
    const r = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)] });
    const took = await runUntil(h.clock, async () => (await h.svc.store.getJobById(r.body.data.jobId))?.status === 'delivered', { stepMs: 100, maxMs: 10_000 });
    expect(took).toBeLessThan(5_000);
  });
});
