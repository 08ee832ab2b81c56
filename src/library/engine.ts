// The library's job engine: the daemon's dispatcher and webhook worker on a store (a SQLite file
// or a PostgreSQL database), behind calls instead of HTTP. Jobs are submitted with the same
// validation, idempotency, balance rules and rate limits as POST /v1/customer/fax-send, and what
// happens to them arrives as events in this process.
import { EventEmitter, on } from 'node:events';
import { SystemClock } from '../shared/clock.js';
import { FaxError } from '../shared/errors.js';
import { createLogger } from '../shared/log.js';
import { startDaemon, type RunningDaemon } from '../service.js';
import { parseGateways } from '../engine/index.js';
import { FaxService, type Caller, type JobEvent, type NegotiatedMode } from '../jobs/index.js';
import { faxObject, type FaxObject } from '../store/index.js';
import type { ApiKeyInfo, JobRecord, Stage, UserRole } from '../store/index.js';
import { MemoryRateLimiter, StoreRateLimiter, type RateLimiter, type RateLimits } from '../api/index.js';
import { normalizeFaxNumber, parseJobId, parseListQuery, parseSendRequest, requestHash } from '../api/validate/index.js';

/** A fax job as the API shows it (docs/api.md, the fax object: fax-status, fax-list, webhooks). */
export type Fax = FaxObject;

/** The mode a call negotiated. */
export type JobCallMode = NegotiatedMode;

/**
 * The body of POST /v1/customer/fax-send (docs/api.md, fax-send), validated the same way:
 * `faxNumber` (one number or a list), `faxData` (files as base64 `fileData` or a `fileUrl`, each
 * with optional `pages`), `callerId`, cover fields `subject`/`from_name`/`to_name`/`message`,
 * `send_at`, `faxQuality`, `templateId`, `smartDocumentId`.
 */
export interface FaxSendRequest {
  faxNumber: string | string[];
  faxData?: { fileName: string; fileData?: string; fileUrl?: string; pages?: string | string[] }[];
  callerId?: string;
  subject?: string;
  from_name?: string;
  to_name?: string;
  message?: string;
  /** ISO 8601 date-time with a zone; the job waits until then. */
  send_at?: string;
  faxQuality?: 'Low' | 'Standard' | 'HD';
  templateId?: string;
  smartDocumentId?: string;
}

/** What a submission created: one job per recipient. */
export interface FaxSubmission {
  jobIds: number[];
  /** True when the idempotency key was seen before: the jobs are those of the first submission. */
  replayed: boolean;
  /** True when the jobs wait for `send_at`. */
  scheduled: boolean;
}

/** fax-list filters (docs/api.md decision 10). */
export interface FaxListQuery {
  status?: 'sending' | 'delivered' | 'canceled' | 'failed';
  direction?: 'sent' | 'received';
  /** ISO 8601 date-time or Unix seconds. */
  from?: string | number;
  to?: string | number;
  /** Digits (optional +), matched as part of either number. */
  number?: string;
  /** 1..100, default 20. */
  limit?: number;
  /** A jobId: jobs older than it (the previous page's last jobId). */
  before?: number;
}

/**
 * Who acts: an API key (live or test, as in the `accessToken` header; a user's own key acts with
 * its role), or an account and key mode. Test mode sends on the virtual line, live mode on the
 * gateways (or the virtual line when none are configured).
 */
export type AccountRef = string | { accountId: number; mode: 'live' | 'test' };

/** A call's progress on one job. */
export interface FaxProgressEvent {
  jobId: number;
  /** 'dialing' or 'transmitting' when the stage changed. */
  stage?: Stage;
  /** The mode the call negotiated (again after a fallback). */
  negotiated?: JobCallMode;
  /** The receiver confirmed this page (1-based, cover page included). */
  pageConfirmed?: number;
  totalPages: number;
}

/** Events of a FaxEngine, each also emitted as `event` with its type. */
export interface FaxEngineEventMap {
  /** A call of this process made progress. */
  progress: [FaxProgressEvent];
  /** A job finished: delivered, failed or canceled (its `faxStatus` says which). */
  completed: [Fax];
  /** A fax arrived for an account (its fax number was called). */
  received: [Fax];
  event: [FaxEngineEvent];
}

/** One event of the engine, for `for await (const e of engine.events())`. */
export type FaxEngineEvent =
  | { type: 'progress'; progress: FaxProgressEvent }
  | { type: 'completed'; fax: Fax }
  | { type: 'received'; fax: Fax };

/** An account created by {@link FaxEngine.createAccount}: its keys are shown once. */
export interface CreatedFaxAccount {
  accountId: number;
  liveKey: string;
  testKey: string;
  webhookSecret: string;
}

/** Per-account request limits (as the HTTP API's `rateLimits` setting). */
export type RateLimitSettings = RateLimits;

export interface FaxEngineOptions {
  /**
   * The store: a file path or `sqlite:PATH`, or `postgres://…` for a database shared with
   * other nodes. Default: faxstack.db in `dataDir`.
   */
  store?: string;
  /** Directory of the default SQLite store (locked to this process while it runs). */
  dataDir?: string;
  /** Telephony gateways for live keys: the config file's `gateways` object (docs/configuration.md, docs/gateways.md). */
  gateways?: unknown;
  /** Hosts fileUrl may reach although they resolve to private or loopback addresses. */
  fetchAllowHosts?: string[];
  /** Webhook targets on private or loopback addresses (default false). */
  allowPrivateWebhooks?: boolean;
  /** Per-account limits of calls to send/get/list/cancel/resend (default: the API's). */
  rateLimits?: Partial<RateLimitSettings>;
  /** On close, calls in progress may finish this long before they are re-queued (default 0). */
  shutdownGraceMs?: number;
  /** Log level of the engine's JSON log on stderr (default 'warn'). */
  logLevel?: 'silent' | 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** What the HTTP plugin (http.ts) needs of an engine; not part of the public API. */
interface EngineParts {
  daemon: RunningDaemon;
  service: FaxService;
  clock: SystemClock;
  limiter: RateLimiter;
  allowPrivateWebhooks: boolean;
}

const parts = new WeakMap<FaxEngine, EngineParts>();

/** The running parts of an engine (http.ts). */
export function engineParts(engine: FaxEngine): EngineParts {
  const p = parts.get(engine);
  if (!p) throw new TypeError('not a FaxEngine made by createFaxEngine');
  return p;
}

/**
 * The job engine of one process. Create it with {@link createFaxEngine}; close it to stop
 * (calls in progress finish within the grace or go back to the queue, as the daemon does).
 */
export class FaxEngine extends EventEmitter<FaxEngineEventMap> {
  readonly #daemon: RunningDaemon;
  readonly #service: FaxService;
  readonly #limiter: RateLimiter;
  readonly #clock: SystemClock;

  /** @internal Use {@link createFaxEngine}. */
  constructor(internals: { daemon: RunningDaemon; service: FaxService; limiter: RateLimiter; clock: SystemClock; connect: (observer: (e: JobEvent) => void) => void }) {
    super();
    this.#daemon = internals.daemon;
    this.#service = internals.service;
    this.#limiter = internals.limiter;
    this.#clock = internals.clock;
    internals.connect((e) => this.#observe(e));
  }

  /** True when the store is a PostgreSQL database shared with other nodes. */
  get sharedStore(): boolean {
    return this.#daemon.sharedStore;
  }

  /** Creates an account with its live and test keys. `balance` in dollars (default 10). */
  async createAccount(input: { name: string; faxNumber: string; balance?: number; webhookUrl?: string }): Promise<CreatedFaxAccount> {
    const faxNumber = normalizeFaxNumber(input.faxNumber, 'faxNumber');
    const balance = input.balance ?? 10;
    if (!Number.isFinite(balance) || balance < 0) throw new FaxError('INVALID_PARAMETER', `balance must be a number of dollars ≥ 0, got ${balance}`, { field: 'balance' });
    const c = await this.#daemon.store.createAccount({ name: input.name, balanceCents: Math.round(balance * 100), faxNumber, webhookUrl: input.webhookUrl ?? null, nowMs: this.#clock.now() });
    return { accountId: c.account.id, liveKey: c.liveKey, testKey: c.testKey, webhookSecret: c.account.webhookSecret };
  }

  /**
   * Submits a fax: one job per recipient, validated, priced and reserved as POST
   * /v1/customer/fax-send does. With `idempotencyKey`, repeating the same request returns the
   * same jobs (`replayed`), and another request with that key is a CONFLICT.
   *
   * @throws FaxError — INVALID_PARAMETER, INSUFFICIENT_BALANCE, CONFLICT, RATE_LIMITED, INVALID_API_KEY …
   */
  async send(account: AccountRef, request: FaxSendRequest, options: { idempotencyKey?: string } = {}): Promise<FaxSubmission> {
    return this.#as(account, async (caller) => {
      const idem = options.idempotencyKey;
      if (idem !== undefined && !IDEMPOTENCY_KEY.test(idem)) throw new FaxError('INVALID_PARAMETER', 'idempotencyKey must be 1 to 255 visible ASCII characters', { field: 'idempotencyKey' });
      const key = idem === undefined ? null : { key: idem, requestHash: requestHash(request) };
      const r = (key && (await this.#service.replay(caller, key))) || (await this.#service.send(caller, parseSendRequest(request, { nowMs: this.#clock.now() }), key));
      return { jobIds: r.jobIds, replayed: r.replayed, scheduled: r.scheduled };
    });
  }

  /** The job as fax-status shows it. @throws FaxError NOT_FOUND for a job of another account. */
  async get(account: AccountRef, jobId: number): Promise<Fax> {
    return this.#as(account, async (caller) => faxObject(await this.#service.status(caller, parseJobId(jobId))));
  }

  /** Jobs of the account, newest first (fax-list). */
  async list(account: AccountRef, query: FaxListQuery = {}): Promise<Fax[]> {
    return this.#as(account, async (caller) => (await this.#service.list(caller, parseListQuery({ ...query }))).map(faxObject));
  }

  /** Cancels a job that has not started dialing. @throws FaxError CONFLICT once it has. */
  async cancel(account: AccountRef, jobId: number): Promise<Fax> {
    const fax = await this.#as(account, async (caller) => faxObject(await this.#service.cancel(caller, parseJobId(jobId))));
    this.#emit({ type: 'completed', fax });
    return fax;
  }

  /** Sends a finished job again, to `faxNumber` or the same number; resolves with the new jobId. */
  async resend(account: AccountRef, jobId: number, faxNumber?: string): Promise<number> {
    return this.#as(account, (caller) => this.#service.resend(caller, parseJobId(jobId), faxNumber === undefined ? null : normalizeFaxNumber(faxNumber, 'faxNumber')));
  }

  /**
   * Resolves once the job has finished (delivered, failed or canceled) with its final state.
   * Rejects with the signal's reason when `signal` aborts first.
   */
  async waitFor(account: AccountRef, jobId: number, options: { signal?: AbortSignal } = {}): Promise<Fax> {
    const signal = options.signal;
    signal?.throwIfAborted();
    return new Promise<Fax>((resolve, reject) => {
      const done = (fax: Fax) => {
        if (fax.jobId !== jobId) return;
        this.off('completed', done);
        signal?.removeEventListener('abort', aborted);
        resolve(fax);
      };
      const aborted = () => (this.off('completed', done), reject(signal!.reason));
      this.on('completed', done);
      signal?.addEventListener('abort', aborted, { once: true });
      // Listening first, then looking: a job that finished in between is not missed.
      this.get(account, jobId).then((fax) => fax.faxStatus !== 'sending' && done(fax), (err) => (this.off('completed', done), signal?.removeEventListener('abort', aborted), reject(err)));
    });
  }

  /** The engine's events as an async iterator (until `signal` aborts or the loop breaks). */
  async *events(options: { signal?: AbortSignal } = {}): AsyncGenerator<FaxEngineEvent> {
    try {
      for await (const [event] of on(this, 'event', options.signal ? { signal: options.signal } : {})) yield event as FaxEngineEvent;
    } catch (err) {
      if (!(options.signal?.aborted && (err as Error).name === 'AbortError')) throw err;
    }
  }

  /** Stops the engine: no new calls, calls in progress finish within the grace or are re-queued, the store closes. */
  async close(): Promise<void> {
    await this.#limiter.close?.();
    await this.#daemon.close();
  }

  #observe(e: JobEvent): void {
    if (e.type === 'progress') {
      const { type: _t, ...progress } = e;
      this.#emit({ type: 'progress', progress });
    } else this.#emit({ type: e.type, fax: faxObject(e.job as JobRecord) });
  }

  #emit(e: FaxEngineEvent): void {
    if (e.type === 'progress') this.emit('progress', e.progress);
    else this.emit(e.type, e.fax);
    this.emit('event', e);
  }

  async #caller(account: AccountRef): Promise<Caller> {
    if (typeof account !== 'string') {
      if (!(await this.#daemon.store.getAccount(account.accountId))) throw new FaxError('INVALID_API_KEY', `no account ${account.accountId}`);
      if (account.mode !== 'live' && account.mode !== 'test') throw new FaxError('INVALID_PARAMETER', "mode must be 'live' or 'test'", { field: 'mode' });
      return { accountId: account.accountId, mode: account.mode };
    }
    const store = this.#daemon.store;
    // An account key, or a user's own key (which acts with the user's role), as the API's accessToken.
    const info: (ApiKeyInfo & { role?: UserRole }) | null = account.length <= 200 ? ((await store.findApiKey(account)) ?? (await store.users.findUserKey(account))) : null;
    if (!info) throw new FaxError('INVALID_API_KEY', 'not a valid API key');
    return { accountId: info.accountId, mode: info.mode, ...(info.role ? { role: info.role } : {}) };
  }

  /** Runs `work` as the account, within its rate limits. */
  async #as<T>(account: AccountRef, work: (caller: Caller) => Promise<T>): Promise<T> {
    const caller = await this.#caller(account);
    const d = await this.#limiter.acquire(caller.accountId);
    if (!d.allowed) {
      throw new FaxError('RATE_LIMITED', d.reason === 'concurrency' ? 'too many requests in flight for this account' : d.reason === 'burst' ? 'burst limit reached; slow down' : `hourly limit reached (${d.limit} requests per rolling hour)`);
    }
    try {
      return await work(caller);
    } finally {
      this.#limiter.release(caller.accountId);
    }
  }
}

/**
 * Opens the store (migrating it), starts the dispatcher and webhook worker, and returns the
 * running engine. Faxes of test keys go over the built-in virtual line; live keys over
 * `gateways` (SIP), or the virtual line when none are configured.
 *
 * @throws when the store cannot be opened, the data directory is in use, or `gateways` is invalid.
 */
export async function createFaxEngine(options: FaxEngineOptions): Promise<FaxEngine> {
  const clock = new SystemClock();
  const logger = createLogger({ level: options.logLevel ?? 'warn', destination: process.stderr });
  const gateways = options.gateways === undefined ? undefined : parseGateways(options.gateways, 'gateways');
  // Events of calls that start before the engine object exists wait for it.
  let observer: ((e: JobEvent) => void) | undefined;
  const pending: JobEvent[] = [];
  const daemon = await startDaemon({
    ...(options.store !== undefined ? { store: options.store } : {}),
    ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
    ...(gateways ? { gateways } : {}),
    clock, logger,
    fetchAllowHosts: options.fetchAllowHosts ?? [],
    allowPrivateWebhooks: options.allowPrivateWebhooks ?? false,
    shutdownGraceMs: options.shutdownGraceMs ?? 0,
    onJobEvent: (e) => (observer ? observer(e) : pending.push(e)),
  });
  const service = new FaxService({ store: daemon.store, clock, config: daemon.config, onJob: () => daemon.dispatcher.notify(), onEvent: () => daemon.webhooks.notify() });
  const limiter: RateLimiter = daemon.sharedStore
    ? new StoreRateLimiter({ coordination: daemon.store.coordination, clock, node: `library:${process.pid}`, logger: logger.child({ component: 'rate-limit' }), ...(options.rateLimits ? { limits: options.rateLimits } : {}) })
    : new MemoryRateLimiter(clock, options.rateLimits);
  const engine = new FaxEngine({
    daemon, service, limiter, clock,
    connect: (o) => {
      observer = o;
      for (const e of pending.splice(0)) o(e);
    },
  });
  parts.set(engine, { daemon, service, clock, limiter, allowPrivateWebhooks: options.allowPrivateWebhooks ?? false });
  return engine;
}
