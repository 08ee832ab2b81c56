// The dashboard under /dashboard (docs/architecture.md, layer 11): sessions, CSRF, security headers
// and sign-in (the password check itself is src/accounts/) here; the sections (faxes, settings,
// webhooks, ...) in pages/, one module each, given a `Dashboard` (kit.ts). Every page is scoped to
// the signed-in account; an id of another account is a 404, exactly like an unknown one.
import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FaxError } from '../shared/errors.js';
import { AuthFailureLimiter, passwordHashOf, signIn } from '../accounts/index.js';
import { body, type Ctx, type Dashboard, type DashboardOptions, type Handler, type SignedIn } from './kit.js';
import { registerFaxPages } from './pages/faxes.js';
import { registerSettingsPages } from './pages/settings.js';
import { registerWebhookPages } from './pages/webhooks.js';
import { registerUserPages } from './pages/users.js';
import { permissionError, sessionUser } from './permissions.js';
import { registerSendPages } from './pages/send.js';
import { registerApiReference } from './pages/api-reference.js';
import { registerTemplatePages } from './pages/templates.js';
import { registerUploads, uploadError } from './uploads.js';
import { LIVE_JS } from './live.js';
import { cookieOptions, CSRF_COOKIE, newCsrfCookieValue, SESSION_COOKIE, SESSION_TTL_MS, SessionSigner } from './session.js';
import { layout, signInPage, type Frame, type Nav } from './views.js';
import { STYLE_CSS } from './style.js';
import { LOGO_SVG } from './icons.js';
import { registerHomePage } from './pages/home.js';
import { html, type Safe } from './html.js';

const NOTICES: Record<string, string> = {
  'url-saved': 'Webhook URL saved.',
  'test-sent': 'Test event queued: it appears in the delivery log below.',
  redelivered: 'Event queued for redelivery.',
  canceled: 'Fax canceled.',
  resent: 'Fax queued again.',
  'signed-out': 'You are signed out.',
  'key-revoked': 'Key revoked: requests with it are refused.',
  'caller-id-added': 'Caller ID added.',
  'caller-id-removed': 'Caller ID removed.',
  'password-changed': 'Password changed: sign in with the new one.',
  'user-added': 'User added.',
  'role-changed': 'Role changed.',
  'user-removed': 'User removed.',
  'password-set': 'Password set: their sessions have ended; tell them the new one.',
  sent: 'Fax queued: this page follows it while it is sending.',
  'sent-many': 'Faxes queued, one per recipient.',
  scheduled: 'Fax scheduled.',
  'template-added': 'Uploaded.',
  'template-deleted': 'Deleted: new faxes cannot use it; faxes already queued with it still do.',
};

export function registerDashboard(app: FastifyInstance, o: DashboardOptions): void {
  const signer = new SessionSigner(o.sessionSecret);
  const limiter = o.signInLimiter ?? new AuthFailureLimiter(o.clock, { maxFailures: 10, windowMs: 15 * 60_000 });
  app.register(fastifyCookie);

  async function context(req: FastifyRequest, reply: FastifyReply): Promise<Ctx> {
    const session = await signer.verify(req.cookies[SESSION_COOKIE], o.clock.now(), (accountId, userId) => passwordHashOf(o.store, accountId, userId));
    const found = session ? await o.store.getAccount(session.accountId) : null;
    const user = found && session ? await sessionUser(o.store, found, session.userId) : null;
    const account = user ? found : null;
    let csrfCookie = req.cookies[CSRF_COOKIE];
    if (!csrfCookie || !/^[A-Za-z0-9_-]{24}$/.test(csrfCookie)) {
      csrfCookie = newCsrfCookieValue();
      reply.setCookie(CSRF_COOKIE, csrfCookie, cookieOptions());
    }
    return { req, reply, session: account ? session : null, account, user, csrf: signer.csrfToken(csrfCookie, account ? session : null) };
  }

  function send(c: Ctx, status: number, body: string | Buffer, type = 'text/html; charset=utf-8'): FastifyReply {
    return c.reply.code(status).type(type).send(body);
  }

  function redirect(c: Ctx, to: string): FastifyReply {
    return c.reply.code(303).header('Location', to).send();
  }

  function page(c: Ctx, status: number, title: string, nav: Nav, body: Safe, extra: Partial<Frame> = {}): FastifyReply {
    const q = c.req.query as Record<string, unknown>;
    const notice = typeof q.done === 'string' ? (NOTICES[q.done] ?? null) : null;
    return send(c, status, layout({ title, nav, account: c.account, user: c.user, csrf: c.csrf, notice, ...extra }, body));
  }

  function problem(c: Ctx, status: number, message: string, back = '/dashboard'): FastifyReply {
    return page(c, status, status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : 'Something went wrong', null, html`<p><a href="${back}">Back</a></p>`, { error: message });
  }

  /** A page for signed-in users; POSTs need the CSRF token. FaxErrors become pages. */
  function route(method: 'GET' | 'POST', url: string, h: Handler, on: FastifyInstance = app): void {
    on.route({
      method, url,
      handler: async (req, reply) => {
        const c = await context(req, reply);
        if (method === 'POST' && !csrfOk(c)) return problem(c, 403, 'The form expired or did not come from this site: reload the page and try again.');
        if (!c.account || !c.session) return method === 'GET' ? redirect(c, '/dashboard/sign-in') : problem(c, 401, 'Sign in first.', '/dashboard/sign-in');
        const denied = permissionError(c.user!, method, url);
        if (denied) return problem(c, 403, `${denied.message} (error ${denied.code})`);
        try {
          return await h(c as SignedIn);
        } catch (err) {
          if (!(err instanceof FaxError)) throw err;
          return problem(c, err.kind === 'not_found' ? 404 : err.kind === 'conflict' ? 409 : err.kind === 'too_large' ? 413 : err.kind === 'permission' ? 403 : 400, err.message);
        }
      },
    });
  }

  /** Routes taking file uploads: multipart/form-data is parsed only in their plugin scope. */
  function uploads(register: (route: Dashboard['route']) => void): void {
    app.register(async (scope) => {
      await registerUploads(scope);
      scope.setErrorHandler(async (err, req, reply) => {
        const fe = uploadError(err);
        if (!fe) throw err;
        return problem(await context(req, reply), fe.kind === 'too_large' ? 413 : 400, fe.message);
      });
      register((method, url, h) => route(method, url, h, scope));
    });
  }

  function csrfOk(c: Ctx): boolean {
    return signer.checkCsrf(c.req.cookies[CSRF_COOKIE], c.session, body(c.req)._csrf);
  }

  app.addHook('onSend', async (req, reply) => {
    if (!req.url.startsWith('/dashboard')) return;
    reply.header('Content-Security-Policy', "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'same-origin');
  });

  app.get('/dashboard/live.js', async (_req, reply) => reply.type('text/javascript; charset=utf-8').header('Cache-Control', 'public, max-age=3600').send(LIVE_JS));
  app.get('/dashboard/style.css', async (_req, reply) => reply.type('text/css; charset=utf-8').header('Cache-Control', 'public, max-age=3600').send(STYLE_CSS));

  // The icon of every dashboard page, and the site's /favicon.ico (an SVG: browsers take it by its type).
  const favicon = async (_req: FastifyRequest, reply: FastifyReply) => reply.type('image/svg+xml').header('Cache-Control', 'public, max-age=86400').send(LOGO_SVG);
  app.get('/dashboard/favicon.svg', favicon);
  app.get('/favicon.ico', favicon);

  app.get('/dashboard', async (req, reply) => {
    const c = await context(req, reply);
    return redirect(c, c.account ? '/dashboard/home' : '/dashboard/sign-in');
  });

  app.get('/dashboard/sign-in', async (req, reply) => {
    const c = await context(req, reply);
    if (c.account) return redirect(c, '/dashboard/home');
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
    const who = await signIn(o.store, name, password);
    if (!who) {
      limiter.recordFailure(req.ip);
      return page(c, 401, 'Sign in', null, signInPage(c.csrf, name), { error: 'The account name or the password is wrong.' });
    }
    // A fresh CSRF cookie with the new session (no token from before sign-in stays valid; it
    // replaces one context() may have set).
    reply.setCookie(SESSION_COOKIE, signer.issue(who.accountId, who.userId, who.passwordHash, o.clock.now()), cookieOptions(SESSION_TTL_MS / 1000));
    reply.setCookie(CSRF_COOKIE, newCsrfCookieValue(), cookieOptions());
    return redirect(c, '/dashboard/home');
  });

  app.post('/dashboard/sign-out', async (req, reply) => {
    const c = await context(req, reply);
    if (!csrfOk(c)) return problem(c, 403, 'The form expired or did not come from this site: reload the page and try again.');
    reply.setCookie(SESSION_COOKIE, '', cookieOptions(0));
    return redirect(c, '/dashboard/sign-in?done=signed-out');
  });

  const d: Dashboard = { o, route, page, send, redirect, problem, uploads };
  registerHomePage(d);
  registerFaxPages(d);
  registerSettingsPages(d);
  registerWebhookPages(d);
  registerUserPages(d);
  registerSendPages(d);
  registerApiReference(d);
  registerTemplatePages(d);
}
