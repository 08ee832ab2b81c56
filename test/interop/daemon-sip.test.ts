// The whole service through a real SIP gateway (issue 6, Acceptance): jobs sent through the
// HTTP API with a live key go API → store → dispatcher → gateway pool → SipLine → SIPp
// (the gateway) → T.38 → the spandsp t38peer behind it. The service runs in-process
// (`serve --gateways` as startService) on a real clock, with a gateways file of two SIPp
// gateways chosen by prefix: one answers with T.38 (the page must arrive pixel-identical,
// with the attempt log and one signed fax.completed webhook), one answers 486 (-3101 in the
// job and in its webhook). One real-time call (~10 s) and one fast failure.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SystemClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/log.js';
import { loadGatewaysFile } from '../../src/cli/daemon.js';
import { startService, type RunningService } from '../../src/service.js';
import { callApi, inline, signatureValid, startReceiver, type ReceivedRequest, type Receiver } from '../e2e/harness.js';
import { SpandspPeer } from './peer.js';
import { runPeerRealtime, sippMissing, startSipp, type Sipp } from './sip/harness.js';
import { buildPeer, INTEROP_REQUIRED } from './spandsp/build.js';
import { compareFaxTiffs } from './tiff-compare.js';

const missing = sippMissing();
const t38Build = buildPeer();
const runnable = !missing && t38Build.ok;

const OK_NUMBER = '+14155550123';
const BUSY_NUMBER = '+14165550486';

interface Outcome {
  status: string;
  code: number;
  message: string;
  transferredPages: number;
  attempts: number;
  line: string;
  chargedCents: number;
}

describe.skipIf(!runnable && !INTEROP_REQUIRED)('service with a SIP gateways file: API → store → daemon → SIP → T.38 → spandsp', () => {
  const dir = mkdtempSync(join(tmpdir(), 'faxstack-daemon-sip-'));
  const received = join(dir, 'received.tif');
  let peer: SpandspPeer | undefined;
  let peerClock: { stop(): Promise<void> } | undefined;
  let okSipp: Sipp | undefined;
  let busySipp: Sipp | undefined;
  let svc: RunningService | undefined;
  let rcv: Receiver | undefined;
  const stopped = { service: false };

  const stop = async () => {
    if (!stopped.service) await svc?.close();
    stopped.service = true;
  };

  beforeAll(async () => {
    if (!runnable) return; // the first test reports what is missing (CI)
    peer = await SpandspPeer.start(t38Build.ok ? t38Build.binary : '', { role: 'receive', tiff: received, ecm: true });
    peerClock = runPeerRealtime(peer);
    okSipp = await startSipp('uas-t38.xml', { transport: 'udp', keys: { t38_port: peer.port } });
    busySipp = await startSipp('uas-486.xml', { transport: 'udp', calls: 2 });
    rcv = await startReceiver();
    // The gateways file as an operator writes it (parsed by the same validator as --gateways).
    const file = join(dir, 'gateways.json');
    writeFileSync(file, JSON.stringify({
      line: 'pstn',
      retry: { maxAttempts: 2, retryDelaysMs: [1000] },
      gateways: [
        { name: 'sipp-t38', address: `127.0.0.1:${okSipp.port}`, transport: 'udp', media: 't38', channels: 2, prefixes: ['+1415'], callerId: '+14155550100' },
        { name: 'sipp-busy', address: `127.0.0.1:${busySipp.port}`, transport: 'udp', media: 't38-or-audio', channels: 1, prefixes: ['+1416'], rewrite: [{ match: '^\\+1(\\d{10})$', replace: '1$1' }] },
      ],
    }, null, 2));
    svc = await startService({
      dataDir: join(dir, 'data'), port: 0, host: '127.0.0.1', clock: new SystemClock(), logger: silentLogger, gateways: loadGatewaysFile(file),
    });
  }, 60_000);

  afterAll(async () => {
    await stop();
    await rcv?.close();
    await peerClock?.stop();
    okSipp?.kill();
    busySipp?.kill();
    peer?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has sipp and the spandsp t38peer', () => {
    expect([missing ?? '', t38Build.ok ? '' : t38Build.reason]).toEqual(['', '']);
  });

  it('delivers through T.38 pixel-identical with the attempt log; 486 fails with -3101; one signed webhook each', async () => {
    const s = svc!;
    const created = await s.store.createAccount({ name: 'sip', balanceCents: 1000, faxNumber: '+14155550100', webhookUrl: rcv!.url, nowMs: Date.now() });
    const key = created.liveKey;
    const send = async (faxNumber: string) => {
      const r = await callApi<{ jobId: number }>(`${s.url}/v1/customer/fax-send`, { key, json: { faxNumber, faxQuality: 'Low', faxData: [inline(1)] } });
      expect(r.http, r.raw).toBe(200);
      return r.body.data.jobId;
    };
    const okJob = await send(OK_NUMBER);
    const busyJob = await send(BUSY_NUMBER);

    // A real call on a real clock: poll the store (bounded), never a fixed sleep.
    const deadline = Date.now() + 90_000;
    const job = async (id: number) => (await s.store.getJobById(id)) as unknown as Outcome;
    while ((await job(okJob)).status === 'sending' || (await job(busyJob)).status === 'sending') {
      if (Date.now() > deadline) throw new Error(`jobs still sending: ${JSON.stringify([await job(okJob), await job(busyJob)])}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const okSip = await okSipp!.done;
    const busySip = await busySipp!.done;

    // The delivered job, its attempt log and the page at the peer.
    const ok = await job(okJob);
    const okAttempts = await s.store.attempts(okJob);
    const ctx = `${ok.message}\n${JSON.stringify(okAttempts)}\n${okSip.output.slice(-3000)}`;
    expect(ok, ctx).toMatchObject({ status: 'delivered', code: 0, transferredPages: 1, attempts: 1, line: 'pstn' });
    expect(ok.chargedCents).toBeGreaterThan(0);
    expect(okAttempts).toHaveLength(1);
    expect(okAttempts[0]).toMatchObject({
      attempt: 1, code: 0, pagesTransferred: 1,
      detail: { gateway: 'sipp-t38', dialed: OK_NUMBER, sipStatus: 200, media: 't38', bitRate: expect.any(Number), ecm: true, t30Code: 'T30_ERR_OK' },
    });
    expect(okSip.code, okSip.output).toBe(0);
    await new Promise((r) => setTimeout(r, 500)); // the peer's last frames (DCN) before it writes the file
    await peerClock!.stop();
    await peer!.quit();
    const download = await fetch(`${s.url}/v1/customer/fax-download?jobId=${okJob}&format=tiff`, { headers: { accessToken: key } });
    expect(download.status).toBe(200);
    const sent = join(dir, 'sent.tif');
    writeFileSync(sent, Buffer.from(await download.arrayBuffer()));
    const cmp = compareFaxTiffs(sent, received, dir, 'daemon-sip');
    expect(cmp.detail).toBe('');
    expect(cmp.identical).toBe(true);

    // The busy gateway: the number rewritten by its rule, 486 → line busy, tried again after the
    // backoff (busy is retried), then failed; nothing charged.
    const busy = await job(busyJob);
    expect(busy).toMatchObject({ status: 'failed', code: -3101, transferredPages: 0, attempts: 2, chargedCents: 0 });
    expect(busy.message).toContain('SIP 486');
    const busyAttempts = await s.store.attempts(busyJob);
    expect(busyAttempts.map((a) => [a.code, a.detail.gateway, a.detail.dialed, a.detail.sipStatus])).toEqual([
      [-3101, 'sipp-busy', '14165550486', 486],
      [-3101, 'sipp-busy', '14165550486', 486],
    ]);
    expect(busySip.code, busySip.output).toBe(0);

    // One signed fax.completed per job, with the job's outcome.
    const hooks = new Map<number, ReceivedRequest>();
    const hookDeadline = Date.now() + 30_000;
    while (hooks.size < 2) {
      const next = await Promise.race([rcv!.next(), new Promise<null>((r) => setTimeout(() => r(null), Math.max(0, hookDeadline - Date.now())))]);
      if (!next) throw new Error(`webhooks: ${hooks.size} of 2 arrived`);
      const body = JSON.parse(next.raw.toString()) as { data: { jobId: number } };
      hooks.set(body.data.jobId, next);
    }
    for (const [id, expected] of [[okJob, { faxStatus: 'delivered', code: 0, faxTransferredPages: 1 }], [busyJob, { faxStatus: 'failed', code: -3101, faxTransferredPages: 0 }]] as const) {
      const hook = hooks.get(id)!;
      expect(hook, `webhook of job ${id}`).toBeDefined();
      expect(signatureValid(hook.raw, created.account.webhookSecret, hook.headers['x-service-signature'])).toBe(true);
      expect(JSON.parse(hook.raw.toString())).toMatchObject({ event: 'fax.completed', data: { jobId: id, ...expected } });
    }
    await stop(); // the webhook worker has stopped: no second delivery can follow
    expect(rcv!.received).toHaveLength(2);
  }, 150_000);
});
