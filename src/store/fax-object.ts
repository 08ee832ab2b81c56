// The fax object (docs/api.md, with decision 2's `stage` and `sendAt`) and the
// webhook event bodies (docs/api.md: webhooks, decision 11). Pure functions of a JobRecord,
// kept in the store layer so that jobs/ (which inserts events atomically with a job's
// completion), webhooks/ and api/ can all use them.
import { randomUUID } from 'node:crypto';
import { unixSeconds } from '../shared/clock.js';
import type { Direction, FaxStatus, JobRecord, Stage } from './types.js';
import type { NewEvent } from './outbox-types.js';

const EVENT_FAX_COMPLETED = 'fax.completed';
const EVENT_FAX_RECEIVED = 'fax.received';
export const EVENT_WEBHOOK_TEST = 'webhook.test';

/** The fax object's fields (docs/api.md), in that order, without `direction`. */
interface FaxEventData {
  jobId: number;
  fromNumber: string;
  toNumber: string;
  /** Whole seconds from the API call to the end of the fax (faxCallEnd − faxCallStart). */
  faxCallLength: number;
  /** Unix seconds of the initial API call. */
  faxCallStart: number;
  /** Unix seconds at which processing ended. */
  faxCallEnd: number;
  faxTotalPages: number;
  faxTransferredPages: number;
  faxStatus: FaxStatus;
  message: string;
  code: number;
}

/** The API fax object: 2.1 plus `direction`, `stage` (null once finished) and `sendAt`. */
export interface FaxObject extends FaxEventData {
  direction: Direction;
  stage: Stage | null;
  /** Scheduled delivery time as an ISO 8601 UTC string, or null when sent immediately. */
  sendAt: string | null;
}

interface FaxEventBody<T extends string = string, D = unknown> {
  event: T;
  /** Unix seconds at which the event was emitted. */
  timestamp: number;
  data: D;
}

/**
 * The 2.1 fields of a job. While a job is unfinished it has no end yet: `faxCallEnd` and
 * `faxCallLength` read 0 (the fields stay integers, as 2.1 types them).
 */
function faxFields(job: JobRecord): FaxEventData {
  const start = unixSeconds(job.callStartMs);
  const end = job.callEndMs === null ? null : unixSeconds(job.callEndMs);
  return {
    jobId: job.jobId,
    fromNumber: job.fromNumber,
    toNumber: job.toNumber,
    faxCallLength: end === null ? 0 : Math.max(0, end - start),
    faxCallStart: start,
    faxCallEnd: end ?? 0,
    faxTotalPages: job.totalPages,
    faxTransferredPages: job.transferredPages,
    faxStatus: job.status,
    message: job.message,
    code: job.code,
  };
}

/** Maps a job to the fax object returned by the API (fax-status, fax-list). */
export function faxObject(job: JobRecord): FaxObject {
  return {
    ...faxFields(job),
    direction: job.direction,
    stage: job.stage,
    sendAt: job.sendAtMs === null ? null : new Date(job.sendAtMs).toISOString(),
  };
}

/** The fax.completed body (docs/api.md, webhooks): `data` has exactly the eleven fax-object fields, no `direction`. */
export function faxCompletedBody(job: JobRecord, nowMs: number): string {
  const body: FaxEventBody<typeof EVENT_FAX_COMPLETED, FaxEventData> = {
    event: EVENT_FAX_COMPLETED,
    timestamp: unixSeconds(nowMs),
    data: faxFields(job),
  };
  return JSON.stringify(body);
}

/** docs/api.md decision 11: an inbound fax, same shape as fax.completed plus `direction`. */
export function faxReceivedBody(job: JobRecord, nowMs: number): string {
  const body: FaxEventBody<typeof EVENT_FAX_RECEIVED, FaxEventData & { direction: 'received' }> = {
    event: EVENT_FAX_RECEIVED,
    timestamp: unixSeconds(nowMs),
    data: { ...faxFields(job), direction: 'received' },
  };
  return JSON.stringify(body);
}

/** A test delivery sent from the webhook settings (dashboard or API). */
export function testEventBody(accountId: number, nowMs: number): string {
  const body: FaxEventBody<typeof EVENT_WEBHOOK_TEST, { accountId: number; message: string }> = {
    event: EVENT_WEBHOOK_TEST,
    timestamp: unixSeconds(nowMs),
    data: { accountId, message: 'This is a test event from faxstack.' },
  };
  return JSON.stringify(body);
}

/** Wraps a body as an outbox event with a fresh id (the same id on every retry). */
export function newEvent(type: string, body: string): NewEvent {
  return { eventId: randomUUID(), type, body };
}

/**
 * The event a finished job emits: `fax.received` for inbound jobs, `fax.completed` otherwise.
 * Shaped for JobStore's `event: (job) => NewEvent` callbacks: `event: (job) => jobEvent(job, nowMs)`.
 */
export function jobEvent(job: JobRecord, nowMs: number): NewEvent {
  return job.direction === 'received'
    ? newEvent(EVENT_FAX_RECEIVED, faxReceivedBody(job, nowMs))
    : newEvent(EVENT_FAX_COMPLETED, faxCompletedBody(job, nowMs));
}
