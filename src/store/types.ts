// The JobStore contract: everything the service persists. One interface, implemented by
// SQLite (embedded default) and PostgreSQL (shared by many nodes); callers never see SQL. All
// methods are async so that both engines fit. Times are Unix milliseconds unless a name says otherwise.

import type { TemplateStore } from './templates-types.js';
import type { UserStore } from './users-types.js';
import type { NewEvent, WebhookOutbox } from './outbox-types.js';
import type { ApiKeyInfo, ApiKeySummary, KeyMode } from './key-types.js';
export type { ApiKeyInfo, ApiKeySummary, KeyMode } from './key-types.js';
import type { CoordinationStore } from './coordination-types.js';

export type FaxStatus = 'sending' | 'delivered' | 'canceled' | 'failed';
export type Stage = 'scheduled' | 'queued' | 'preparing' | 'dialing' | 'transmitting';
export type Direction = 'sent' | 'received';
export type FaxQuality = 'Low' | 'Standard' | 'HD';

/** Stages at which a job has not started dialing (cancel is allowed). */
export const CANCELABLE_STAGES: readonly Stage[] = ['scheduled', 'queued'];

export interface Account {
  id: number;
  name: string;
  /** Available balance in cents (reservations already taken out). Never negative. */
  balanceCents: number;
  /** Default sending number (E.164) when a request gives no callerId. */
  faxNumber: string;
  webhookUrl: string | null;
  webhookSecret: string;
  createdAtMs: number;
}

export interface CreatedAccount {
  account: Account;
  liveKey: string;
  testKey: string;
}

export interface CoverFields {
  subject?: string;
  fromName?: string;
  toName?: string;
  message?: string;
}

/** One attachment as submitted. Content is either inline (`data`) or fetched later (`fileUrl`). */
export interface NewDocument {
  fileName: string;
  fileUrl: string | null;
  data: Buffer | null;
  /** Format sniffed from the bytes (`pdf`, `tiff`, `png`, ...); null until fetched. */
  format: string | null;
  /** Page count of the whole file when known; null until fetched/prepared. */
  pageCount: number | null;
}

export interface JobDocument {
  documentId: number;
  index: number;
  fileName: string;
  fileUrl: string | null;
  format: string | null;
  pageCount: number | null;
  /** Page selection entries as given (`"3"`, `"5-7"`), or null for all pages. */
  pages: string[] | null;
  byteLength: number | null;
}

export interface NewJob {
  toNumber: string;
  fromNumber: string;
  quality: FaxQuality;
  cover: CoverFields | null;
  templateId: string | null;
  smartDocumentId: string | null;
  /** Scheduled delivery time, or null to send now. */
  sendAtMs: number | null;
  deadlineMs: number;
  line: string;
  maxAttempts: number;
  /** Pages estimated at send time (for the reservation); the pipeline sets the exact count. */
  totalPages: number;
  priceCentsPerPage: number;
  /** Amount taken from the balance now (live keys); 0 for test keys. */
  reserveCents: number;
  originalJobId: number | null;
}

export interface JobRecord {
  jobId: number;
  accountId: number;
  keyMode: KeyMode;
  direction: Direction;
  fromNumber: string;
  toNumber: string;
  status: FaxStatus;
  /** Null once the job is finished. */
  stage: Stage | null;
  code: number;
  message: string;
  callStartMs: number;
  callEndMs: number | null;
  totalPages: number;
  transferredPages: number;
  sendAtMs: number | null;
  deadlineMs: number;
  quality: FaxQuality;
  cover: CoverFields | null;
  templateId: string | null;
  smartDocumentId: string | null;
  line: string;
  attempts: number;
  maxAttempts: number;
  nextAttemptAtMs: number;
  originalJobId: number | null;
  priceCentsPerPage: number;
  reservedCents: number;
  chargedCents: number;
  /** Free-form transmission detail of the last attempt (T.30 completion, SIP status, rate...). */
  detail: Record<string, unknown>;
  leaseOwner: string | null;
  leaseUntilMs: number | null;
  /** The prepared pages (set once preparation succeeded; shared with resends). */
  preparedId: number | null;
  createdAtMs: number;
  updatedAtMs: number;
}

/** The pages of a fax exactly as transmitted: a TIFF class F file, one page per IFD. */
export interface PreparedFax {
  id: number;
  tiff: Buffer;
  pageCount: number;
  quality: FaxQuality;
  width: number;
  xDpi: number;
  yDpi: number;
}

export interface AttemptRecord {
  jobId: number;
  attempt: number;
  startedAtMs: number;
  endedAtMs: number | null;
  code: number | null;
  message: string | null;
  pagesTransferred: number;
  detail: Record<string, unknown>;
}

/** How an attempt ended (its row in `attempts`). */
export interface AttemptOutcome {
  code: number;
  message: string;
  pagesTransferred: number;
  detail?: Record<string, unknown>;
}

/** An attempt to close together with the job it ended (`completeJob`). */
export interface FinishedAttempt extends AttemptOutcome {
  attempt: number;
}

/** What `startAttempt` hands the dispatcher: the attempt's number and what its call needs. */
export interface StartedAttempt {
  attempt: number;
  fax: PreparedFax;
  /** The job's attempts before this one (oldest first). */
  earlier: AttemptRecord[];
}

export interface IdempotencyInput {
  key: string;
  /** Hash of the request body, so a reused key with another body is refused. */
  requestHash: string;
  expiresAtMs: number;
}

export type CreateJobsResult =
  | { kind: 'created'; jobIds: number[] }
  | { kind: 'replayed'; jobIds: number[] }
  | { kind: 'idempotency_conflict' }
  | { kind: 'insufficient_balance'; neededCents: number; balanceCents: number };

export interface JobListFilter {
  status?: FaxStatus;
  direction?: Direction;
  fromMs?: number;
  toMs?: number;
  /** Matches fromNumber or toNumber (substring). */
  number?: string;
  /** The dashboard's search box: subject, to/from number or job id (job-search.ts). */
  query?: string;
  limit: number;
  /** Return jobs with jobId < beforeJobId (keyset paging, newest first). */
  beforeJobId?: number;
}

export interface TerminalOutcome {
  status: Exclude<FaxStatus, 'sending'>;
  code: number;
  message: string;
  transferredPages: number;
  detail?: Record<string, unknown>;
}

export interface LedgerEntry {
  id: number;
  accountId: number;
  jobId: number | null;
  kind: 'topup' | 'reserve' | 'release' | 'charge' | 'adjust';
  amountCents: number;
  atMs: number;
}

/** What the store holds right now, across every node sharing it (`/metrics`). */
export interface StoreStats {
  /** Jobs by status and stage (stage null once finished). */
  jobs: { status: FaxStatus; stage: Stage | null; count: number }[];
  /** Pages receivers confirmed on outbound faxes, all time. */
  pagesSent: number;
  /** Webhook deliveries waiting to be delivered (pending). */
  webhookBacklog: number;
}

/** Which jobs' lines a dispatcher query covers: only `lines` (when given), none of `excludeLines`. */
export interface LineFilter {
  lines?: readonly string[];
  excludeLines?: readonly string[];
}

export interface JobStore {
  /** Cover-page templates and smart documents (templates-types.ts). */
  readonly templates: TemplateStore;
  /** Users (Primary/Member), caller IDs, key revocation (users-types.ts). */
  readonly users: UserStore;
  /** Webhook events and their deliveries (outbox-types.ts). */
  readonly outbox: WebhookOutbox;
  /** Rate limits and gateway channel slots shared by every node on the store (coordination-types.ts). */
  readonly coordination: CoordinationStore;
  /** Applies pending migrations (versioned, idempotent). */
  migrate(): Promise<void>;
  close(): Promise<void>;

  // -- accounts and keys --
  createAccount(input: { name: string; balanceCents: number; faxNumber: string; webhookUrl?: string | null; nowMs: number }): Promise<CreatedAccount>;
  getAccount(accountId: number): Promise<Account | null>;
  /** Looks a presented key up by its hash; null when unknown or revoked. */
  findApiKey(presentedKey: string): Promise<ApiKeyInfo | null>;
  /** Replaces the account's key of that mode; returns the new plaintext key (shown once). */
  rotateApiKey(accountId: number, mode: KeyMode, nowMs: number): Promise<string>;
  setWebhook(accountId: number, patch: { url?: string | null; rotateSecret?: boolean }): Promise<Account>;
  topUp(accountId: number, amountCents: number, nowMs: number): Promise<Account>;
  ledger(accountId: number): Promise<LedgerEntry[]>;
  /** The account's active keys (prefixes only), live first. */
  apiKeys(accountId: number): Promise<ApiKeySummary[]>;
  /** Sets (or with null removes) the dashboard password hash; false when the account does not exist. */
  setPasswordHash(accountId: number, passwordHash: string | null): Promise<boolean>;
  /** The dashboard password hash of the account, or null when none is set. */
  passwordHash(accountId: number): Promise<string | null>;
  /** Accounts named `name` that have a dashboard password (sign-in candidates), oldest first. */
  signInCandidates(name: string): Promise<{ accountId: number; passwordHash: string }[]>;

  // -- jobs --
  /**
   * Creates one job per entry, all sharing `documents`, atomically with the balance
   * reservation and the idempotency record. Nothing is written unless everything is.
   */
  createJobs(input: {
    accountId: number;
    keyMode: KeyMode;
    jobs: NewJob[];
    documents: NewDocument[];
    pages: (string[] | null)[];
    idempotency: IdempotencyInput | null;
    nowMs: number;
  }): Promise<CreateJobsResult>;
  /** The unexpired record of an Idempotency-Key of the account, or null. */
  findIdempotency(accountId: number, key: string, nowMs: number): Promise<{ requestHash: string; jobIds: number[] } | null>;
  /** Creates a new job from a finished one, sharing its documents. */
  createResend(input: { accountId: number; keyMode: KeyMode; originalJobId: number; job: NewJob; nowMs: number }): Promise<CreateJobsResult>;
  getJob(accountId: number, jobId: number): Promise<JobRecord | null>;
  /** The job regardless of account (dispatcher use only). */
  getJobById(jobId: number): Promise<JobRecord | null>;
  listJobs(accountId: number, filter: JobListFilter): Promise<JobRecord[]>;
  jobDocuments(jobId: number): Promise<JobDocument[]>;
  /** The job's documents with their content (null until a fileUrl is fetched), in one read: what preparing needs. */
  jobDocumentContents(jobId: number): Promise<(JobDocument & { data: Buffer | null })[]>;
  documentBytes(documentId: number): Promise<Buffer | null>;
  /** Stores fetched content of a fileUrl document. */
  setDocumentContent(documentId: number, data: Buffer, format: string, pageCount: number | null): Promise<void>;
  attempts(jobId: number): Promise<AttemptRecord[]>;
  /** Stores the prepared pages of a leased job and links them to it; false when the lease was lost. */
  savePreparedFax(jobId: number, owner: string, fax: Omit<PreparedFax, 'id'>, nowMs: number): Promise<boolean>;
  /** The prepared pages of a job of the account, or null. */
  preparedFax(accountId: number, jobId: number): Promise<PreparedFax | null>;

  /** Cancels a job that has not started dialing. */
  cancelJob(input: { accountId: number; jobId: number; nowMs: number; message: string; event: (job: JobRecord) => NewEvent }): Promise<
    { kind: 'canceled'; job: JobRecord } | { kind: 'not_found' } | { kind: 'not_cancelable'; job: JobRecord }
  >;

  /** The account whose fax number this is (inbound routing), or null. */
  findAccountByFaxNumber(faxNumber: string): Promise<Account | null>;
  /**
   * Stores an inbound fax as a finished job (`direction: 'received'`) with its pages, and its
   * webhook event, atomically. Received faxes cost nothing.
   */
  createReceivedJob(input: {
    accountId: number; fromNumber: string; toNumber: string; quality: FaxQuality; callStartMs: number; nowMs: number;
    outcome: TerminalOutcome; fax: Omit<PreparedFax, 'id'> | null; detail?: Record<string, unknown>; event: (job: JobRecord) => NewEvent;
  }): Promise<JobRecord>;

  // -- dispatcher --
  /**
   * Leases up to `limit` jobs that are due: queued with nextAttemptAt <= now (scheduled ones
   * whose sendAt has come count as queued), or started ones whose lease expired (their
   * process died). Leased jobs move to `preparing`. With `lines`, only jobs on those lines; with
   * `excludeLines`, none on those (a dispatcher leases only what it has a line, and a free channel, for).
   */
  leaseDueJobs(input: { owner: string; nowMs: number; leaseMs: number; limit: number } & LineFilter): Promise<JobRecord[]>;
  /** Extends a lease; false when the job is no longer leased by `owner`. */
  renewLease(jobId: number, owner: string, untilMs: number): Promise<boolean>;
  /** Releases every lease held by `owner` (graceful shutdown or a restart of the embedded store). */
  releaseLeases(owner: string | null, nowMs: number): Promise<number>;
  /** Earliest time at which some job (of the lines the filter lets through) becomes due (for the dispatcher's next wake-up), or null. */
  nextDueAtMs(input?: LineFilter): Promise<number | null>;
  /** Progress of a leased job; false when the lease was lost. */
  updateProgress(jobId: number, owner: string, patch: { stage?: Stage; totalPages?: number; transferredPages?: number; detail?: Record<string, unknown>; nowMs: number }): Promise<boolean>;
  /**
   * The exact page count of a leased job, once its pages are prepared: records it and brings the
   * reservation to that many pages (ledger.ts), in one transaction. `lease_lost`: nothing written;
   * `insufficient_balance`: the count is recorded, the reservation left as it was.
   */
  setPageCount(jobId: number, owner: string, totalPages: number, nowMs: number): Promise<'ok' | 'lease_lost' | 'insufficient_balance'>;
  /**
   * Opens the next attempt of a leased job and hands the caller what the call needs, in one
   * transaction: the prepared pages and the attempts before this one. Null (nothing written) when
   * the job has no prepared pages; throws when the job is not leased by `owner`.
   */
  startAttempt(jobId: number, owner: string, nowMs: number): Promise<StartedAttempt | null>;
  /** Closes an attempt; resolves to every attempt of the job, this one included. */
  finishAttempt(jobId: number, attempt: number, outcome: AttemptOutcome & { nowMs: number }): Promise<AttemptRecord[]>;
  /** Puts a leased job back in the queue for another attempt at `nextAttemptAtMs`. */
  requeueJob(jobId: number, owner: string, nextAttemptAtMs: number, nowMs: number): Promise<boolean>;
  /**
   * Finishes a job: terminal status, settles the ledger (charge transferred pages, release
   * the rest) and inserts its webhook event, all atomically. False when the job was not
   * leased by `owner` or is already finished (nothing is written twice). With `attempt`, that
   * attempt is closed in the same transaction (the call that ended the job).
   */
  completeJob(input: { jobId: number; owner: string | null; outcome: TerminalOutcome; nowMs: number; event: (job: JobRecord) => NewEvent; attempt?: FinishedAttempt }): Promise<JobRecord | null>;

  // -- operations --
  /** Counts for monitoring: jobs by status and stage, pages sent, webhook backlog. */
  stats(): Promise<StoreStats>;

  // -- change notifications (shared stores only) --
  /**
   * Calls `cb(line)` when a job of `line` becomes due now on any node sharing the store ('' when
   * notifications may have been missed: look at every line). A wake-up hint only: callers still
   * poll for scheduled jobs and expired leases. Resolves to the unsubscribe function. Absent on a
   * store only one process uses (SQLite), whose callers are told directly.
   */
  onJobsChanged?(cb: (line: string) => void): Promise<() => void>;
  /** Calls `cb()` when a webhook delivery becomes due now on any node sharing the store (as onJobsChanged). */
  onDeliveriesChanged?(cb: () => void): Promise<() => void>;
}
