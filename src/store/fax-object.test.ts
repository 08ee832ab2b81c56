import { describe, expect, it } from 'vitest';
import {
  faxCompletedBody,
  faxObject,
  faxReceivedBody,
  jobEvent,
  newEvent,
  testEventBody,
} from './fax-object.js';
import type { JobRecord } from './types.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0, 400); // 1767268800.4 s

function job(patch: Partial<JobRecord> = {}): JobRecord {
  return {
    jobId: 42,
    accountId: 7,
    keyMode: 'live',
    direction: 'sent',
    fromNumber: '+15551230000',
    toNumber: '+15557654321',
    status: 'delivered',
    stage: null,
    code: 0,
    message: 'Success',
    callStartMs: T0,
    callEndMs: T0 + 95_000,
    totalPages: 3,
    transferredPages: 3,
    sendAtMs: null,
    deadlineMs: T0 + 86_400_000,
    quality: 'Standard',
    cover: null,
    templateId: null,
    smartDocumentId: null,
    line: 'virtual',
    attempts: 1,
    maxAttempts: 3,
    nextAttemptAtMs: T0,
    originalJobId: null,
    priceCentsPerPage: 7,
    reservedCents: 0,
    chargedCents: 21,
    detail: {},
    leaseOwner: null,
    leaseUntilMs: null,
    preparedId: null,
    createdAtMs: T0,
    updatedAtMs: T0 + 95_000,
    ...patch,
  };
}

const DATA_FIELDS = [
  'jobId',
  'fromNumber',
  'toNumber',
  'faxCallLength',
  'faxCallStart',
  'faxCallEnd',
  'faxTotalPages',
  'faxTransferredPages',
  'faxStatus',
  'message',
  'code',
];

const INTEGER_FIELDS = ['jobId', 'faxCallLength', 'faxCallStart', 'faxCallEnd', 'faxTotalPages', 'faxTransferredPages', 'code'];
const STRING_FIELDS = ['fromNumber', 'toNumber', 'faxStatus', 'message'];

function expectTypes(data: Record<string, unknown>): void {
  for (const f of INTEGER_FIELDS) expect(Number.isInteger(data[f]), f).toBe(true);
  for (const f of STRING_FIELDS) expect(typeof data[f], f).toBe('string');
}

describe('faxObject', () => {
  it('has the 2.1 fields plus direction, stage and sendAt', () => {
    const o = faxObject(job());
    expect(Object.keys(o)).toEqual([...DATA_FIELDS, 'direction', 'stage', 'sendAt']);
    expectTypes(o as unknown as Record<string, unknown>);
    expect(o).toEqual({
      jobId: 42,
      fromNumber: '+15551230000',
      toNumber: '+15557654321',
      faxCallLength: 95,
      faxCallStart: 1767268800,
      faxCallEnd: 1767268895,
      faxTotalPages: 3,
      faxTransferredPages: 3,
      faxStatus: 'delivered',
      message: 'Success',
      code: 0,
      direction: 'sent',
      stage: null,
      sendAt: null,
    });
  });

  it.each([
    // start at .4 s: 95.7 s later ends at .1 s of second +96, so the length is 96 (end − start)
    { name: 'length is faxCallEnd − faxCallStart', endMs: T0 + 95_700, length: 96 },
    { name: 'end before start (clock skew) clamps to 0', endMs: T0 - 2_000, length: 0 },
  ])('$name', ({ endMs, length }) => {
    const o = faxObject(job({ callEndMs: endMs }));
    expect(o.faxCallLength).toBe(length);
    if (length > 0) expect(o.faxCallEnd - o.faxCallStart).toBe(length);
  });

  it('an unfinished scheduled job: stage, ISO sendAt, integer zeros for the end', () => {
    const sendAtMs = Date.UTC(2026, 0, 2, 9, 30, 0);
    const o = faxObject(job({ status: 'sending', stage: 'scheduled', callEndMs: null, sendAtMs, code: 0, message: 'Scheduled' }));
    expect(o.faxStatus).toBe('sending');
    expect(o.stage).toBe('scheduled');
    expect(o.sendAt).toBe('2026-01-02T09:30:00.000Z');
    expect(o.faxCallEnd).toBe(0);
    expect(o.faxCallLength).toBe(0);
    expectTypes(o as unknown as Record<string, unknown>);
  });
});

describe('event bodies', () => {
  const now = T0 + 96_000; // 1767268896.4 s

  it('fax.completed: event, timestamp, data with exactly the 6.1 fields (no direction)', () => {
    const raw = faxCompletedBody(job({ status: 'failed', code: -3101, message: 'Line busy', transferredPages: 0 }), now);
    const body = JSON.parse(raw) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['event', 'timestamp', 'data']);
    expect(body.event).toBe('fax.completed');
    expect(body.timestamp).toBe(1767268896);
    const data = body.data as Record<string, unknown>;
    expect(Object.keys(data)).toEqual(DATA_FIELDS);
    expectTypes(data);
    expect(data).toMatchObject({ faxStatus: 'failed', code: -3101, message: 'Line busy', faxTransferredPages: 0 });
  });

  it('fax.received: same shape plus direction "received"', () => {
    const body = JSON.parse(faxReceivedBody(job({ direction: 'received' }), now)) as Record<string, unknown>;
    expect(body.event).toBe('fax.received');
    const data = body.data as Record<string, unknown>;
    expect(Object.keys(data)).toEqual([...DATA_FIELDS, 'direction']);
    expect(data.direction).toBe('received');
    expectTypes(data);
  });

  it('webhook.test', () => {
    const body = JSON.parse(testEventBody(7, now)) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['event', 'timestamp', 'data']);
    expect(body.event).toBe('webhook.test');
    expect(body.timestamp).toBe(1767268896);
    expect(body.data).toMatchObject({ accountId: 7 });
  });

  it('newEvent gives a fresh UUID per event', () => {
    const a = newEvent('webhook.test', '{}');
    const b = newEvent('webhook.test', '{}');
    expect(a.eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a.eventId).not.toBe(b.eventId);
    expect(a).toMatchObject({ type: 'webhook.test', body: '{}' });
  });

  it.each([
    { direction: 'sent' as const, type: 'fax.completed' },
    { direction: 'received' as const, type: 'fax.received' },
  ])('jobEvent picks $type for a $direction job', ({ direction, type }) => {
    const e = jobEvent(job({ direction }), now);
    expect(e.type).toBe(type);
    expect((JSON.parse(e.body) as { event: string }).event).toBe(type);
  });
});
