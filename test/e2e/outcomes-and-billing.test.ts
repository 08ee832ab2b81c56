// docs/api.md decision 8 (live keys cost money: reserve pages × price at
// send time, -3002 / 402 when short, settle on the pages transferred; test keys never touch the
// balance and always use the virtual line, whose test numbers choose the outcome) and 10
// (Idempotency-Key: same key within 24 h → same jobIds, no second charge).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  NUM, PRICE_CENTS, expectError, inline, startDocServer, startHarness, startReceiver, textDoc,
  type Account, type Harness, type Receiver,
} from './harness.js';

let h: Harness;
let rcv: Receiver;
beforeEach(async () => {
  h = await startHarness();
  rcv = await startReceiver(h.clock);
});
afterEach(async () => {
  await rcv.close();
  await h.close();
});

async function balance(a: Account): Promise<number> {
  return (await h.svc.store.getAccount(a.id))!.balanceCents;
}

/** The ledger is the balance's history: its entries add up to the balance. */
async function expectLedgerMatchesBalance(a: Account): Promise<void> {
  const sum = (await h.svc.store.ledger(a.id)).reduce((s, e) => s + e.amountCents, 0);
  expect(sum).toBe(await balance(a));
}

// [name, number, faxStatus, code, transferred of 2 pages, message]
const OUTCOMES: [string, string, string, number, number, RegExp][] = [
  ['delivered', NUM.ok, 'delivered', 0, 2, /delivered/i],
  ['busy (…0486)', NUM.busy, 'failed', -3101, 0, /busy/i],
  ['no answer (…0480)', NUM.noAnswer, 'failed', -3102, 0, /no answer/i],
  ['no fax machine (…0999)', NUM.noFax, 'failed', -3103, 0, /no fax machine/i],
  ['unreachable (…0404)', NUM.unreachable, 'failed', -3104, 0, /unreachable|rejected/i],
  ['fails after page 1 (…0107)', NUM.failAfter1, 'failed', -3107, 1, /page/i],
  ['dropped after page 1 (…0108)', NUM.dropAfter1, 'failed', -3108, 1, /dropped/i],
];

describe('virtual-line outcomes and what they cost', () => {
  it.each(OUTCOMES)('%s with a live key: faxStatus, code, message, transferred pages; charged pages × 7 cents, ledger = balance', async (_, number, faxStatus, code, transferred, message) => {
    const a = await h.account({ balanceCents: 1000, webhookUrl: rcv.url });
    const s = await h.send(a, { faxNumber: number, faxData: [inline(2)] }, { live: true });
    expect(s.http).toBe(200);
    const jobId = s.body.data.jobId;
    expect(await balance(a)).toBe(1000 - 2 * PRICE_CENTS); // reserved at send time
    const f = await h.finish(a, jobId);
    expect(f).toMatchObject({ faxStatus, code, faxTotalPages: 2, faxTransferredPages: transferred, stage: null });
    expect(f.message).toMatch(message);
    const charged = transferred * PRICE_CENTS;
    expect(await balance(a)).toBe(1000 - charged);
    const entries = (await h.svc.store.ledger(a.id)).filter((e) => e.jobId === jobId).map((e) => [e.kind, e.amountCents]);
    expect(entries).toEqual([['reserve', -14], ['release', 14], ...(charged ? [['charge', -charged]] : [])]);
    expect((await h.svc.store.getJobById(jobId))?.chargedCents).toBe(charged);
    await expectLedgerMatchesBalance(a);
    // The webhook carries the same outcome.
    const w = JSON.parse((await rcv.next()).raw.toString()) as { data: Record<string, unknown> };
    expect(w.data).toMatchObject({ jobId, faxStatus, code, faxTransferredPages: transferred });
  });

  it.each(OUTCOMES)('%s with a test key: same outcome, the balance and ledger are untouched', async (_, number, faxStatus, code, transferred) => {
    const a = await h.account({ balanceCents: 0 });
    const s = await h.send(a, { faxNumber: number, faxData: [inline(2)] });
    expect(s.http).toBe(200);
    const f = await h.finish(a, s.body.data.jobId);
    expect(f).toMatchObject({ faxStatus, code, faxTransferredPages: transferred });
    expect(await balance(a)).toBe(0);
    expect(await h.svc.store.ledger(a.id)).toEqual([]);
  });
});

describe('balance', () => {
  it('a live key without enough balance gets -3002 / 402 and nothing is created; a test key still sends', async () => {
    const a = await h.account({ balanceCents: 13 });
    const r = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(2)] }, { live: true });
    expectError(r, 402, -4, -3002);
    expect(r.body.message).toMatch(/\$0\.14.*\$0\.13/);
    expect(await h.svc.store.listJobs(a.id, { limit: 5 })).toEqual([]);
    expect(await balance(a)).toBe(13);
    const t = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(2)] });
    expect(t.http).toBe(200);
    expect(await balance(a)).toBe(13);
  });

  it('the reservation covers every recipient, all or nothing', async () => {
    const a = await h.account({ balanceCents: 27 });
    expectError(await h.send(a, { faxNumber: [NUM.ok, NUM.ok2], faxData: [inline(2)] }, { live: true }), 402, -4, -3002);
    expect(await h.svc.store.listJobs(a.id, { limit: 5 })).toEqual([]);
    await h.svc.store.topUp(a.id, 1, h.clock.now());
    const r = await h.send(a, { faxNumber: [NUM.ok, NUM.ok2], faxData: [inline(2)] }, { live: true });
    expect(r.http).toBe(200);
    expect(await balance(a)).toBe(0);
    for (const id of r.body.data.jobIds) await h.finish(a, id);
    expect(await balance(a)).toBe(0);
    await expectLedgerMatchesBalance(a);
  });

  it('a cover page is a page: it is reserved and charged', async () => {
    const a = await h.account({ balanceCents: 100 });
    const r = await h.send(a, { faxNumber: NUM.ok, subject: 'Cover', faxData: [inline(1)] }, { live: true });
    expect(await balance(a)).toBe(100 - 2 * PRICE_CENTS);
    await h.finish(a, r.body.data.jobId);
    expect(await balance(a)).toBe(100 - 2 * PRICE_CENTS);
  });

  it('a fileUrl document is reserved as one page, then corrected to its real page count once fetched', async () => {
    const docs = await startDocServer();
    try {
      await h.close();
      h = await startHarness({ fetchAllowHosts: ['127.0.0.1'] });
      docs.route('/three.txt', { body: textDoc(3) });
      const a = await h.account({ balanceCents: 100 });
      const r = await h.send(a, { faxNumber: NUM.ok, faxData: [{ fileName: 'three.txt', fileUrl: docs.url('/three.txt') }] }, { live: true });
      expect(await balance(a)).toBe(100 - PRICE_CENTS);
      const f = await h.finish(a, r.body.data.jobId);
      expect(f).toMatchObject({ faxStatus: 'delivered', faxTotalPages: 3, faxTransferredPages: 3 });
      expect(await balance(a)).toBe(100 - 3 * PRICE_CENTS);
      await expectLedgerMatchesBalance(a);

      // Not enough for the real count: the job fails with -3002 and costs nothing.
      const poor = await h.account({ balanceCents: 10 });
      const p = await h.send(poor, { faxNumber: NUM.ok, faxData: [{ fileName: 'three.txt', fileUrl: docs.url('/three.txt') }] }, { live: true });
      expect(p.http).toBe(200);
      expect(await h.finish(poor, p.body.data.jobId)).toMatchObject({ faxStatus: 'failed', code: -3002, faxTransferredPages: 0 });
      expect(await balance(poor)).toBe(10);
      await expectLedgerMatchesBalance(poor);
    } finally {
      await docs.close();
    }
  });

  it('test keys always use the virtual line, whatever line live keys use', async () => {
    await h.close();
    h = await startHarness({ jobs: { liveLine: 'sip-gateway-not-configured' } });
    const a = await h.account({ balanceCents: 100 });
    const live = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)] }, { live: true });
    const test = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)] });
    expect(await h.finish(a, live.body.data.jobId)).toMatchObject({ faxStatus: 'failed', code: -3199 });
    expect(await h.finish(a, test.body.data.jobId)).toMatchObject({ faxStatus: 'delivered', code: 0 });
    expect(await balance(a)).toBe(100);
  });
});

describe('Idempotency-Key', () => {
  const body = { faxNumber: [NUM.ok, NUM.ok2], faxData: [inline(2)] };

  it('the same key and body within 24 h return the same jobIds and charge once', async () => {
    const a = await h.account({ balanceCents: 1000 });
    const headers = { 'Idempotency-Key': 'order-4711' };
    const first = await h.send(a, body, { live: true, headers });
    expect(first.http).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    await h.clock.advance(23 * 3600_000);
    const again = await h.send(a, body, { live: true, headers });
    expect(again.http).toBe(200);
    expect(again.body.status).toBe(1);
    expect(again.body.data).toEqual(first.body.data);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await h.svc.store.listJobs(a.id, { limit: 10 })).length).toBe(2);
    expect((await h.svc.store.ledger(a.id)).filter((e) => e.kind === 'reserve')).toHaveLength(2); // one per job, not per request
    expect(await balance(a)).toBe(1000 - 2 * 2 * PRICE_CENTS);
    await expectLedgerMatchesBalance(a);
  });

  it('the same key with a different body is 409; another key, another account, or after 24 h is a new request', async () => {
    const a = await h.account({ balanceCents: 1000 });
    const b = await h.account({ balanceCents: 1000 });
    const headers = { 'Idempotency-Key': 'k1' };
    const first = await h.send(a, body, { live: true, headers });
    const conflict = await h.send(a, { ...body, subject: 'changed' }, { live: true, headers });
    expectError(conflict, 409, -1, -3012, 'Idempotency-Key');
    const other = await h.send(a, body, { live: true, headers: { 'Idempotency-Key': 'k2' } });
    expect(other.body.data.jobIds).not.toEqual(first.body.data.jobIds);
    const otherAccount = await h.send(b, body, { live: true, headers });
    expect(otherAccount.http).toBe(200);
    expect(otherAccount.body.data.jobIds).not.toEqual(first.body.data.jobIds);
    await h.clock.advance(24 * 3600_000 + 1);
    const expired = await h.send(a, body, { live: true, headers });
    expect(expired.http).toBe(200);
    expect(expired.body.data.jobIds).not.toEqual(first.body.data.jobIds);
  });

  it('a replay within 24 h returns the same jobIds even when its send_at has passed meanwhile', async () => {
    // A client retrying a scheduled send (e.g. after a network error) must get the original
    // answer, not a validation error about a time that was valid when the job was created.
    const a = await h.account({ balanceCents: 1000 });
    const scheduled = { faxNumber: NUM.ok, faxData: [inline(1)], send_at: new Date(h.clock.now() + 3600_000).toISOString() };
    const headers = { 'Idempotency-Key': 'scheduled-1' };
    const first = await h.send(a, scheduled, { live: true, headers });
    expect(first.http).toBe(200);
    await h.clock.advance(2 * 3600_000);
    const again = await h.send(a, scheduled, { live: true, headers });
    expect(again.http, again.raw).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a malformed Idempotency-Key is -2 / 400 naming the header', async () => {
    const a = await h.account();
    expectError(await h.send(a, body, { headers: { 'Idempotency-Key': 'x'.repeat(256) } }), 400, -2, -3000, 'Idempotency-Key');
  });
});

describe('documents that only fail while rendering', () => {
  it('a PNG whose header is sound but whose image data is garbage: accepted at send, fails its job before any call, charges nothing', async () => {
    const a = await h.account();
    // A real PNG signature and IHDR (100 × 100, 8-bit gray), then an IDAT of noise and IEND.
    const png = Buffer.from(
      '89504e470d0a1a0a0000000d4948445200000064000000640800000000' + '0c1b9c2f' + '0000000a49444154' + 'deadbeefdeadbeefdead' + '00000000' + '0000000049454e44ae426082',
      'hex',
    );
    await h.svc.store.topUp(a.id, 500, h.clock.now());
    const before = await balance(a);
    const s = await h.send(a, { faxNumber: NUM.ok, faxData: [{ fileName: 'broken.png', fileData: png.toString('base64') }] }, { live: true });
    expect(s.http).toBe(200);
    const jobId = s.body.data.jobId;
    const done = await h.finish(a, jobId);
    expect(done.faxStatus).toBe('failed');
    expect([-3006, -3109]).toContain(done.code);
    expect(done.message).toMatch(/png|image/i);
    expect(await h.svc.store.attempts(jobId)).toEqual([]); // no call was placed
    expect(await balance(a)).toBe(before);
    await expectLedgerMatchesBalance(a);
  });
});
