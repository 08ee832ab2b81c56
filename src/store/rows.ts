// Row shapes of the schema (snake_case, as both engines return them) and their mapping
// to the store's records.
import type {
  Account,
  AttemptRecord,
  FaxQuality,
  JobDocument,
  JobRecord,
  LedgerEntry,
  PreparedFax,
  Stage,
} from './types.js';
import type { DeliveryAttempt, DeliveryRecord } from './outbox-types.js';

export interface AccountRow {
  id: number;
  name: string;
  balance_cents: number;
  fax_number: string;
  webhook_url: string | null;
  webhook_secret: string;
  created_at: number;
}

export interface JobRow {
  id: number;
  account_id: number;
  key_mode: string;
  direction: string;
  from_number: string;
  to_number: string;
  status: string;
  stage: string | null;
  code: number;
  message: string;
  call_start: number;
  call_end: number | null;
  total_pages: number;
  transferred_pages: number;
  send_at: number | null;
  deadline: number;
  quality: string;
  cover: string | null;
  template_id: string | null;
  smart_document_id: string | null;
  line: string;
  attempts: number;
  max_attempts: number;
  next_attempt_at: number;
  original_job_id: number | null;
  price_cents_per_page: number;
  reserved_cents: number;
  charged_cents: number;
  detail: string;
  lease_owner: string | null;
  lease_until: number | null;
  prepared_id: number | null;
  created_at: number;
  updated_at: number;
}

const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export function toAccount(r: AccountRow): Account {
  return {
    id: num(r.id),
    name: r.name,
    balanceCents: num(r.balance_cents),
    faxNumber: r.fax_number,
    webhookUrl: r.webhook_url,
    webhookSecret: r.webhook_secret,
    createdAtMs: num(r.created_at),
  };
}

export function toJob(r: JobRow): JobRecord {
  return {
    jobId: num(r.id),
    accountId: num(r.account_id),
    keyMode: r.key_mode as JobRecord['keyMode'],
    direction: r.direction as JobRecord['direction'],
    fromNumber: r.from_number,
    toNumber: r.to_number,
    status: r.status as JobRecord['status'],
    stage: r.stage as JobRecord['stage'],
    code: num(r.code),
    message: r.message,
    callStartMs: num(r.call_start),
    callEndMs: numOrNull(r.call_end),
    totalPages: num(r.total_pages),
    transferredPages: num(r.transferred_pages),
    sendAtMs: numOrNull(r.send_at),
    deadlineMs: num(r.deadline),
    quality: r.quality as JobRecord['quality'],
    cover: r.cover ? (JSON.parse(r.cover) as JobRecord['cover']) : null,
    templateId: r.template_id,
    smartDocumentId: r.smart_document_id,
    line: r.line,
    attempts: num(r.attempts),
    maxAttempts: num(r.max_attempts),
    nextAttemptAtMs: num(r.next_attempt_at),
    originalJobId: numOrNull(r.original_job_id),
    priceCentsPerPage: num(r.price_cents_per_page),
    reservedCents: num(r.reserved_cents),
    chargedCents: num(r.charged_cents),
    detail: JSON.parse(r.detail || '{}') as Record<string, unknown>,
    leaseOwner: r.lease_owner,
    leaseUntilMs: numOrNull(r.lease_until),
    preparedId: numOrNull(r.prepared_id),
    createdAtMs: num(r.created_at),
    updatedAtMs: num(r.updated_at),
  };
}

export function toJobDocument(r: Record<string, unknown>): JobDocument {
  return {
    documentId: num(r.document_id),
    index: num(r.idx),
    fileName: String(r.file_name),
    fileUrl: (r.file_url as string | null) ?? null,
    format: (r.format as string | null) ?? null,
    pageCount: numOrNull(r.page_count),
    pages: r.pages ? (JSON.parse(String(r.pages)) as string[]) : null,
    byteLength: numOrNull(r.byte_length),
  };
}

export function toAttempt(r: Record<string, unknown>): AttemptRecord {
  return {
    jobId: num(r.job_id),
    attempt: num(r.attempt),
    startedAtMs: num(r.started_at),
    endedAtMs: numOrNull(r.ended_at),
    code: numOrNull(r.code),
    message: (r.message as string | null) ?? null,
    pagesTransferred: num(r.pages_transferred),
    detail: JSON.parse(String(r.detail || '{}')) as Record<string, unknown>,
  };
}

export function toPreparedFax(r: Record<string, unknown>): PreparedFax {
  return {
    id: num(r.id), tiff: r.tiff as Buffer, pageCount: num(r.page_count), quality: r.quality as FaxQuality,
    width: num(r.width), xDpi: num(r.x_dpi), yDpi: num(r.y_dpi),
  };
}

/** The job's `message` while it is at `stage`. */
export function stageMessage(stage: Stage | null): string {
  switch (stage) {
    case 'scheduled': return 'Fax scheduled';
    case 'queued': return 'Fax queued';
    case 'preparing': return 'Preparing documents';
    case 'dialing': return 'Dialing';
    case 'transmitting': return 'Transmitting pages';
    default: return '';
  }
}

export function toDelivery(r: Record<string, unknown>): DeliveryRecord {
  return {
    id: num(r.id),
    eventId: String(r.event_id),
    accountId: num(r.account_id),
    jobId: numOrNull(r.job_id),
    type: String(r.type),
    body: String(r.body),
    url: (r.url as string | null) ?? null,
    status: r.status as DeliveryRecord['status'],
    attempts: num(r.attempts),
    nextAttemptAtMs: numOrNull(r.next_attempt_at),
    createdAtMs: num(r.created_at),
    leaseOwner: (r.lease_owner as string | null) ?? null,
    leaseUntilMs: numOrNull(r.lease_until),
  };
}

export function toDeliveryAttempt(r: Record<string, unknown>): DeliveryAttempt {
  return {
    deliveryId: num(r.delivery_id),
    attempt: num(r.attempt),
    atMs: num(r.at),
    httpStatus: numOrNull(r.http_status),
    latencyMs: num(r.latency_ms),
    error: (r.error as string | null) ?? null,
  };
}

export function toLedger(r: Record<string, unknown>): LedgerEntry {
  return {
    id: num(r.id),
    accountId: num(r.account_id),
    jobId: numOrNull(r.job_id),
    kind: r.kind as LedgerEntry['kind'],
    amountCents: num(r.amount_cents),
    atMs: num(r.at),
  };
}
