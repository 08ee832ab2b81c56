// docs/api.md, request size: 20 MiB. A larger request is refused with -3005 / 413 while it is
// still streaming (never buffered past the limit); one just under the limit is accepted.
// (Pages, files and recipients limits: validation.test.ts and send.test.ts.)
import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NUM, expectError, startHarness, type Harness } from './harness.js';

const MiB = 1024 * 1024;
const LIMIT = 20 * MiB;

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

interface Streamed {
  /** 0 when the connection ended without a readable response. */
  status: number;
  body: string;
  /** Why the exchange ended without a response (e.g. EPIPE after the server reset the connection). */
  error: string | null;
  /** Body bytes handed to the socket when the response arrived. */
  writtenAtResponse: number;
}

/**
 * POSTs a chunked JSON body of up to `totalBytes`, one reused 1 MiB chunk at a time, honouring
 * backpressure; stops writing once a response arrives or the server cuts the connection (it
 * closes it after its 413, so a write may fail with EPIPE/ECONNRESET while the 413 is on its way).
 */
async function streamBody(url: string, key: string, totalBytes: number): Promise<Streamed> {
  const req = httpRequest(url, { method: 'POST', agent: false, headers: { accessToken: key, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' } });
  let res: IncomingMessage | undefined;
  let writeError: Error | undefined;
  req.on('error', (err) => (writeError = err));
  const responded = new Promise<IncomingMessage>((resolve) => req.once('response', (r: IncomingMessage) => resolve((res = r))));
  const closed = new Promise<void>((resolve) => req.once('close', () => resolve()));
  const chunk = Buffer.alloc(MiB, 'A');
  let written = 0;
  req.write(`{"faxNumber":"${NUM.ok}","faxData":[{"fileName":"big.txt","fileData":"`);
  while (!res && !writeError && written < totalBytes) {
    // Let the event loop read the socket before writing again: a write into a connection the
    // server has already reset fails synchronously and would drop its unread 413.
    await new Promise((resolve) => setImmediate(resolve));
    if (res || writeError) break;
    const more = req.write(chunk);
    written += chunk.length;
    if (!more) await Promise.race([once(req, 'drain').catch(() => undefined), responded, closed]);
  }
  const writtenAtResponse = written;
  if (!res && !writeError) req.end('"}]}');
  // 'response' comes before 'close' whenever a response was read.
  const r = res ?? (await Promise.race([responded, closed.then(() => res)]));
  if (!r) return { status: 0, body: '', error: `no response, the connection ended after ${written} bytes: ${writeError?.message ?? 'closed'}`, writtenAtResponse };
  let body = '';
  r.on('data', (c: Buffer) => (body += c.toString()));
  await Promise.race([once(r, 'end'), once(r, 'close')]);
  req.destroy();
  return { status: r.statusCode ?? 0, body, error: null, writtenAtResponse };
}

describe('request size', () => {
  it('a chunked request past 20 MiB gets 413 (status -2, code -3005) while the client is still sending, without the server buffering it', async () => {
    const a = await h.account();
    // Server-side view of the same exchange: bytes read from the connection when the answer was complete.
    const served: { status: number; bytesRead: number }[] = [];
    h.svc.api.server.on('request', (req, res) => res.once('finish', () => served.push({ status: res.statusCode, bytesRead: req.socket.bytesRead })));
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const total = 256 * MiB;
    const r = await streamBody(`${h.base}/customer/fax-send`, a.testKey, total);
    const rssAfter = process.memoryUsage().rss;
    expect(served).toHaveLength(1);
    expect(served[0]!.status).toBe(413);
    expect(served[0]!.bytesRead).toBeGreaterThan(LIMIT);
    expect(served[0]!.bytesRead).toBeLessThan(LIMIT + 8 * MiB); // answered as soon as the limit was passed
    // The client must be able to read that 413 while it is still sending (not a connection reset).
    expect(r.error).toBeNull();
    expect(r.status).toBe(413);
    const env = JSON.parse(r.body) as { status: number; data: { code: number } };
    expect(env).toMatchObject({ status: -2, data: { code: -3005 } });
    expect(r.writtenAtResponse).toBeGreaterThanOrEqual(LIMIT - MiB);
    expect(r.writtenAtResponse).toBeLessThan(total / 4); // refused long before the end
    expect(rssAfter - rssBefore).toBeLessThan(100 * MiB);
    expect(await h.svc.store.listJobs(a.id, { limit: 5 })).toEqual([]);
    // The service is fine afterwards.
    expect((await h.call('/health')).http).toBe(200);
  });

  it('a declared Content-Length past 20 MiB is refused before any body byte is sent', async () => {
    const a = await h.account();
    const req = httpRequest(`${h.base}/customer/fax-send`, {
      method: 'POST', agent: false,
      headers: { accessToken: a.testKey, 'Content-Type': 'application/json', 'Content-Length': String(LIMIT + 1) },
    });
    req.on('error', () => undefined);
    req.flushHeaders();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    let body = '';
    res.on('data', (c: Buffer) => (body += c.toString()));
    await once(res, 'end');
    req.destroy();
    expect(res.statusCode).toBe(413);
    expect(JSON.parse(body)).toMatchObject({ status: -2, data: { code: -3005 } });
  });

  it('a request just under 20 MiB is read in full and accepted', async () => {
    const a = await h.account();
    // A text document whose base64 nearly fills the limit; one page of it is selected.
    const line = 'x'.repeat(79) + '\n';
    const docBytes = Math.floor(((LIMIT - 4096) * 3) / 4 / line.length) * line.length;
    const doc = Buffer.from(line.repeat(docBytes / line.length));
    const body = JSON.stringify({ faxNumber: NUM.ok, faxData: [{ fileName: 'big.txt', fileData: doc.toString('base64'), pages: ['1'] }] });
    expect(body.length).toBeGreaterThan(LIMIT - 8192);
    expect(body.length).toBeLessThanOrEqual(LIMIT);
    const r = await h.call('/customer/fax-send', { key: a.testKey, rawBody: body, contentType: 'application/json' });
    expect(r.http, r.raw).toBe(200);
    expect((await h.status(a, r.body.data.jobId as number)).body.data.faxTotalPages).toBe(1);
    // One byte more is too much.
    const over = body.slice(0, -1) + ' '.repeat(LIMIT - body.length + 1) + '}';
    expectError(await h.call('/customer/fax-send', { key: a.testKey, rawBody: over, contentType: 'application/json' }), 413, -2, -3005);
  });
});
