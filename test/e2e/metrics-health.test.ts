// Operator endpoints (issue 8): liveness and readiness probes, and /metrics in Prometheus text
// format — jobs by status and stage, pages sent, webhook backlog, this process's calls.
import { afterEach, describe, expect, it } from 'vitest';
import { NUM, inline, startHarness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The samples of a Prometheus text body: `name{labels}` → value. */
function samples(text: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const [key, value] = line.split(' ');
    m.set(key!, Number(value));
  }
  return m;
}

describe('operator endpoints', () => {
  it('/health/live and /health/ready answer 200 without a key', async () => {
    h = await startHarness();
    const base = h.svc.url;
    expect(await (await fetch(`${base}/health/live`)).json()).toEqual({ status: 'live' });
    const ready = await fetch(`${base}/health/ready`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready' }]);
  });

  it('/health/ready is 503 once the store no longer answers', async () => {
    h = await startHarness();
    const store = h.svc.store;
    const original = store.getAccount.bind(store);
    store.getAccount = async () => {
      throw new Error('connection lost');
    };
    try {
      const r = await fetch(`${h.svc.url}/health/ready`);
      expect([r.status, await r.json()]).toEqual([503, { status: 'not ready', reason: 'store unavailable' }]);
      expect((await fetch(`${h.svc.url}/health/live`)).status).toBe(200);
    } finally {
      store.getAccount = original;
    }
  });

  it('/metrics: jobs by stage, pages sent, webhook backlog and calls in progress in Prometheus text', async () => {
    h = await startHarness();
    const a = await h.account({ balanceCents: 1000, webhookUrl: 'http://127.0.0.1:9/unreachable' });
    const empty = await fetch(`${h.svc.url}/metrics`);
    expect(empty.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const before = await empty.text();
    expect(before).toContain('# TYPE faxstack_jobs gauge');
    expect(before).toContain('# TYPE faxstack_pages_sent_total counter');
    expect(samples(before).get('faxstack_pages_sent_total')).toBe(0);
    expect(samples(before).get('faxstack_calls_in_progress')).toBe(0);

    const sent = await h.send(a, { faxNumber: NUM.ok, faxData: [inline(2)] });
    const queued = await h.send(a, { faxNumber: NUM.ok2, faxData: [inline(1)], send_at: '2026-06-01T00:00:00Z' });
    expect([sent.http, queued.http]).toEqual([200, 200]);
    await h.finish(a, sent.body.data.jobId);

    const text = await (await fetch(`${h.svc.url}/metrics`)).text();
    const m = samples(text);
    expect(m.get('faxstack_jobs{status="delivered",stage=""}')).toBe(1);
    expect(m.get('faxstack_jobs{status="sending",stage="scheduled"}')).toBe(1);
    expect(m.get('faxstack_pages_sent_total')).toBe(2);
    expect(m.get('faxstack_webhook_backlog')).toBe(1); // fax.completed to an unreachable receiver, waiting for its retry
    expect(m.get('faxstack_calls_in_progress')).toBe(0);
  });
});
