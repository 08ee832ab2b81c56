// The webhook outbox facet (docs/api.md, webhooks): events inserted with the change that caused them,
// deliveries claimed by workers, attempts recorded with the next state. The JobStore keeps
// these methods for its callers and hands them to the facet (sqlite-outbox.ts, pg-outbox.ts).
import type { JobStore } from './types.js';

export type WebhookOutbox = Pick<
  JobStore,
  | 'insertEvent' | 'claimDueDeliveries' | 'recordDeliveryAttempt' | 'nextDeliveryDueAtMs'
  | 'listDeliveries' | 'deliveryAttempts' | 'getDeliveryByEventId' | 'redeliver'
>;
