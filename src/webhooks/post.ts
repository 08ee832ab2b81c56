// One webhook POST over node:http/https: no redirects followed, no connection reuse, the
// response body read and discarded up to a cap, the whole exchange bounded by an AbortSignal
// (the worker aborts it from its injected clock).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { guardedLookup, type WebhookUrlPolicy } from './target.js';

export interface PostResult {
  /** HTTP status, or null when no response arrived. */
  status: number | null;
  /** Why no usable response arrived (network error, abort), else null. */
  error: string | null;
}

export interface PostOptions {
  url: URL;
  body: string;
  headers: Record<string, string>;
  signal: AbortSignal;
  policy: WebhookUrlPolicy;
  /** Response bytes read at most; the connection is dropped past it. */
  maxResponseBytes: number;
}

/** Never rejects: every outcome is a PostResult. */
export function postWebhook(opts: PostOptions): Promise<PostResult> {
  return new Promise<PostResult>((resolve) => {
    let status: number | null = null;
    let done = false;
    const finish = (error: string | null): void => {
      if (done) return;
      done = true;
      opts.signal.removeEventListener('abort', onAbort);
      resolve({ status, error: status === null ? error : null });
    };
    const onAbort = (): void => {
      req.destroy();
      finish('timed out');
    };

    const request = opts.url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(opts.url, {
      method: 'POST',
      headers: { ...opts.headers, 'Content-Length': String(Buffer.byteLength(opts.body)), Connection: 'close' },
      agent: false,
      lookup: guardedLookup(opts.policy),
    });
    if (opts.signal.aborted) return onAbort();
    opts.signal.addEventListener('abort', onAbort, { once: true });

    req.on('error', (err: NodeJS.ErrnoException) => finish(describeError(err)));
    req.on('response', (res: IncomingMessage) => {
      status = res.statusCode ?? null;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > opts.maxResponseBytes) {
          res.destroy();
          finish(null);
        }
      });
      res.on('end', () => finish(null));
      res.on('error', () => finish(null));
      res.on('close', () => finish(null));
    });
    req.end(opts.body);
  });
}

function describeError(err: NodeJS.ErrnoException): string {
  const code = err.code && !err.message.includes(err.code) ? `${err.code}: ` : '';
  return `${code}${err.message}`.slice(0, 500);
}
