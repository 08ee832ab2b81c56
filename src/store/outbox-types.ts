// The webhook outbox facet of a JobStore (docs/api.md, webhooks): events inserted with the change
// that caused them, deliveries claimed by workers, attempts recorded with the next state. One
// implementation per engine (sqlite-outbox.ts, pg-outbox.ts), reached as `store.outbox`.

/** A webhook event to insert in the outbox atomically with the transition that caused it. */
export interface NewEvent {
  eventId: string;
  type: string;
  /** Exact raw body to POST (signed as is on every attempt). */
  body: string;
}

type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'skipped';

export interface DeliveryRecord {
  id: number;
  eventId: string;
  accountId: number;
  jobId: number | null;
  type: string;
  body: string;
  url: string | null;
  status: DeliveryStatus;
  /** Attempts made in the current cycle (a redelivery starts a new cycle). */
  attempts: number;
  nextAttemptAtMs: number | null;
  createdAtMs: number;
  leaseOwner: string | null;
  leaseUntilMs: number | null;
}

/** A delivery as claimed for sending: with the secret its body is signed with now. */
export interface ClaimedDelivery extends DeliveryRecord {
  /** The account's current webhook secret (a rotated secret applies to retries too); null when the account is gone. */
  signingSecret: string | null;
}

export interface DeliveryAttempt {
  deliveryId: number;
  attempt: number;
  atMs: number;
  httpStatus: number | null;
  latencyMs: number;
  error: string | null;
}

export interface WebhookOutbox {
  /** Leases due deliveries to `owner`, each with the account's current URL and signing secret. */
  claimDueDeliveries(input: { owner: string; nowMs: number; leaseMs: number; limit: number }): Promise<ClaimedDelivery[]>;
  /**
   * Records one attempt and the delivery's next state: delivered, failed for good, or
   * pending again at `nextAttemptAtMs`.
   */
  recordDeliveryAttempt(input: {
    deliveryId: number;
    owner: string;
    attempt: Omit<DeliveryAttempt, 'deliveryId' | 'attempt'>;
    next: { status: 'delivered' } | { status: 'failed' } | { status: 'pending'; nextAttemptAtMs: number };
  }): Promise<void>;
  nextDeliveryDueAtMs(): Promise<number | null>;
  listDeliveries(accountId: number, limit: number): Promise<DeliveryRecord[]>;
  deliveryAttempts(deliveryId: number): Promise<DeliveryAttempt[]>;
  getDeliveryByEventId(accountId: number, eventId: string): Promise<DeliveryRecord | null>;
  /** Starts a new delivery cycle for an event (same event id and body). */
  redeliver(accountId: number, eventId: string, nowMs: number): Promise<DeliveryRecord | null>;
  /** Inserts a standalone event (test events, received faxes). */
  insertEvent(accountId: number, jobId: number | null, event: NewEvent, nowMs: number): Promise<DeliveryRecord>;
}
