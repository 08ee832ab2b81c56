import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postWebhook, type PostOptions } from './post.js';

let server: Server | undefined;

async function serve(handler: Parameters<typeof createServer>[1]): Promise<URL> {
  server = createServer(handler);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
}

function opts(url: URL, signal = new AbortController().signal): PostOptions {
  return { url, body: '{"a":1}', headers: { 'Content-Type': 'application/json' }, signal, policy: { allowPrivateTargets: true }, maxResponseBytes: 1024 };
}

afterEach(async () => {
  if (!server) return;
  server.closeAllConnections();
  await new Promise<void>((r) => server!.close(() => r()));
  server = undefined;
});

describe('postWebhook', () => {
  it('sends the body with its length and reports the status', async () => {
    let got = '';
    let length = '';
    const url = await serve((req, res) => {
      length = req.headers['content-length'] ?? '';
      req.on('data', (c: Buffer) => (got += c.toString()));
      req.on('end', () => res.writeHead(204).end());
    });
    expect(await postWebhook(opts(url))).toEqual({ status: 204, error: null });
    expect(got).toBe('{"a":1}');
    expect(length).toBe('7');
  });

  it('stops reading a response past the cap (an endless body does not hold it)', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(512, 0x61);
      const pump = (): void => {
        while (res.write(chunk));
        res.once('drain', pump);
      };
      pump();
    });
    expect(await postWebhook(opts(url))).toEqual({ status: 200, error: null });
  });

  it('an abort before the answer is a timeout', async () => {
    const url = await serve(() => {
      /* never answers */
    });
    const ac = new AbortController();
    const p = postWebhook(opts(url, ac.signal));
    ac.abort();
    expect(await p).toEqual({ status: null, error: 'timed out' });
  });

  it('a refused connection is an error, not a rejection', async () => {
    const url = await serve(() => undefined);
    await new Promise<void>((r) => server!.close(() => r()));
    server = undefined;
    const r = await postWebhook(opts(url));
    expect(r.status).toBeNull();
    expect(r.error).toMatch(/ECONNREFUSED/);
  });
});
