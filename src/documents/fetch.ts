// SSRF-safe download of a `fileUrl` attachment (docs/api.md, fax-send). The host is resolved once,
// every address is checked against address-policy.ts, and the connection goes to that checked
// address (a custom `lookup`), so DNS cannot change its answer between check and connect.
// Redirects are followed by hand and checked again; size and total time are capped.

import type { LookupAddress } from 'node:dns';
import type http from 'node:http';
import { nodeDns, nodeNet } from '../shared/builtins.js';
import type { Clock } from '../shared/clock.js';
import { FaxError } from '../shared/errors.js';
import { blockedAddressReason } from './address-policy.js';

export interface FetchDocumentOptions {
  /** Largest body accepted, in bytes; larger → FILE_TOO_LARGE without reading the rest. */
  maxBytes: number;
  /** Budget for the whole download: DNS, every redirect hop, and the body. */
  timeoutMs: number;
  /** Redirects followed at most (default 5). */
  maxRedirects?: number;
  /** Host names (or IP literals) exempt from the address policy, e.g. a local document server. */
  allowHosts?: string[];
  /** Host name → addresses; defaults to the system resolver (dns.lookup, all addresses). */
  resolve?: (host: string) => Promise<string[]>;
  /** Skip the address policy entirely (development setups only). */
  allowPrivate?: boolean;
  userAgent?: string;
  /** Timer source for the time-out; defaults to real timers. */
  clock?: Pick<Clock, 'setTimer' | 'clearTimer'>;
  /**
   * Told about each hop's name lookup and address check (Clock.hold): real I/O that a simulated
   * clock must not run past. Only that part: the request itself waits on the far end, which a test
   * may hold until its clock has moved on.
   */
  hold?: (work: Promise<unknown>) => void;
}

interface FetchedDocument {
  data: Buffer;
  contentType: string | null;
  /** The URL the document finally came from, after redirects. */
  finalUrl: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const DEFAULT_MAX_REDIRECTS = 5;

type Hop = { kind: 'redirect'; status: number; location: string } | { kind: 'body'; data: Buffer; contentType: string | null };

const failed = (reason: string, cause?: unknown): FaxError =>
  new FaxError('DOWNLOAD_FAILED', reason, cause === undefined ? {} : { cause });

export async function fetchDocument(url: string, opts: FetchDocumentOptions): Promise<FetchedDocument> {
  const maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const ac = new AbortController();
  const onTimeout = (): void => ac.abort(failed(`timed out after ${opts.timeoutMs} ms`));
  const clock = opts.clock;
  const timer = clock ? clock.setTimer(opts.timeoutMs, onTimeout) : setTimeout(onTimeout, opts.timeoutMs);
  try {
    let current = parseTarget(url, 'the URL');
    for (let redirects = 0; ; redirects++) {
      const checking = checkedAddresses(current, opts);
      opts.hold?.(checking);
      const addresses = await untilAborted(checking, ac.signal);
      const hop = await request(current, addresses, opts, ac.signal);
      if (hop.kind === 'body') return { data: hop.data, contentType: hop.contentType, finalUrl: current.href };
      if (redirects >= maxRedirects) throw failed(`too many redirects (more than ${maxRedirects})`);
      let next: URL;
      try {
        next = new URL(hop.location, current);
      } catch {
        throw failed(`HTTP ${hop.status} redirect to an invalid URL from ${current.host}`);
      }
      current = parseTarget(next.href, `the redirect from ${current.host}`);
    }
  } finally {
    if (clock) clock.clearTimer(timer as ReturnType<Clock['setTimer']>);
    else clearTimeout(timer as ReturnType<typeof setTimeout>);
  }
}

/** http(s), a host, no credentials. */
function parseTarget(href: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    throw failed(`${what} is not a valid absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw failed(`${what} uses ${url.protocol.replace(/:$/, '')}; only http and https are fetched`);
  }
  if (url.username !== '' || url.password !== '') throw failed(`${what} contains credentials, which are refused`);
  if (url.hostname === '') throw failed(`${what} has no host`);
  return url;
}

const bareHost = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');

/** Resolves the host and applies the address policy to every address it has. */
async function checkedAddresses(url: URL, opts: FetchDocumentOptions): Promise<LookupAddress[]> {
  const host = bareHost(url);
  let addresses: string[];
  if (nodeNet().isIP(host) !== 0) {
    addresses = [host];
  } else {
    try {
      addresses = await (opts.resolve ?? systemResolve)(host);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw failed(`could not resolve ${host}: ${code}`, err);
    }
    if (addresses.length === 0) throw failed(`could not resolve ${host}: no addresses`);
  }
  const exempt = opts.allowPrivate === true || (opts.allowHosts ?? []).some((h) => h.replace(/^\[|\]$/g, '').toLowerCase() === host.toLowerCase());
  const out: LookupAddress[] = [];
  for (const address of addresses) {
    const family = nodeNet().isIP(address);
    if (family === 0) throw failed(`could not resolve ${host}: resolver returned ${JSON.stringify(address)}`);
    // Every address must pass: a resolver answering with one public and one private address
    // would otherwise let the connection land on the private one.
    const reason = exempt ? null : blockedAddressReason(address);
    if (reason) {
      const which = address === host ? `${host} is` : `${host} resolves to ${address},`;
      // Say which setting lets it through: a document server on the local network is a common, legitimate case.
      throw failed(`refused: ${which} a ${reason}; to allow it, add ${host} to the fetchAllowHosts setting (FAXSTACK_FETCH_ALLOW_HOSTS)`);
    }
    out.push({ address, family });
  }
  return out;
}

async function systemResolve(host: string): Promise<string[]> {
  const found = await nodeDns().promises.lookup(host, { all: true, verbatim: true });
  return found.map((a) => a.address);
}

function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e as Error);
      },
    );
  });
}

/** One GET to the checked addresses; resolves with the body or a redirect, rejects with a FaxError. */
async function request(url: URL, addresses: LookupAddress[], opts: FetchDocumentOptions, signal: AbortSignal): Promise<Hop> {
  // Loaded on the first download: commands that never fetch (faxstack render) start without them.
  const mod = url.protocol === 'https:' ? (await import('node:https')).default : (await import('node:http')).default;
  const host = bareHost(url);
  const where = `${url.origin}${url.pathname}`; // no query: it may hold a signed token
  return new Promise<Hop>((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | null, hop?: Hop): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (err) {
        req.destroy();
        reject(err);
      } else resolve(hop as Hop);
    };
    const onAbort = (): void => finish(signal.reason as Error);
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }

    // Connect to the addresses checked above, whatever DNS would say now.
    const lookup = (_h: string, o: { all?: boolean }, cb: (...args: unknown[]) => void): void => {
      if (o?.all) cb(null, addresses);
      else cb(null, (addresses[0] as LookupAddress).address, (addresses[0] as LookupAddress).family);
    };
    const req = mod.request({
      method: 'GET',
      hostname: host,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      headers: {
        host: url.host,
        'user-agent': opts.userAgent ?? 'faxstack-document-fetch',
        accept: '*/*',
        'accept-encoding': 'identity',
      },
      agent: false,
      lookup: lookup as unknown as http.RequestOptions['lookup'],
      ...(url.protocol === 'https:' && nodeNet().isIP(host) === 0 ? { servername: host } : {}),
    });
    signal.addEventListener('abort', onAbort, { once: true });

    req.on('error', (err: NodeJS.ErrnoException) => {
      finish(failed(`connection to ${url.host} failed: ${err.code ?? err.message}`, err));
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      if (REDIRECTS.has(status)) {
        const location = res.headers.location;
        res.destroy();
        if (!location) finish(failed(`HTTP ${status} without a Location header from ${where}`));
        else finish(null, { kind: 'redirect', status, location });
        return;
      }
      const statusText = `HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''}`;
      if (status === 404 || status === 410) return finish(new FaxError('IMAGE_NOT_FOUND', `${statusText} from ${where}`));
      if (status >= 400) return finish(failed(`${statusText} from ${where}`));
      if (status < 200 || status > 299) return finish(failed(`unexpected ${statusText} from ${where}`));

      const declared = res.headers['content-length'];
      if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > opts.maxBytes) {
        return finish(
          new FaxError('FILE_TOO_LARGE', `${where} declares ${declared} bytes (Content-Length); the limit is ${opts.maxBytes} bytes`),
        );
      }
      const chunks: Buffer[] = [];
      let total = 0;
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        total += chunk.length;
        if (total > opts.maxBytes) {
          finish(new FaxError('FILE_TOO_LARGE', `${where} sent more than ${opts.maxBytes} bytes; the limit is ${opts.maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => {
        if (!res.complete) return finish(failed(`the connection to ${url.host} closed before the whole document arrived`));
        if (total === 0) return finish(failed(`${where} sent an empty document`));
        const type = res.headers['content-type'];
        finish(null, { kind: 'body', data: Buffer.concat(chunks, total), contentType: type ?? null });
      });
      res.on('error', (err: NodeJS.ErrnoException) => {
        finish(failed(`the connection to ${url.host} closed before the whole document arrived (${err.code ?? err.message})`, err));
      });
      res.on('close', () => {
        if (!settled) finish(failed(`the connection to ${url.host} closed before the whole document arrived`));
      });
    });
    req.end();
  });
}
