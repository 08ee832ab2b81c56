// Malformed HTTP below the API, on a raw socket: oversized headers and request lines, broken
// chunked encoding, Content-Length/Transfer-Encoding conflicts (request smuggling), a TLS hello
// on the plain port, bad percent-escapes in the path. Node's parser (or fastify's router) answers
// these before any route runs: the answer must be a 4xx — never a 5xx, never a second request
// smuggled through — and the service keeps serving. (These answers are fastify's own JSON, not
// the API envelope: reported, see the H6 report; the envelope cases are in requests.test.ts.)
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NUM, inline, startHarness, type Account, type Harness } from '../e2e/harness.js';

let h: Harness;
let a: Account;
let port = 0;
beforeAll(async () => {
  h = await startHarness();
  a = await h.account();
  port = Number(new URL(h.base).port);
});
afterAll(async () => {
  await h.close();
});

/** Writes `text` on a fresh connection and reads until the server closes it. */
function raw(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = connect(port, '127.0.0.1', () => c.end(text));
    let got = '';
    c.on('data', (d: Buffer) => (got += d.toString('latin1')));
    c.on('close', () => resolve(got));
    c.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' || e.code === 'EPIPE' ? resolve(got) : reject(e)));
  });
}

const statuses = (reply: string): number[] => [...reply.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((m) => Number(m[1]));
const post = (headers: string, body: string): string =>
  `POST /v1/customer/fax-send HTTP/1.1\r\nHost: x\r\naccessToken: ${a.testKey}\r\nContent-Type: application/json\r\n${headers}\r\n${body}`;

describe('malformed HTTP', () => {
  const smuggled = `GET /v1/customer/fax-list HTTP/1.1\r\nHost: x\r\naccessToken: ${'KEY'}\r\n\r\n`;
  const cases: [string, () => string, number][] = [
    ['a header block over 16 KB', () => post(`X-Junk: ${'j'.repeat(20_000)}\r\nContent-Length: 2\r\n`, '{}'), 431],
    ['a request line over 16 KB', () => `GET /v1/customer/fax-status?jobId=${'1'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
    ['a chunk size that is not hex', () => post('Transfer-Encoding: chunked\r\n', 'zz\r\nabc\r\n0\r\n\r\n'), 400],
    ['Content-Length and Transfer-Encoding together (smuggling)', () => post('Content-Length: 4\r\nTransfer-Encoding: chunked\r\n', `0\r\n\r\n${smuggled.replace('KEY', a.testKey)}`), 400],
    ['two different Content-Lengths', () => post('Content-Length: 2\r\nContent-Length: 40\r\n', '{}'), 400],
    ['a TLS ClientHello on the plain port', () => '\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03 hello\r\n\r\n', 400],
    ['a NUL in a header value', () => post('X-Evil: a\x00b\r\nContent-Length: 2\r\n', '{}'), 400],
    ['a bad percent-escape in the path', () => `GET /v1/customer/fax-st%ZZatus?jobId=1 HTTP/1.1\r\nHost: x\r\naccessToken: ${a.testKey}\r\nConnection: close\r\n\r\n`, 400],
  ];
  it.each(cases)('%s → %d, and nothing after it is served', async (_name, text, status) => {
    const reply = await raw(text());
    const got = statuses(reply);
    // One answer, the refusal; a smuggled second request must not have been answered.
    expect(got, reply.slice(0, 300)).toEqual([status]);
    // The refusal speaks the API's envelope, like every other error.
    const body = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4)) as { status: number; data: { code: number } };
    expect(body.status, reply.slice(0, 300)).toBe(-2);
    expect(body.data.code).toBe(-3000);
  });

  it('the service still serves after all of it', async () => {
    const r = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(1)] });
    expect(r.http, r.raw).toBe(200);
  });
});
