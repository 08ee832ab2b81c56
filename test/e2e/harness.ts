// End-to-end harness: the embedded service started in-process on a temp data directory, on a
// real port, with a ManualClock; a real webhook receiver and a document server on loopback;
// helpers to call the API over HTTP and to drive simulated time until a condition holds.
// Nothing here sleeps: time moves only through the ManualClock, real I/O is awaited.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { expect } from 'vitest';
import { join } from 'node:path';
import { ManualClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/log.js';
import { startService, type RunningService, type ServiceOptions } from '../../src/service.js';
import { SqliteJobStore } from '../../src/store/index.js';

export const START_MS = Date.UTC(2026, 0, 5, 9, 0, 0);
export const PRICE_CENTS = 7;

// ------------------------------------------------------------------------------ documents

/** A plain-text document of `pages` fax pages (text paginates at 60 lines per page). */
export function textDoc(pages: number, label = 'page'): Buffer {
  const lines: string[] = [];
  for (let p = 1; p <= pages; p++) for (let l = 1; l <= 60; l++) lines.push(`${label} ${p} line ${l}`);
  return Buffer.from(lines.join('\n') + '\n');
}

export const b64 = (b: Buffer): string => b.toString('base64');

/** One attachment item with inline content. */
export function inline(pages = 1, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { fileName: `doc-${pages}p.txt`, fileData: b64(textDoc(pages)), ...extra };
}

/** A minimal little-endian TIFF with `pages` 1-bit pages of 8×8 pixels (0 → an empty TIFF). */
export function tiffDoc(pages: number): Buffer {
  const entries = 3;
  const ifdSize = 2 + entries * 12 + 4;
  const header = Buffer.alloc(8);
  header.write('II', 0, 'latin1');
  header.writeUInt16LE(42, 2);
  header.writeUInt32LE(pages === 0 ? 0 : 8, 4);
  const ifds: Buffer[] = [];
  for (let p = 0; p < pages; p++) {
    const b = Buffer.alloc(ifdSize);
    b.writeUInt16LE(entries, 0);
    const tag = (i: number, t: number, type: number, v: number) => {
      const o = 2 + i * 12;
      b.writeUInt16LE(t, o);
      b.writeUInt16LE(type, o + 2);
      b.writeUInt32LE(1, o + 4);
      if (type === 3) b.writeUInt16LE(v, o + 8);
      else b.writeUInt32LE(v, o + 8);
    };
    tag(0, 256, 3, 8); // ImageWidth
    tag(1, 257, 3, 8); // ImageLength
    tag(2, 258, 3, 1); // BitsPerSample
    b.writeUInt32LE(p === pages - 1 ? 0 : 8 + (p + 1) * ifdSize, 2 + entries * 12);
    ifds.push(b);
  }
  return Buffer.concat([header, ...ifds, Buffer.alloc(pages === 0 ? 8 : 0)]);
}

// ------------------------------------------------------------------------------ numbers

/** Virtual-line test numbers (docs/api.md decision 8): the last four digits choose the outcome. */
export const NUM = {
  ok: '+14155550123',
  ok2: '+14155550124',
  busy: '+14155550486',
  noAnswer: '+14155550480',
  noFax: '+14155550999',
  unreachable: '+14155550404',
  failAfter1: '+14155550107',
  dropAfter1: '+14155550108',
} as const;

// ------------------------------------------------------------------------------ API client

export interface Envelope<D = Record<string, unknown>> {
  status: number;
  message: string;
  data: D;
}

export interface ApiResponse<D = Record<string, unknown>> {
  http: number;
  headers: Headers;
  /** The parsed JSON body (an envelope for every API answer). */
  body: Envelope<D>;
  raw: string;
}

export interface CallOptions {
  key?: string | null;
  method?: string;
  /** JSON body (serialized) unless `form` or `rawBody` is given. */
  json?: unknown;
  /** Form body (already encoded) sent as application/x-www-form-urlencoded. */
  form?: string;
  rawBody?: string | Buffer;
  contentType?: string;
  query?: Record<string, string | number>;
  headers?: Record<string, string>;
}

export interface Account {
  id: number;
  liveKey: string;
  testKey: string;
  webhookSecret: string;
}

/** The in-process service on its embedded store: tests may look at the SQLite database itself (`svc.store.db`). */
export type SqliteService = RunningService & { store: SqliteJobStore };

export interface Harness<S extends RunningService = SqliteService> {
  svc: S;
  clock: ManualClock;
  dataDir: string;
  /** Base address including /v1. */
  base: string;
  options: ServiceOptions;
  account(o?: { balanceCents?: number; webhookUrl?: string | null }): Promise<Account>;
  call<D = Record<string, unknown>>(path: string, o?: CallOptions): Promise<ApiResponse<D>>;
  /** POST /customer/fax-send with a JSON body; `key` defaults to the account's test key. */
  send(acct: Account, body: Record<string, unknown>, o?: { live?: boolean; headers?: Record<string, string> }): Promise<ApiResponse<{ jobId: number; jobIds: number[] }>>;
  /** The fax object through fax-status. */
  status(acct: Account, jobId: number): Promise<ApiResponse<FaxObject>>;
  /** Advances the clock until the job is finished; returns its fax object. */
  finish(acct: Account, jobId: number, o?: { stepMs?: number; maxMs?: number }): Promise<FaxObject>;
  /** Stops the service gracefully and removes the data directory. */
  close(): Promise<void>;
}

export interface FaxObject {
  jobId: number;
  fromNumber: string;
  toNumber: string;
  faxCallLength: number;
  faxCallStart: number;
  faxCallEnd: number;
  faxTotalPages: number;
  faxTransferredPages: number;
  faxStatus: 'sending' | 'delivered' | 'canceled' | 'failed';
  message: string;
  code: number;
  direction: 'sent' | 'received';
  stage: string | null;
  sendAt: string | null;
}

export type HarnessOptions = Omit<Partial<ServiceOptions>, 'clock'> & { clock?: ManualClock };

export async function startHarness(o: HarnessOptions = {}): Promise<Harness> {
  const dataDir = o.dataDir ?? (await mkdtemp(join(tmpdir(), 'faxstack-e2e-')));
  const clock = o.clock ?? new ManualClock(START_MS);
  const options: ServiceOptions = { port: 0, host: '127.0.0.1', logger: silentLogger, ...o, dataDir, clock };
  const svc = await startService(options);
  return harnessFor(svc, clock, dataDir, options);
}

export function harnessFor(running: RunningService, clock: ManualClock, dataDir: string, options: ServiceOptions): Harness {
  if (!(running.store instanceof SqliteJobStore)) throw new Error('the e2e harness runs the service on its embedded SQLite store');
  return harnessOn(running as SqliteService, clock, dataDir, options);
}

/** The harness on any store (`options.store` may be postgres://): `svc.store` is only a JobStore. */
export async function startHarnessOn(o: HarnessOptions = {}): Promise<Harness<RunningService>> {
  const dataDir = o.dataDir ?? (await mkdtemp(join(tmpdir(), 'faxstack-e2e-')));
  const clock = o.clock ?? new ManualClock(START_MS);
  const options: ServiceOptions = { port: 0, host: '127.0.0.1', logger: silentLogger, ...o, dataDir, clock };
  return harnessOn(await startService(options), clock, dataDir, options);
}

function harnessOn<S extends RunningService>(svc: S, clock: ManualClock, dataDir: string, options: ServiceOptions): Harness<S> {
  const base = `${svc.url}/v1`;
  const h: Harness<S> = {
    svc, clock, dataDir, base, options,
    async account(a = {}) {
      const c = await svc.store.createAccount({ name: 'e2e', balanceCents: a.balanceCents ?? 0, faxNumber: '+14155550100', webhookUrl: a.webhookUrl ?? null, nowMs: clock.now() });
      return { id: c.account.id, liveKey: c.liveKey, testKey: c.testKey, webhookSecret: c.account.webhookSecret };
    },
    call: (path, co = {}) => callApi(base + path, co),
    send: (acct, body, so = {}) =>
      callApi(base + '/customer/fax-send', { key: so.live ? acct.liveKey : acct.testKey, json: body, ...(so.headers ? { headers: so.headers } : {}) }),
    status: (acct, jobId) => callApi<FaxObject>(base + '/customer/fax-status', { key: acct.testKey, query: { jobId } }),
    async finish(acct, jobId, fo = {}) {
      // Polls the store, not the API: polling must not spend the account's rate limit.
      await runUntil(clock, async () => (await svc.store.getJobById(jobId))?.status !== 'sending', {
        stepMs: fo.stepMs ?? 250, maxMs: fo.maxMs ?? 120_000, what: `fax job ${jobId} to finish`,
      });
      const r = await h.status(acct, jobId);
      if (r.http !== 200) throw new Error(`fax-status ${jobId}: HTTP ${r.http} ${r.raw}`);
      return r.body.data;
    },
    async close() {
      await svc.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return h;
}

export async function callApi<D = Record<string, unknown>>(url: string, o: CallOptions = {}): Promise<ApiResponse<D>> {
  const u = new URL(url);
  for (const [k, v] of Object.entries(o.query ?? {})) u.searchParams.set(k, String(v));
  const headers: Record<string, string> = { Accept: 'application/json', ...(o.headers ?? {}) };
  if (o.key) headers.accessToken = o.key;
  let body: string | Buffer | undefined;
  if (o.form !== undefined) {
    body = o.form;
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
  } else if (o.rawBody !== undefined) {
    body = o.rawBody;
  } else if (o.json !== undefined) {
    body = JSON.stringify(o.json);
    headers['Content-Type'] = 'application/json';
  }
  if (o.contentType) headers['Content-Type'] = o.contentType;
  const method = o.method ?? (body === undefined ? 'GET' : 'POST');
  const res = await fetch(u, { method, headers, ...(body === undefined ? {} : { body }) });
  const raw = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  return { http: res.status, headers: res.headers, body: parsed as Envelope<D>, raw };
}

// ------------------------------------------------------------------------------ time

export interface RunUntilOptions {
  /** Simulated milliseconds per step. */
  stepMs?: number;
  /** Simulated milliseconds after which the wait fails. */
  maxMs?: number;
  what?: string;
}

/**
 * Advances the ManualClock in steps until `cond` holds; checks before the first step. Fails
 * after `maxMs` of simulated time with a message naming what was awaited.
 */
export async function runUntil(clock: ManualClock, cond: () => boolean | Promise<boolean>, o: RunUntilOptions = {}): Promise<number> {
  const stepMs = o.stepMs ?? 100;
  const maxMs = o.maxMs ?? 60_000;
  const start = clock.now();
  for (;;) {
    if (await cond()) return clock.now() - start;
    if (clock.now() - start >= maxMs) throw new Error(`runUntil: ${o.what ?? 'condition'} did not hold within ${maxMs} ms of simulated time`);
    await clock.advance(Math.min(stepMs, start + maxMs - clock.now()));
  }
}

// ------------------------------------------------------------------------------ webhook receiver

export type Answer = number | 'hang' | { status: number; headers?: Record<string, string> };

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  /** The ManualClock's time when the request arrived (when the receiver was given a clock). */
  atMs: number | null;
  /** The answer given (or 'hang'). */
  answer: Answer;
}

export interface Receiver {
  url: string;
  /** Stamps `atMs` on arriving requests (replace it when a restarted service gets a new clock). */
  clock: ManualClock | undefined;
  received: ReceivedRequest[];
  /** Queues answers for the next requests, in order; afterwards `fallback` applies. */
  answer(...answers: Answer[]): void;
  fallback: Answer;
  /** The next request not yet taken (in arrival order); waits for it. */
  next(): Promise<ReceivedRequest>;
  /** Requests that arrived and were not taken with next(). */
  pending(): number;
  /** Ends hanging requests (their sockets are destroyed). */
  releaseHung(): void;
  close(): Promise<void>;
}

/** A webhook receiver on loopback; `port` to come back on the address of one that was closed. */
export async function startReceiver(clock?: ManualClock, listenPort = 0): Promise<Receiver> {
  const queue: Answer[] = [];
  const arrived: ReceivedRequest[] = [];
  const waiters: ((r: ReceivedRequest) => void)[] = [];
  const hung = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = queue.length > 0 ? queue.shift()! : r.fallback;
      const rec: ReceivedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, raw: Buffer.concat(chunks), atMs: r.clock ? r.clock.now() : null, answer };
      r.received.push(rec);
      if (answer === 'hang') hung.add(res);
      else {
        const a = typeof answer === 'number' ? { status: answer } : answer;
        res.writeHead(a.status, a.headers ?? {});
        res.end(a.status === 204 || a.status === 304 ? undefined : 'ok');
      }
      const w = waiters.shift();
      if (w) w(rec);
      else arrived.push(rec);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(listenPort, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const r: Receiver = {
    url: `http://127.0.0.1:${port}/hooks/fax`,
    clock,
    received: [],
    fallback: 200,
    answer: (...a) => void queue.push(...a),
    next() {
      const first = arrived.shift();
      if (first) return Promise.resolve(first);
      return new Promise((resolve) => waiters.push(resolve));
    },
    pending: () => arrived.length,
    releaseHung() {
      for (const res of hung) res.destroy();
      hung.clear();
    },
    async close() {
      r.releaseHung();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return r;
}

/** Lowercase hex HMAC-SHA-256 of the raw body, compared in constant time (docs/api.md, webhooks). */
export function signatureValid(raw: Buffer, secret: string, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string' || !/^[0-9a-f]{64}$/.test(header)) return false;
  const expected = createHmac('sha256', secret).update(raw).digest();
  return timingSafeEqual(expected, Buffer.from(header, 'hex'));
}

// ------------------------------------------------------------------------------ document server

export interface DocServer {
  url(path: string): string;
  /** Serves `body` at `path` with `status`; `hold` keeps the response until release(path). */
  route(path: string, r: { status?: number; body?: Buffer; hold?: boolean }): void;
  release(path: string): void;
  /** Resolves when a request for `path` has arrived. */
  requested(path: string): Promise<void>;
  /** Requests received for `path` so far. */
  hits(path: string): number;
  close(): Promise<void>;
}

export async function startDocServer(): Promise<DocServer> {
  const routes = new Map<string, { status?: number; body?: Buffer; hold?: boolean }>();
  const held = new Map<string, (() => void)[]>();
  const seen = new Map<string, (() => void)[]>();
  const hits = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    for (const w of seen.get(path) ?? []) w();
    seen.delete(path);
    const r = routes.get(path) ?? { status: 404 };
    const send = () => {
      res.writeHead(r.status ?? 200, { 'Content-Type': 'application/octet-stream' });
      res.end(r.body ?? 'not found');
    };
    if (r.hold) held.set(path, [...(held.get(path) ?? []), send]);
    else send();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    route: (path, r) => void routes.set(path, r),
    release(path) {
      routes.set(path, { ...routes.get(path), hold: false });
      for (const send of held.get(path) ?? []) send();
      held.delete(path);
    },
    hits: (path) => hits.get(path) ?? 0,
    requested: (path) => (hits.has(path) ? Promise.resolve() : new Promise((resolve) => seen.set(path, [...(seen.get(path) ?? []), resolve]))),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ------------------------------------------------------------------------------ raw HTTP

/**
 * A request whose headers go out now and whose body is written later. With
 * `Expect: 100-continue` the server answers `100 Continue` when it emits the request to the
 * app; `continued` resolves then (the app's onRequest hook, authentication and rate limiting
 * included, has run by the time the client can read that answer).
 */
export interface OpenRequest {
  continued: Promise<void>;
  response: Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>;
  finish(body: string): void;
  destroy(): void;
}

export function openRequest(url: string, headers: Record<string, string>): OpenRequest {
  let onContinue!: () => void;
  const continued = new Promise<void>((resolve) => (onContinue = resolve));
  const req = httpRequest(url, { method: 'POST', headers: { ...headers, Expect: '100-continue' }, agent: false });
  const response = new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
    req.on('continue', onContinue);
    req.on('response', (res) => {
      onContinue(); // a final answer instead of 100 (e.g. refused on headers)
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
  });
  req.flushHeaders();
  return {
    continued,
    response,
    finish: (body) => void req.end(body),
    destroy: () => void req.destroy(),
  };
}

/** Asserts an error envelope (docs/api.md decision 5): HTTP status, envelope status, data.code, data.field. */
export function expectError(r: ApiResponse<unknown>, http: number, status: number, code: number, field?: string): void {
  const detail = `${r.http} ${r.raw}`;
  expect(r.http, detail).toBe(http);
  expect(keysOf(r.body as object), detail).toEqual(['data', 'message', 'status']);
  expect(r.body.status, detail).toBe(status);
  expect(typeof r.body.message, detail).toBe('string');
  expect(r.body.message.length, detail).toBeGreaterThan(0);
  const data = r.body.data as { code: number; field?: string };
  expect(data.code, detail).toBe(code);
  if (field === undefined) expect(data.field, detail).toBeUndefined();
  else expect(data.field, detail).toBe(field);
  expect(keysOf(data), detail).toEqual(field === undefined ? ['code'] : ['code', 'field']);
}

/** Keys of an object, sorted (exact field-set checks). */
export const keysOf = (o: object): string[] => Object.keys(o).sort();

export const FAX_OBJECT_FIELDS = [
  'jobId', 'fromNumber', 'toNumber', 'faxCallLength', 'faxCallStart', 'faxCallEnd', 'faxTotalPages',
  'faxTransferredPages', 'faxStatus', 'message', 'code', 'direction', 'stage', 'sendAt',
].sort();

/** docs/api.md, webhooks: the fax object without `direction` (and without the API-only stage/sendAt). */
export const EVENT_DATA_FIELDS = [
  'jobId', 'fromNumber', 'toNumber', 'faxCallLength', 'faxCallStart', 'faxCallEnd', 'faxTotalPages',
  'faxTransferredPages', 'faxStatus', 'message', 'code',
].sort();
