// The dispatcher: leases due jobs from the store (scheduled ones at their send_at, retries at
// their next attempt, and jobs whose process died once their lease expires), prepares their
// documents, places the call on the job's line and records the outcome. Leases are renewed
// while a call runs; every wake-up goes through the injected clock, except a shared store's
// change notification (another node queued a job), which looks at the store at once.
//
// Lines with channel limits (the gateway pool): the dispatcher leases only jobs of lines that
// have a free channel, at most as many as there are free channels, and reserves the channel as
// it leases the job. A leased job therefore never waits for a channel; one whose own gateways
// are all busy (another gateway had the free channel) goes straight back to the queue for
// `slotRetryMs`, without using up an attempt. Channels shared with other daemons (one store):
// the line's view of the others' calls is refreshed before each look at the store, the channel
// is taken in the store once the documents are prepared, just before the call (all taken by
// then: back to the queue for `slotRetryMs`, no attempt used), its hold is renewed with the
// job's lease, and a lost hold aborts the call like a lost lease.
//
// A render stopped by its time budget on a busy node (documents/render-budget.ts: transient)
// goes back to the queue, without using an attempt, up to RENDER_BUDGET_RETRIES times; then, or
// when the page is too slow anywhere, the job fails with -3109 naming the page.
import type { Clock, TimerHandle } from '../shared/clock.js';
import { ERRORS, FaxError, outcomeMessage } from '../shared/errors.js';
import type { Logger } from '../shared/log.js';
import { LONG_BUCKETS_MS, type Histogram, type MetricsRegistry } from '../shared/metrics.js';
import { isSlotted, type CallResult, type FaxLine } from '../engine/index.js';
import { faxPagesFromTiff, RenderTimeout } from '../documents/index.js';
import { isStoreUnavailable, jobEvent } from '../store/index.js';
import type { AttemptRecord, FinishedAttempt, JobRecord, JobStore, LineFilter, Stage, TerminalOutcome } from '../store/index.js';
import { linePolicy, type JobsConfig } from './config.js';
import { prepareJob, type FetchPolicy } from './prepare.js';
import { decideRetry } from './retry.js';

interface DispatcherOptions {
  store: JobStore;
  clock: Clock;
  /** Unique per process: leases carry it. */
  owner: string;
  lines: Record<string, FaxLine>;
  config: JobsConfig;
  fetch: FetchPolicy;
  logger: Logger;
  /** Called after a job finished and its webhook event is in the outbox. */
  onEvent?: () => void;
  leaseMs?: number;
  concurrency?: number;
  /** Longest sleep between looks at the store (jobs inserted by other nodes). */
  pollMs?: number;
  /** How long a job whose gateways were all busy waits in the queue before it is leased again. */
  slotRetryMs?: number;
  /**
   * Jobs on lines this process does not have: `fail` them with -3199 (the default: the only
   * dispatcher on its store, whose configuration lacks the line) or `leave` them to the processes
   * that have the line (daemons sharing one store).
   */
  otherLines?: 'fail' | 'leave';
  /** Where this process's queue waits, call durations and pages per call are observed. */
  metrics?: MetricsRegistry;
  /** The preparing stage (default prepareJob); tests inject failures. */
  prepare?: typeof prepareJob;
  /** In-process observer of this dispatcher's calls and finished jobs (the library's engine events). */
  onJobEvent?: (event: JobEvent) => void;
}

/** Times a job whose render ran out of time on a busy node is put back before it fails with -3109. */
export const RENDER_BUDGET_RETRIES = 2;
/** Wait before the first such retry; doubled for the next. */
const RENDER_BUDGET_RETRY_MS = 30_000;

/** The mode a call negotiated, in the words of a job's detail. */
export interface NegotiatedMode {
  bitRate: number;
  modulation: string;
  ecm: boolean;
  compression: string;
  resolution: string;
}

/**
 * What happens to jobs, as it happens in this process: a call's progress (stage, negotiated
 * mode, a page confirmed), a job that finished (delivered, failed or canceled) and a fax received.
 */
export type JobEvent =
  | { type: 'progress'; jobId: number; stage?: Stage; negotiated?: NegotiatedMode; pageConfirmed?: number; totalPages: number }
  | { type: 'completed'; job: JobRecord }
  | { type: 'received'; job: JobRecord };

/** Pages per call: histogram bounds. */
const PAGE_BUCKETS: readonly number[] = [0, 1, 2, 3, 5, 10, 20, 50, 100, 200];

/** The fax-send stages this process sees, timed on its clock (so on simulated time in tests). */
interface DispatchMetrics {
  queueWait: Histogram;
  callDuration: Histogram<'outcome'>;
  callPages: Histogram<'outcome'>;
}

function dispatchMetrics(r: MetricsRegistry): DispatchMetrics {
  return {
    queueWait: r.histogram({ name: 'faxstack_fax_queue_wait_seconds', help: 'From a job becoming due (created, or its send_at) to its first dial.', buckets: LONG_BUCKETS_MS, scale: 1000 }),
    callDuration: r.histogram({ name: 'faxstack_fax_call_duration_seconds', help: 'Calls by outcome (delivered, failed, interrupted by shutdown).', labelNames: ['outcome'], buckets: LONG_BUCKETS_MS, scale: 1000 }),
    callPages: r.histogram({ name: 'faxstack_fax_call_pages', help: 'Pages confirmed per call, by outcome.', labelNames: ['outcome'], buckets: PAGE_BUCKETS }),
  };
}

interface Running {
  abort: AbortController;
  done: Promise<void>;
  /** Set once the call is about to be placed (stop() lets such calls finish within its grace). */
  calling: boolean;
}

export class Dispatcher {
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly slotRetryMs: number;
  private readonly running = new Map<number, Running>();
  /** Render-budget retries so far, per job (this process's view; a retry on another node starts again). */
  private readonly renderRetries = new Map<number, number>();
  private readonly metrics: DispatchMetrics | null;
  private timer: TimerHandle | undefined;
  private stopped = true;
  private ticking = false;
  private again = false;
  /** The store's change subscription (shared stores), resolved to its unsubscribe function. */
  private subscription: Promise<(() => void) | undefined> | undefined;

  constructor(private readonly o: DispatcherOptions) {
    this.leaseMs = o.leaseMs ?? 30_000;
    this.concurrency = o.concurrency ?? 8;
    this.pollMs = o.pollMs ?? 5_000;
    this.slotRetryMs = o.slotRetryMs ?? 2_000;
    this.metrics = o.metrics ? dispatchMetrics(o.metrics) : null;
  }

  start(): void {
    this.stopped = false;
    this.subscribe();
    this.wake();
  }

  /**
   * On a shared store, a job another node queued wakes us at once instead of at the next poll
   * (only for lines we have, when other lines are left to other processes).
   */
  private subscribe(): void {
    if (this.subscription || !this.o.store.onJobsChanged) return;
    const onChange = (line: string) => {
      if (this.stopped) return;
      if (line !== '' && this.o.otherLines === 'leave' && !(line in this.o.lines)) return;
      void this.tick();
    };
    // Once listening, look again: a job queued while the subscription was being set up sent
    // its notification before anyone listened.
    this.subscription = this.o.store.onJobsChanged(onChange).then(
      (unsubscribe) => {
        onChange('');
        return unsubscribe;
      },
      (err: unknown) => {
        this.o.logger.warn({ err }, 'no job change notifications: polling only');
        return undefined;
      },
    );
  }

  /** Looks for due jobs now (a job was created or a slot freed). */
  notify(): void {
    this.wake();
  }

  /** Number of jobs in progress (preparing or calling). */
  get active(): number {
    return this.running.size;
  }

  /** Number of calls placed and not yet finished. */
  get calling(): number {
    let n = 0;
    for (const r of this.running.values()) if (r.calling) n++;
    return n;
  }

  /**
   * Stops leasing and waits for the jobs in progress. Calls already placed may finish within
   * `graceMs` (on the injected clock); whatever is still running then, and every job not yet
   * dialing, is aborted and re-queued without using up an attempt. Pages confirmed so far stay
   * confirmed: the next attempt resumes after them, and only confirmed pages are ever charged.
   */
  async stop(o: { graceMs?: number } = {}): Promise<void> {
    this.stopped = true;
    this.o.clock.clearTimer(this.timer);
    void this.subscription?.then((unsubscribe) => unsubscribe?.());
    this.subscription = undefined;
    const all = () => Promise.all([...this.running.values()].map((r) => r.done));
    for (const r of this.running.values()) if (!r.calling) r.abort.abort();
    const graceMs = o.graceMs ?? 0;
    if (graceMs > 0 && this.running.size > 0) {
      this.o.logger.info({ calls: this.running.size, graceMs }, 'stopping: letting calls in progress finish');
      let timer: TimerHandle | undefined;
      await Promise.race([all(), new Promise<void>((resolve) => (timer = this.o.clock.setTimer(graceMs, resolve)))]);
      this.o.clock.clearTimer(timer);
    }
    if (this.running.size > 0) this.o.logger.info({ calls: this.running.size }, 'stopping: re-queuing calls in progress');
    for (const r of this.running.values()) r.abort.abort();
    await all();
  }

  private wake(): void {
    if (this.stopped) return;
    // During a look at the store, its end would clear a timer set now: have it look again instead.
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.o.clock.clearTimer(this.timer);
    this.timer = this.o.clock.setTimer(0, () => void this.tick());
  }

  private async tick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = true;
    let delay = this.pollMs;
    try {
      // A wake-up during the look (a job created, a notification) makes it repeat at once,
      // here: a timer set now would be cleared below, and the injected clock may stand still.
      do {
        this.again = false;
        for (const line of Object.values(this.o.lines)) if (isSlotted(line)) await line.refresh?.();
        // A line with channels never gets more jobs than it has free channels; the others share the rest.
        for (const group of this.leaseGroups()) {
          const limit = Math.min(this.concurrency - this.running.size, group.limit);
          if (limit <= 0 || this.stopped) continue;
          const jobs = await this.o.store.leaseDueJobs({ owner: this.o.owner, nowMs: this.o.clock.now(), leaseMs: this.leaseMs, limit, ...group.filter });
          for (const job of jobs) this.launch(job);
          if (jobs.length === limit) this.again = true;
        }
        if (this.again) continue;
        // Due jobs of lines without a free channel do not wake us: a channel coming free does.
        const next = await this.o.store.nextDueAtMs(this.openLines().filter);
        delay = next === null ? this.pollMs : Math.min(this.pollMs, Math.max(0, next - this.o.clock.now()));
      } while (this.again && !this.stopped);
    } catch (err) {
      this.o.logger.error({ err }, 'dispatcher tick failed');
    } finally {
      this.ticking = false;
    }
    if (this.stopped) return;
    this.o.clock.clearTimer(this.timer);
    // When every slot is busy, a finishing call wakes us; otherwise look again at the next due time.
    if (this.running.size < this.concurrency) this.timer = this.o.clock.setTimer(delay, () => void this.tick());
  }

  /**
   * The lease queries of one look at the store: one per line with channels (at most its free
   * channels), then one for every other line (unlimited; with otherLines 'fail' also the lines
   * this process does not have, whose jobs fail at once).
   */
  private leaseGroups(): { filter: LineFilter; limit: number }[] {
    const groups: { filter: LineFilter; limit: number }[] = [];
    const slotted: string[] = [];
    const plain: string[] = [];
    for (const [name, line] of Object.entries(this.o.lines)) {
      if (!isSlotted(line)) {
        plain.push(name);
        continue;
      }
      slotted.push(name);
      groups.push({ filter: { lines: [name] }, limit: line.freeSlots() });
    }
    groups.push({ filter: this.o.otherLines === 'leave' ? { lines: plain } : { excludeLines: slotted }, limit: Infinity });
    return groups;
  }

  /** The lines whose due jobs we could take now (for the next wake-up). */
  private openLines(): { filter: LineFilter } {
    const open: string[] = [];
    const full: string[] = [];
    for (const [name, line] of Object.entries(this.o.lines)) (isSlotted(line) && line.freeSlots() <= 0 ? full : open).push(name);
    return { filter: this.o.otherLines === 'leave' ? { lines: open } : { excludeLines: full } };
  }

  private launch(job: JobRecord): void {
    const abort = new AbortController();
    const running: Running = { abort, done: Promise.resolve(), calling: false };
    const done = this.run(job, abort, running)
      .catch((err) => this.o.logger.error({ err, jobId: job.jobId }, 'job run failed'))
      .finally(() => {
        this.running.delete(job.jobId);
        this.wake();
      });
    running.done = done;
    this.running.set(job.jobId, running);
  }

  private async run(job: JobRecord, abort: AbortController, running: Running): Promise<void> {
    const { store, clock, owner } = this.o;
    const log = this.o.logger.child({ jobId: job.jobId });
    // The channel is taken now, synchronously with the lease (launch runs this far at once).
    const line = this.o.lines[job.line];
    const slotted = line && isSlotted(line) ? line : null;
    if (slotted && slotted.reserve(job.jobId, job.toNumber) === 'full') {
      log.info({ line: job.line, retryInMs: this.slotRetryMs }, 'every gateway for this number is busy: back to the queue');
      await store.requeueJob(job.jobId, owner, clock.now() + this.slotRetryMs, clock.now());
      return;
    }
    const heartbeat = this.heartbeat(job.jobId, abort, log, slotted?.renew?.bind(slotted));
    try {
      if (clock.now() > job.deadlineMs) {
        await this.finish(job, { status: 'failed', code: ERRORS.DEADLINE_PASSED.code, message: outcomeMessage('DEADLINE_PASSED'), transferredPages: job.transferredPages });
        return;
      }
      log.info({ stage: 'preparing', attempt: job.attempts + 1 }, 'job leased');
      let totalPages: number;
      try {
        totalPages = (
          await (this.o.prepare ?? prepareJob)(store, job, {
            owner, nowMs: clock.now(), fetch: this.o.fetch, maxPages: this.o.config.maxPages, maxFileBytes: this.o.config.maxFileBytes,
            signal: abort.signal, hold: (work) => clock.hold?.(work), // rendering is real work: simulated time waits for it
          })
        ).totalPages;
      } catch (err) {
        if (abort.signal.aborted) {
          // Stopped while preparing (shutdown or lost lease): another run prepares it again.
          await store.requeueJob(job.jobId, owner, clock.now(), clock.now());
          return;
        }
        if (isStoreUnavailable(err)) {
          // The database went away under a query (a restart): nothing was sent, so the job goes
          // back to the queue without spending an attempt (if the store is still gone, this
          // throws and the lease expires instead).
          log.warn({ err: (err as Error).message, retryInMs: this.slotRetryMs }, 'the store was lost while preparing: back to the queue');
          await store.requeueJob(job.jobId, owner, clock.now() + this.slotRetryMs, clock.now());
          return;
        }
        if (err instanceof RenderTimeout && err.transient) {
          const retries = this.renderRetries.get(job.jobId) ?? 0;
          const retryInMs = RENDER_BUDGET_RETRY_MS * 2 ** retries;
          if (retries < RENDER_BUDGET_RETRIES && clock.now() + retryInMs < job.deadlineMs) {
            this.renderRetries.set(job.jobId, retries + 1);
            log.warn({ err: err.message, page: err.page, retryInMs }, 'rendering ran out of time on a busy node: back to the queue');
            await store.requeueJob(job.jobId, owner, clock.now() + retryInMs, clock.now());
            return;
          }
        }
        this.renderRetries.delete(job.jobId);
        const e = asJobError(err);
        log.warn({ code: e.code, err: e.message }, 'document preparation failed');
        await this.finish(job, { status: 'failed', code: e.code, message: e.message, transferredPages: 0 });
        return;
      }
      this.renderRetries.delete(job.jobId);
      const counted = await store.setPageCount(job.jobId, owner, totalPages, clock.now());
      if (counted === 'lease_lost') return;
      if (counted === 'insufficient_balance') {
        await this.finish(job, { status: 'failed', code: ERRORS.INSUFFICIENT_BALANCE.code, message: `Insufficient account balance for ${totalPages} pages`, transferredPages: 0 });
        return;
      }
      await this.call(job, totalPages, abort, running, log);
    } finally {
      heartbeat.done = true;
      clock.clearTimer(heartbeat.timer);
      slotted?.release(job.jobId);
    }
  }

  private async call(job: JobRecord, totalPages: number, abort: AbortController, running: Running, log: Logger): Promise<void> {
    const { store, clock, owner } = this.o;
    const line = this.o.lines[job.line];
    if (!line) {
      await this.finish(job, { status: 'failed', code: ERRORS.INTERNAL.code, message: outcomeMessage('INTERNAL', `no line named "${job.line}" is configured`), transferredPages: job.transferredPages });
      return;
    }
    const firstPage = job.transferredPages + 1;
    if (firstPage > totalPages) {
      // Every page was confirmed before the process that sent them stopped.
      await this.finish(job, { status: 'delivered', code: 0, message: 'Fax delivered', transferredPages: totalPages });
      return;
    }
    if (this.stopped || abort.signal.aborted) {
      // Stopping: no new call. The job waits in the queue for the next process.
      await store.requeueJob(job.jobId, owner, clock.now(), clock.now());
      return;
    }
    const slotted = isSlotted(line) ? line : null;
    if (slotted?.confirm && !(await slotted.confirm(job.jobId))) {
      log.info({ line: job.line, retryInMs: this.slotRetryMs }, 'every gateway for this number is busy on the shared store: back to the queue');
      await store.requeueJob(job.jobId, owner, clock.now() + this.slotRetryMs, clock.now());
      return;
    }
    running.calling = true;
    const dialMs = clock.now();
    // One transaction opens the attempt and reads what the call needs (pages, earlier attempts).
    const started = await store.startAttempt(job.jobId, owner, dialMs);
    if (!started) {
      await this.finish(job, { status: 'failed', code: ERRORS.INTERNAL.code, message: outcomeMessage('INTERNAL', 'the prepared pages are missing'), transferredPages: job.transferredPages });
      return;
    }
    const { attempt, fax } = started;
    const ecm = ecmFallback(started.earlier) ? false : undefined;
    if (attempt === 1) this.metrics?.queueWait.observe([], dialMs - Math.max(job.createdAtMs, job.sendAtMs ?? 0));
    log.info({ attempt, line: job.line, firstPage, totalPages, ...(ecm === false ? { ecm } : {}) }, 'calling');
    // Progress arrives synchronously from the line; writes are chained in order.
    let chain: Promise<unknown> = Promise.resolve();
    const write = (patch: { stage?: Stage; transferredPages?: number }) => {
      chain = chain.then(() => store.updateProgress(job.jobId, owner, { ...patch, nowMs: clock.now() })).catch((err) => log.error({ err }, 'progress write failed'));
    };
    // Pages that cannot be read back end the attempt like any other failure inside the call.
    const result: CallResult = await Promise.resolve()
      .then(() => line.call(
        { jobId: job.jobId, fromNumber: job.fromNumber, toNumber: job.toNumber, quality: job.quality, totalPages, firstPage, ident: job.fromNumber, pages: faxPagesFromTiff(fax.tiff), ...(ecm === false ? { ecm } : {}) },
        {
          stage: (stage) => (log.info({ stage }, `stage ${stage}`), write({ stage }), this.observe({ type: 'progress', jobId: job.jobId, stage, totalPages })),
          pageConfirmed: (page) => (log.info({ page }, 'page confirmed'), write({ transferredPages: page }), this.observe({ type: 'progress', jobId: job.jobId, pageConfirmed: page, totalPages })),
          negotiated: (p) => this.observe({
            type: 'progress', jobId: job.jobId, totalPages,
            negotiated: { bitRate: p.modem.bitRate, modulation: p.modem.modulation, ecm: p.ecm, compression: p.coding, resolution: p.resolution },
          }),
        },
        abort.signal,
      ))
      .catch((err): CallResult => ({ code: ERRORS.INTERNAL.code, message: outcomeMessage('INTERNAL', String(err)), lastConfirmedPage: firstPage - 1, aborted: false, detail: {} }));
    await chain;
    const pagesTransferred = Math.max(0, result.lastConfirmedPage - firstPage + 1);
    // A call cut short by our own shutdown is an interrupted attempt, as after a crash: it
    // costs the job none of its attempts.
    const outcome = result.aborted
      ? { code: ERRORS.INTERNAL.code, message: 'Attempt interrupted: the service stopped', detail: { ...result.detail, interrupted: true } }
      : { code: result.code, message: result.message, detail: result.detail };
    const endMs = clock.now();
    const closed = { attempt, ...outcome, pagesTransferred };
    const callOutcome = result.aborted ? 'interrupted' : result.code === 0 ? 'delivered' : 'failed';
    this.metrics?.callDuration.observe([callOutcome], endMs - dialMs);
    this.metrics?.callPages.observe([callOutcome], pagesTransferred);
    log.info({ code: result.code, pages: result.lastConfirmedPage, aborted: result.aborted }, result.message);
    if (result.code === 0 && !result.aborted) {
      // The attempt is closed in the transaction that finishes the job.
      await this.finish(job, { status: 'delivered', code: 0, message: result.message, transferredPages: totalPages, detail: result.detail }, closed);
      return;
    }
    const attempts = await store.finishAttempt(job.jobId, attempt, { ...closed, nowMs: endMs });
    if (result.aborted) {
      await store.requeueJob(job.jobId, owner, clock.now(), clock.now());
      return;
    }
    const made = attempts.filter((a) => !a.detail.interrupted).length;
    const decision = decideRetry(result.code, made, linePolicy(this.o.config, job.line));
    const nextAt = clock.now() + (decision.retry ? decision.delayMs : 0);
    if (decision.retry && nextAt < job.deadlineMs) {
      log.info({ nextAt, code: result.code }, 'retry scheduled');
      await store.requeueJob(job.jobId, owner, nextAt, clock.now());
      return;
    }
    await this.finish(job, { status: 'failed', code: result.code, message: result.message, transferredPages: result.lastConfirmedPage, detail: result.detail });
  }

  /** Finishes the job (and closes `attempt`, the call that ended it, in the same transaction). */
  private async finish(job: JobRecord, outcome: TerminalOutcome, attempt?: FinishedAttempt): Promise<void> {
    const now = this.o.clock.now();
    const done = await this.o.store.completeJob({ jobId: job.jobId, owner: this.o.owner, outcome, nowMs: now, event: (j) => jobEvent(j, now), ...(attempt ? { attempt } : {}) });
    if (done) {
      this.o.logger.info({ jobId: job.jobId, faxStatus: done.status, code: done.code }, 'job finished');
      this.o.onEvent?.();
      this.observe({ type: 'completed', job: done });
    }
  }

  /** Tells the in-process observer; its exceptions are its own. */
  private observe(event: JobEvent): void {
    try {
      this.o.onJobEvent?.(event);
    } catch (err) {
      this.o.logger.error({ err }, 'job event observer failed');
    }
  }

  /** Renews the lease (and a shared channel's hold) every third of its length; losing either aborts the call. */
  private heartbeat(jobId: number, abort: AbortController, log: Logger, renewChannel?: (jobId: number) => Promise<boolean>): { timer: TimerHandle | undefined; done: boolean } {
    const h: { timer: TimerHandle | undefined; done: boolean } = { timer: undefined, done: false };
    const beat = () => {
      if (h.done) return;
      h.timer = this.o.clock.setTimer(this.leaseMs / 3, () => {
        const renewals = Promise.all([this.o.store.renewLease(jobId, this.o.owner, this.o.clock.now() + this.leaseMs), renewChannel?.(jobId) ?? true]);
        void renewals.then(
          ([lease, channel]) => (lease && channel ? beat() : h.done || (log.warn({ lease, channel }, lease ? 'channel hold lost' : 'lease lost'), abort.abort())),
          (err) => (log.error({ err }, 'lease renewal failed'), beat()),
        );
      });
    };
    beat();
    return h;
  }
}

/** Errors of preparation become the job's code; bad page selections count as conversion failures. */
function asJobError(err: unknown): { code: number; message: string } {
  if (err instanceof FaxError) {
    if (err.kind === 'invalid' || err.kind === 'too_large' || err.kind === 'transmission' || err.kind === 'balance') {
      return err.code === ERRORS.INVALID_PARAMETER.code ? { code: ERRORS.CONVERSION_FAILED.code, message: outcomeMessage('CONVERSION_FAILED', err.message) } : { code: err.code, message: err.message };
    }
  }
  return { code: ERRORS.INTERNAL.code, message: outcomeMessage('INTERNAL', err instanceof Error ? err.message : String(err)) };
}

/**
 * Error correction off for the next attempt once an attempt with ECM failed during the pages
 * (page transfer failed, −3107, or the call dropped mid-fax, −3108): some far ends (and gateways
 * between) handle ECM badly, and a retry without it is what fax operators do. Training trouble
 * needs no such step: T.30 already falls back to lower rates within the call.
 */
function ecmFallback(attempts: readonly AttemptRecord[]): boolean {
  return attempts.some((a) => a.detail.ecm === true && (a.code === ERRORS.PAGE_FAILED.code || a.code === ERRORS.CALL_DROPPED.code));
}
