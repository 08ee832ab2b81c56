// What every dashboard page module gets: the options, the signed-in context and the reply
// helpers (`Dashboard`), plus request helpers. Pages live in pages/, one module per section;
// routes.ts builds the `Dashboard` (sessions, CSRF, headers, sign-in) and registers them.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../shared/clock.js';
import { FaxError } from '../shared/errors.js';
import type { Caller, FaxFiles, FaxService } from '../jobs/index.js';
import type { Account, JobStore } from '../store/index.js';
import type { AuthFailureLimiter } from '../accounts/index.js';
import type { WebhookUrlPolicy } from '../webhooks/index.js';
import type { Session } from './session.js';
import type { DashboardUser } from './permissions.js';
import type { Frame, Nav } from './views.js';
import type { Safe } from './html.js';

export interface DashboardOptions {
  store: JobStore;
  service: FaxService;
  files: FaxFiles;
  clock: Clock;
  webhookPolicy: WebhookUrlPolicy;
  /** An event entered the outbox (test event, redelivery, cancel). */
  onEvent?: () => void;
  /** Signs session cookies; shared by every node behind one address. Random per process when absent. */
  sessionSecret?: string;
  /** Failed sign-ins per client address (default: 10 in 15 minutes). */
  signInLimiter?: AuthFailureLimiter;
}

export interface Ctx {
  req: FastifyRequest;
  reply: FastifyReply;
  session: Session | null;
  account: Account | null;
  /** Who is signed in (role checked by routes.ts against permissions.ts). */
  user: DashboardUser | null;
  csrf: string;
}

/** A signed-in request. */
export type SignedIn = Ctx & { account: Account; session: Session; user: DashboardUser };
export type Handler = (c: SignedIn) => Promise<FastifyReply>;

export interface Dashboard {
  o: DashboardOptions;
  /** A page for signed-in users; POSTs need the CSRF token. FaxErrors become pages. */
  route(method: 'GET' | 'POST', url: string, h: Handler): void;
  page(c: Ctx, status: number, title: string, nav: Nav, body: Safe, extra?: Partial<Frame>): FastifyReply;
  send(c: Ctx, status: number, body: string | Buffer, type?: string): FastifyReply;
  redirect(c: Ctx, to: string): FastifyReply;
  problem(c: Ctx, status: number, message: string, back?: string): FastifyReply;
  /** Registers routes that take file uploads (multipart/form-data, `_csrf` among the fields); see uploads.ts. */
  uploads(register: (route: Dashboard['route']) => void): void;
}

/** The dashboard acts for the account; the key mode matters only for new sends (resend uses the job's). */
export const caller = (a: Account): Caller => ({ accountId: a.id, mode: 'live' });

export function body(req: FastifyRequest): Record<string, unknown> {
  const b = req.body;
  return typeof b === 'object' && b !== null && !Array.isArray(b) && !Buffer.isBuffer(b) ? (b as Record<string, unknown>) : {};
}

export function idParam(req: FastifyRequest, name: string): number {
  const v = (req.params as Record<string, string>)[name] ?? '';
  if (!/^\d{1,15}$/.test(v)) throw new FaxError('NOT_FOUND', `fax job ${v}`);
  return Number(v);
}
