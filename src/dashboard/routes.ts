// The dashboard's routes under /dashboard (DESIGN.md: dashboard/): sign-in, settings (keys,
// balance, ledger), webhooks (URL, secret, test event, delivery log, redeliver) and faxes
// (list, detail with page previews, download, cancel, resend). Every page is scoped to the
// signed-in account; an id of another account is a 404, exactly like an unknown one.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../shared/clock.js';
import { FaxError } from '../shared/errors.js';
import type { Caller, FaxFiles, FaxService } from '../jobs/index.js';
import { CANCELABLE_STAGES, type Account, type FaxStatus, type JobStore, type KeyMode } from '../store/index.js';
import { EVENT_WEBHOOK_TEST, newEvent, testEventBody } from '../store/fax-object.js';
import { checkWebhookUrl, WebhookTargetError, type WebhookUrlPolicy } from '../webhooks/target.js';
import { AuthFailureLimiter } from '../api/rate-limit.js';
import { burnPasswordCheck, MAX_PASSWORD_LENGTH, verifyPassword } from './password.js';
import { cookie, CSRF_COOKIE, newCsrfCookieValue, parseCookies, SESSION_COOKIE, SESSION_TTL_MS, SessionSigner, type Session } from './session.js';
import { faxesPage, faxPage, layout, settingsPage, signInPage, webhooksPage, type Frame, type Nav } from './views.js';
import { STYLE_CSS } from './style.js';
import { html, type Safe } from './html.js';

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

interface Ctx {
  req: FastifyRequest;
  reply: FastifyReply;
  session: Session | null;
  account: Account | null;
  csrf: string;
  cookies: string[];
  secure: boolean;
}

const NOTICES: Record<string, string> = {
  'url-saved': 'Webhook URL saved.',
  'test-sent': 'Test event queued: it appears in the delivery log below.',
  redelivered: 'Event queued for redelivery.',
  canceled: 'Fax canceled.',
  resent: 'Fax queued again.',
  'signed-out': 'You are signed out.',
};

const STATUSES: readonly FaxStatus[] = ['sending', 'delivered', 'failed', 'canceled'];

export function registerDashboard(app: FastifyInstance, o: DashboardOptions): void {
  const signer = new SessionSigner(o.sessionSecret);
  const limiter = o.signInLimiter ?? new AuthFailureLimiter(o.clock, { maxFailures: 10, windowMs: 15 * 60_000 });

  async function context(req: FastifyRequest, reply: FastifyReply): Promise<Ctx> {
    const jar = parseCookies(req.headers.cookie);
    const secure = req.protocol === 'https';
    const session = await signer.verify(jar.get(SESSION_COOKIE), o.clock.now(), (id) => o.store.passwordHash(id));
    const account = session ? await o.store.getAccount(session.accountId) : null;
    const cookies: string[] = [];
    let csrfCookie = jar.get(CSRF_COOKIE);
    if (!csrfCookie || !/^[A-Za-z0-9_-]{24}$/.test(csrfCookie)) {
      csrfCookie = newCsrfCookieValue();
      cookies.push(cookie(CSRF_COOKIE, csrfCookie, { secure }));
    }
    return { req, reply, session: account ? session : null, account, csrf: signer.csrfToken(csrfCookie, account ? session : null), cookies, secure };
  }

  function send(c: Ctx, status: number, body: string | Buffer, type = 'text/html; charset=utf-8'): FastifyReply {
    if (c.cookies.length) c.reply.header('Set-Cookie', c.cookies);
    return c.reply.code(status).type(type).send(body);
  }

  function redirect(c: Ctx, to: string): FastifyReply {
    if (c.cookies.length) c.reply.header('Set-Cookie', c.cookies);
    return c.reply.code(303).header('Location', to).send();
  }

  function page(c: Ctx, status: number, title: string, nav: Nav, body: Safe, extra: Partial<Frame> = {}): FastifyReply {
    const q = c.req.query as Record<string, unknown>;
    const notice = typeof q.done === 'string' ? (NOTICES[q.done] ?? null) : null;
    return send(c, status, layout({ title, nav, account: c.account, csrf: c.csrf, notice, ...extra }, body));
  }

  function problem(c: Ctx, status: number, message: string, back = '/dashboard'): FastifyReply {
    return page(c, status, status === 404 ? 'Not found' : 'Something went wrong', null, html`<p><a href="${back}">Back</a></p>`, { error: message });
  }

  type Handler = (c: Ctx & { account: Account; session: Session }) => Promise<FastifyReply>;
  /** A page for signed-in users; POSTs need the CSRF token. FaxErrors become pages. */
  function route(method: 'GET' | 'POST', url: string, h: Handler): void {
    app.route({
      method, url,
      handler: async (req, reply) => {
        const c = await context(req, reply);
        if (method === 'POST' && !csrfOk(c)) return problem(c, 403, 'The form expired or did not come from this site: reload the page and try again.');
        if (!c.account || !c.session) return method === 'GET' ? redirect(c, '/dashboard/sign-in') : problem(c, 401, 'Sign in first.', '/dashboard/sign-in');
        try {
          return await h(c as Ctx & { account: Account; session: Session });
        } catch (err) {
          if (!(err instanceof FaxError)) throw err;
          return problem(c, err.kind === 'not_found' ? 404 : err.kind === 'conflict' ? 409 : 400, err.message);
        }
      },
    });
  }

  function csrfOk(c: Ctx): boolean {
    const jar = parseCookies(c.req.headers.cookie);
    return signer.checkCsrf(jar.get(CSRF_COOKIE), c.session, body(c.req)._csrf);
  }

  app.addHook('onSend', async (req, reply) => {
    if (!req.url.startsWith('/dashboard')) return;
    reply.header('Content-Security-Policy', "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'same-origin');
  });

  app.get('/dashboard/style.css', async (_req, reply) => reply.type('text/css; charset=utf-8').header('Cache-Control', 'public, max-age=3600').send(STYLE_CSS));

  app.get('/dashboard', async (req, reply) => {
    const c = await context(req, reply);
    return redirect(c, c.account ? '/dashboard/faxes' : '/dashboard/sign-in');
  });

  app.get('/dashboard/sign-in', async (req, reply) => {
    const c = await context(req, reply);
    if (c.account) return redirect(c, '/dashboard/faxes');
    return page(c, 200, 'Sign in', null, signInPage(c.csrf, ''));
  });

  app.post('/dashboard/sign-in', async (req, reply) => {
    const c = await context(req, reply);
    if (!csrfOk(c)) return problem(c, 403, 'The form expired or did not come from this site: reload the page and try again.', '/dashboard/sign-in');
    const b = body(req);
    const name = typeof b.name === 'string' ? b.name.slice(0, 200) : '';
    const password = typeof b.password === 'string' ? b.password : '';
    const block = limiter.blocked(req.ip);
    if (block.blocked) {
      reply.header('Retry-After', String(block.retryAfterSec));
      return page(c, 429, 'Sign in', null, signInPage(c.csrf, name), { error: `Too many failed sign-ins from this address: try again in ${block.retryAfterSec} s.` });
    }
    let accountId: number | null = null;
    let passwordHash = '';
    if (name && password && password.length <= MAX_PASSWORD_LENGTH) {
      const candidates = await o.store.signInCandidates(name);
      if (candidates.length === 0) await burnPasswordCheck(password);
      for (const cand of candidates) {
        if (await verifyPassword(password, cand.passwordHash)) ((accountId = cand.accountId), (passwordHash = cand.passwordHash));
        if (accountId !== null) break;
      }
    }
    if (accountId === null) {
      limiter.recordFailure(req.ip);
      return page(c, 401, 'Sign in', null, signInPage(c.csrf, name), { error: 'The account name or the password is wrong.' });
    }
    // A fresh CSRF cookie with the new session (no token from before sign-in stays valid).
    c.cookies.splice(0);
    c.cookies.push(cookie(SESSION_COOKIE, signer.issue(accountId, passwordHash, o.clock.now()), { secure: c.secure, maxAgeSec: SESSION_TTL_MS / 1000 }));
    c.cookies.push(cookie(CSRF_COOKIE, newCsrfCookieValue(), { secure: c.secure }));
    return redirect(c, '/dashboard/faxes');
  });

  app.post('/dashboard/sign-out', async (req, reply) => {
    const c = await context(req, reply);
    if (!csrfOk(c)) return problem(c, 403, 'The form expired or did not come from this site: reload the page and try again.');
    c.cookies.push(cookie(SESSION_COOKIE, '', { secure: c.secure, maxAgeSec: 0 }));
    return redirect(c, '/dashboard/sign-in?done=signed-out');
  });

  // -- settings: keys, balance, ledger
  const settings = async (c: Ctx & { account: Account }, fresh: { mode: KeyMode; key: string } | null) => {
    const [keys, ledger] = await Promise.all([o.store.apiKeys(c.account.id), o.store.ledger(c.account.id)]);
    return page(c, 200, 'Settings', 'settings', settingsPage(c.account, keys, ledger.slice(-100).reverse(), c.csrf, fresh));
  };
  route('GET', '/dashboard/settings', (c) => settings(c, null));
  route('POST', '/dashboard/settings/rotate-key', async (c) => {
    const mode = body(c.req).mode;
    if (mode !== 'live' && mode !== 'test') throw new FaxError('INVALID_PARAMETER', 'mode must be live or test');
    const key = await o.store.rotateApiKey(c.account.id, mode, o.clock.now());
    return settings(c, { mode, key });
  });

  // -- webhooks
  const webhooks = async (c: Ctx & { account: Account }, freshSecret: string | null) => {
    const list = await o.store.listDeliveries(c.account.id, 50);
    const views = await Promise.all(list.map(async (d) => ({ d, attempts: await o.store.deliveryAttempts(d.id) })));
    return page(c, 200, 'Webhooks', 'webhooks', webhooksPage(c.account, views, c.csrf, freshSecret));
  };
  route('GET', '/dashboard/webhooks', (c) => webhooks(c, null));
  route('POST', '/dashboard/webhooks/url', async (c) => {
    const raw = body(c.req).url;
    if (typeof raw !== 'string' || raw.length > 2048) throw new FaxError('INVALID_PARAMETER', 'the URL must be an http(s) URL of at most 2048 characters');
    let url: string | null = null;
    try {
      if (raw.trim() !== '') url = checkWebhookUrl(raw.trim(), o.webhookPolicy).toString();
    } catch (err) {
      if (err instanceof WebhookTargetError) throw new FaxError('INVALID_PARAMETER', err.message);
      throw err;
    }
    await o.store.setWebhook(c.account.id, { url });
    return redirect(c, '/dashboard/webhooks?done=url-saved');
  });
  route('POST', '/dashboard/webhooks/rotate-secret', async (c) => {
    const a = await o.store.setWebhook(c.account.id, { rotateSecret: true });
    return webhooks(c, a.webhookSecret);
  });
  route('POST', '/dashboard/webhooks/test', async (c) => {
    const now = o.clock.now();
    const d = await o.store.insertEvent(c.account.id, null, newEvent(EVENT_WEBHOOK_TEST, testEventBody(c.account.id, now)), now);
    if (d.status === 'skipped') throw new FaxError('CONFLICT', 'No webhook URL is set: save one first');
    o.onEvent?.();
    return redirect(c, '/dashboard/webhooks?done=test-sent');
  });
  route('POST', '/dashboard/webhooks/redeliver', async (c) => {
    const eventId = body(c.req).eventId;
    if (typeof eventId !== 'string' || eventId === '' || eventId.length > 100) throw new FaxError('INVALID_PARAMETER', 'eventId is required');
    const d = await o.store.redeliver(c.account.id, eventId, o.clock.now());
    if (!d) throw new FaxError('NOT_FOUND', `event ${eventId} (or no webhook URL is set)`);
    o.onEvent?.();
    return redirect(c, '/dashboard/webhooks?done=redelivered');
  });

  // -- faxes
  route('GET', '/dashboard/faxes', async (c) => {
    const q = c.req.query as Record<string, unknown>;
    const status = STATUSES.find((s) => s === q.status) ?? null;
    const number = typeof q.number === 'string' ? q.number.replace(/[^\d+]/g, '').slice(0, 32) : '';
    const before = typeof q.before === 'string' && /^\d{1,15}$/.test(q.before) ? Number(q.before) : undefined;
    const limit = 50;
    const jobs = await o.service.list(caller(c.account), { limit, ...(status ? { status } : {}), ...(number ? { number } : {}), ...(before ? { beforeJobId: before } : {}) });
    const older = jobs.length === limit ? `/dashboard/faxes?${new URLSearchParams({ ...(status ? { status } : {}), ...(number ? { number } : {}), before: String(jobs.at(-1)!.jobId) })}` : null;
    return page(c, 200, 'Faxes', 'faxes', faxesPage(jobs, { status, number }, older));
  });
  route('GET', '/dashboard/faxes/:id', async (c) => {
    const jobId = idParam(c.req, 'id');
    const job = await o.service.status(caller(c.account), jobId);
    const [attempts, docs, prepared] = await Promise.all([o.store.attempts(jobId), o.store.jobDocuments(jobId), o.store.preparedFax(c.account.id, jobId)]);
    const cancelable = job.status === 'sending' && job.stage !== null && CANCELABLE_STAGES.includes(job.stage);
    const resendable = job.status !== 'sending' && job.direction === 'sent';
    return page(c, 200, `Fax ${jobId}`, 'faxes', faxPage({ job, attempts, documents: docs.map((d) => ({ index: d.index, fileName: d.fileName })), pageCount: prepared?.pageCount ?? null, cancelable, resendable }, c.csrf));
  });
  route('GET', '/dashboard/faxes/:id/pages/:page', async (c) => {
    const jobId = idParam(c.req, 'id');
    const m = /^(\d{1,4})\.png$/.exec((c.req.params as Record<string, string>).page ?? '');
    if (!m || Number(m[1]) < 1) throw new FaxError('NOT_FOUND', 'no such page');
    const w = Number((c.req.query as Record<string, unknown>).width);
    const png = await o.files.preview(caller(c.account), jobId, Number(m[1]), Number.isInteger(w) && w >= 50 && w <= 2000 ? w : undefined);
    return send(c, 200, png, 'image/png');
  });
  for (const [ext, format, type] of [['pdf', 'pdf', 'application/pdf'], ['tif', 'tiff', 'image/tiff']] as const) {
    route('GET', `/dashboard/faxes/:id/download.${ext}`, async (c) => {
      const jobId = idParam(c.req, 'id');
      const data = await o.files.document(caller(c.account), jobId, format);
      c.reply.header('Content-Disposition', `attachment; filename="fax-${jobId}.${ext}"`);
      return send(c, 200, data, type);
    });
  }
  route('POST', '/dashboard/faxes/:id/cancel', async (c) => {
    const jobId = idParam(c.req, 'id');
    await o.service.cancel(caller(c.account), jobId);
    return redirect(c, `/dashboard/faxes/${jobId}?done=canceled`);
  });
  route('POST', '/dashboard/faxes/:id/resend', async (c) => {
    const jobId = idParam(c.req, 'id');
    const job = await o.service.status(caller(c.account), jobId);
    const fresh = await o.service.resend({ accountId: c.account.id, mode: job.keyMode }, jobId, null);
    return redirect(c, `/dashboard/faxes/${fresh}?done=resent`);
  });
}

/** The dashboard acts for the account; the key mode matters only for new sends (resend uses the job's). */
const caller = (a: Account): Caller => ({ accountId: a.id, mode: 'live' });

function body(req: FastifyRequest): Record<string, unknown> {
  const b = req.body;
  return typeof b === 'object' && b !== null && !Array.isArray(b) && !Buffer.isBuffer(b) ? (b as Record<string, unknown>) : {};
}

function idParam(req: FastifyRequest, name: string): number {
  const v = (req.params as Record<string, string>)[name] ?? '';
  if (!/^\d{1,15}$/.test(v)) throw new FaxError('NOT_FOUND', `fax job ${v}`);
  return Number(v);
}
