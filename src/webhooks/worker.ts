// The webhook delivery worker (docs/api.md: webhooks, decision 11): claims due deliveries
// from the store's outbox, POSTs each signed body, and records every attempt with the next
// state. A delivery succeeds only on a 2xx within `timeoutMs` (3xx is not followed and
// counts as a failure). Attempt k that fails is followed by retry k after retryDelaysMs[k-1];
// when the last retry fails the delivery is `failed`. The schedule lives in the store, so a
// restart keeps it. All waiting goes through the injected Clock; on a shared store, another
// node's new event also wakes the worker through the store's change notification.
import type { Clock, TimerHandle } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import { LATENCY_BUCKETS_MS, statusClass, type Counter, type Histogram, type MetricsRegistry } from '../shared/metrics.js';
import type { ClaimedDelivery, JobStore } from '../store/index.js';
import { postWebhook, type PostResult } from './post.js';
import { signBody, SIGNATURE_HEADER } from './sign.js';
import { checkWebhookUrl, type WebhookUrlPolicy } from './target.js';

const MINUTE_MS = 60_000;
const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [5, 10, 20, 30, 60].map((m) => m * MINUTE_MS);

export interface WebhookWorkerOptions {
  store: JobStore;
  clock: Clock;
  /** Lease owner name, unique per process. */
  owner: string;
  logger: Logger;
  /** A delivery fails when no 2xx arrives within this time. */
  timeoutMs?: number;
  /** Wait before retry k (1-based) is retryDelaysMs[k-1]; its length is the retry limit. */
  retryDelaysMs?: readonly number[];
  /** Deliveries in flight at once. */
  concurrency?: number;
  /** How long a claimed delivery stays ours; must exceed timeoutMs. */
  leaseMs?: number;
  /** Wake-up at least this often, to see events other processes inserted. */
  pollMs?: number;
  userAgent?: string;
  /** Allow loopback/private targets (tests and local demos only). */
  allowPrivateTargets?: boolean;
  /** Response bytes read at most (the rest is dropped). */
  maxResponseBytes?: number;
  /** Where attempt round trips (on the clock) and outcomes are observed. */
  metrics?: MetricsRegistry;
}

export class WebhookWorker {
  private readonly store: JobStore;
  private readonly clock: Clock;
  private readonly owner: string;
  private readonly log: Logger;
  private readonly timeoutMs: number;
  private readonly retryDelaysMs: readonly number[];
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly userAgent: string;
  private readonly policy: WebhookUrlPolicy;
  private readonly maxResponseBytes: number;
  private readonly metrics: { duration: Histogram<'status_class'>; attempts: Counter<'outcome'> } | null;

  private stopped = true;
  /** The claim-and-schedule pass under way, if any. */
  private ticking: Promise<void> | null = null;
  /** notify() arrived during a pass: run another one after it. */
  private again = false;
  private wake: TimerHandle | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  /** The store's change subscription (shared stores), resolved to its unsubscribe function. */
  private subscription: Promise<(() => void) | undefined> | undefined;
  private idleWaiters: (() => void)[] = [];

  constructor(opts: WebhookWorkerOptions) {
    this.store = opts.store;
    this.clock = opts.clock;
    this.owner = opts.owner;
    this.log = opts.logger;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.retryDelaysMs = opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.concurrency = opts.concurrency ?? 4;
    this.leaseMs = opts.leaseMs ?? 60_000;
    this.pollMs = opts.pollMs ?? 30_000;
    this.userAgent = opts.userAgent ?? 'faxstack-webhooks/0.1';
    this.policy = { allowPrivateTargets: opts.allowPrivateTargets ?? false };
    this.maxResponseBytes = opts.maxResponseBytes ?? 64 * 1024;
    const m = opts.metrics;
    this.metrics = m
      ? {
          duration: m.histogram({
            name: 'faxstack_webhook_attempt_duration_seconds', help: 'Webhook POST round trips by response status class ("none": no response).',
            labelNames: ['status_class'], buckets: LATENCY_BUCKETS_MS, scale: 1000,
          }),
          attempts: m.counter({ name: 'faxstack_webhook_attempts_total', help: 'Webhook attempts by what followed: delivered, retry scheduled, or failed for good.', labelNames: ['outcome'] }),
        }
      : null;
    if (!(this.timeoutMs > 0)) throw new RangeError(`timeoutMs must be positive, got ${this.timeoutMs}`);
    if (!(this.leaseMs > this.timeoutMs)) throw new RangeError(`leaseMs (${this.leaseMs}) must exceed timeoutMs (${this.timeoutMs})`);
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${this.concurrency}`);
    if (!(this.pollMs > 0)) throw new RangeError(`pollMs must be positive, got ${this.pollMs}`);
    if (this.retryDelaysMs.some((d) => !(d >= 0))) throw new RangeError('retryDelaysMs must be non-negative');
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    // On a shared store, an event another node inserted is delivered at once, not at the next poll.
    // Once listening, look again: an event inserted while the subscription was being set up
    // sent its notification before anyone listened.
    this.subscription ??= this.store.onDeliveriesChanged?.(() => this.notify()).then(
      (unsubscribe) => {
        if (!this.stopped) this.notify();
        return unsubscribe;
      },
      (err: unknown) => {
        this.log.warn({ err }, 'no delivery change notifications: polling only');
        return undefined;
      },
    );
    this.notify();
  }

  /** Wakes the worker now (a new event was inserted, or a delivery finished). */
  notify(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.again = false;
    this.ticking = this.tick().finally(() => {
      this.ticking = null;
      if (this.again) this.notify();
      this.checkIdle();
    });
    // Simulated time waits for the pass (its store queries are real I/O on PostgreSQL): a
    // ManualClock must not run past the due time the pass is about to schedule its wake-up for.
    this.clock.hold?.(this.ticking);
  }

  /** Stops claiming; resolves once the deliveries in flight have been recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.clock.clearTimer(this.wake);
    this.wake = undefined;
    void this.subscription?.then((unsubscribe) => unsubscribe?.());
    this.subscription = undefined;
    await this.whenIdle();
  }

  /** Resolves when nothing is being claimed or delivered (tests, graceful shutdown). */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.ticking === null && this.inFlight.size === 0;
  }

  private checkIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Claims what is due (up to the free slots), then sets the next wake-up. */
  private async tick(): Promise<void> {
    try {
      for (;;) {
        const free = this.concurrency - this.inFlight.size;
        if (free <= 0) break; // a finishing delivery notifies again
        const claimed = await this.store.outbox.claimDueDeliveries({ owner: this.owner, nowMs: this.clock.now(), leaseMs: this.leaseMs, limit: free });
        for (const d of claimed) this.launch(d);
        if (claimed.length < free) break;
      }
      if (!this.stopped) await this.scheduleWake();
    } catch (err) {
      this.log.error({ err }, 'webhook worker: claiming deliveries failed');
      if (!this.stopped) this.setWake(this.pollMs);
    }
  }

  private async scheduleWake(): Promise<void> {
    // The store counts a leased delivery as due when its lease ends, so ours in flight do not
    // make this spin; the poll bounds the wait for events other processes insert.
    const next = await this.store.outbox.nextDeliveryDueAtMs();
    if (this.stopped) return;
    const delay = next === null ? this.pollMs : Math.min(this.pollMs, Math.max(0, next - this.clock.now()));
    // Due now but every slot busy: the delivery that finishes notifies.
    this.setWake(delay === 0 && this.inFlight.size >= this.concurrency ? this.pollMs : delay);
  }

  private setWake(delayMs: number): void {
    this.clock.clearTimer(this.wake);
    this.wake = this.clock.setTimer(delayMs, () => {
      this.wake = undefined;
      this.notify();
    });
  }

  private launch(d: ClaimedDelivery): void {
    const p: Promise<void> = this.deliver(d)
      .catch((err: unknown) => this.log.error({ err, deliveryId: d.id, eventId: d.eventId }, 'webhook delivery failed to record'))
      .finally(() => {
        this.inFlight.delete(p);
        this.notify();
        this.checkIdle();
      });
    this.inFlight.add(p);
  }

  private async deliver(d: ClaimedDelivery): Promise<void> {
    const attempt = d.attempts + 1;
    const startMs = this.clock.now();
    const result = await this.send(d, attempt);
    const endMs = this.clock.now();
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const error = ok ? null : (result.error ?? `HTTP ${result.status}`);
    const delay = this.retryDelaysMs[attempt - 1];
    const next = ok
      ? ({ status: 'delivered' } as const)
      : delay === undefined
        ? ({ status: 'failed' } as const)
        : ({ status: 'pending', nextAttemptAtMs: endMs + delay } as const);
    await this.store.outbox.recordDeliveryAttempt({
      deliveryId: d.id,
      owner: this.owner,
      attempt: { atMs: startMs, httpStatus: result.status, latencyMs: endMs - startMs, error },
      next,
    });
    this.metrics?.duration.observe([statusClass(result.status)], endMs - startMs);
    this.metrics?.attempts.inc([next.status === 'pending' ? 'retry' : next.status]);
    const fields = { deliveryId: d.id, eventId: d.eventId, type: d.type, attempt, httpStatus: result.status, latencyMs: endMs - startMs };
    if (ok) this.log.info(fields, 'webhook delivered');
    else this.log.warn({ ...fields, error, next: next.status }, 'webhook delivery attempt failed');
  }

  /** One POST; every failure (bad target, network, timeout) comes back as a PostResult. */
  private async send(d: ClaimedDelivery, attempt: number): Promise<PostResult> {
    // The secret came with the claim: no round trip to the store for the account.
    if (d.signingSecret === null) return { status: null, error: 'account not found' };
    if (!d.url) return { status: null, error: 'no webhook URL configured' };
    let url: URL;
    try {
      url = checkWebhookUrl(d.url, this.policy);
    } catch (err) {
      return { status: null, error: (err as Error).message };
    }
    const ac = new AbortController();
    const timer = this.clock.setTimer(this.timeoutMs, () => ac.abort());
    try {
      return await postWebhook({
        url,
        body: d.body,
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': this.userAgent,
          // Signed with the current secret, so a rotated secret applies to retries too.
          [SIGNATURE_HEADER]: signBody(d.body, d.signingSecret),
          'X-Service-Event-Id': d.eventId,
          'X-Service-Event': d.type,
          'X-Service-Delivery-Attempt': String(attempt),
        },
        signal: ac.signal,
        policy: this.policy,
        maxResponseBytes: this.maxResponseBytes,
      });
    } catch (err) {
      // e.g. a header value node:http refuses; recorded as a failed attempt, never left leased
      return { status: null, error: (err as Error).message };
    } finally {
      this.clock.clearTimer(timer);
    }
  }
}
