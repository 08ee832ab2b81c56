// Inbound faxes through the service (issue 6): a gateways file with `inbound`, the service
// (`serve --gateways`, in-process on a real clock) listening on that port, SIPp calling it as
// the gateway delivering a call to an account's number, a spandsp t38peer sending one page in
// real time. The fax must appear exactly as a virtual-line received fax does: a received job
// in the owner's account (pages pixel-identical to what spandsp sent) and a signed
// fax.received webhook. One real-time call (~15 s).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SystemClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/log.js';
import { loadGatewaysFile } from '../../src/cli/daemon.js';
import { startService, type RunningService } from '../../src/service.js';
import { signatureValid, startReceiver, type Receiver } from '../e2e/harness.js';
import { SpandspPeer } from './peer.js';
import { freeUdpPort, runPeerRealtime, sippMissing } from './sip/harness.js';
import { startSippUac } from './sip/uac.js';
import { buildPeer, INTEROP_REQUIRED } from './spandsp/build.js';
import { writeCaseDocument } from './t38-matrix.js';
import { compareFaxTiffs } from './tiff-compare.js';

const missing = sippMissing();
const t38Build = buildPeer();
const runnable = !missing && t38Build.ok;
const OWNER_NUMBER = '+15550002222';

describe.skipIf(!runnable && !INTEROP_REQUIRED)('service with an inbound SIP gateway: SIPp → SIP → T.38 → store → fax.received', () => {
  const dir = mkdtempSync(join(tmpdir(), 'faxstack-sip-in-svc-'));
  let svc: RunningService | undefined;
  let rcv: Receiver | undefined;
  afterAll(async () => {
    await svc?.close();
    await rcv?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has sipp and the spandsp t38peer', () => {
    expect([missing ?? '', t38Build.ok ? '' : t38Build.reason]).toEqual(['', '']);
  });

  it('stores the call as a received fax of the account owning the number, pixel-identical, with one signed fax.received', async () => {
    const sent = join(dir, 'sent.tif');
    writeCaseDocument({ quality: 'Low', compression: 'mmr', pages: 1 }, sent);
    rcv = await startReceiver();
    const sipPort = await freeUdpPort();
    const file = join(dir, 'gateways.json');
    writeFileSync(file, JSON.stringify({ line: 'pstn', gateways: [{ name: 'gw', address: '127.0.0.1:5060', transport: 'udp', media: 't38-or-audio', channels: 1, inbound: { port: sipPort } }] }));
    svc = await startService({ dataDir: join(dir, 'data'), port: 0, host: '127.0.0.1', clock: new SystemClock(), logger: silentLogger, gateways: loadGatewaysFile(file) });
    const owner = await svc.store.createAccount({ name: 'owner', balanceCents: 0, faxNumber: OWNER_NUMBER, webhookUrl: rcv.url, nowMs: Date.now() });

    const peer = await SpandspPeer.start(t38Build.ok ? t38Build.binary : '', { role: 'send', tiff: sent, ecm: true });
    const clock = runPeerRealtime(peer);
    const sipp = await startSippUac('uac-t38.xml', { target: sipPort, transport: 'udp', keys: { t38_port: peer.port, to_number: OWNER_NUMBER } });
    try {
      const exit = await sipp.done;
      expect(exit.code, exit.output).toBe(0);
      // The BYE came from us after phase E; the job is written right after: poll (bounded).
      const deadline = Date.now() + 20_000;
      let inbox = await svc.store.listJobs(owner.account.id, { limit: 10, direction: 'received' });
      while (inbox.length === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        inbox = await svc.store.listJobs(owner.account.id, { limit: 10, direction: 'received' });
      }
      expect(inbox).toHaveLength(1);
      const got = inbox[0]!;
      expect(got).toMatchObject({ direction: 'received', status: 'delivered', code: 0, fromNumber: '+15550001111', toNumber: OWNER_NUMBER, totalPages: 1, transferredPages: 1 });
      const received = join(dir, 'received.tif');
      writeFileSync(received, (await svc.store.preparedFax(owner.account.id, got.jobId))!.tiff);
      const cmp = compareFaxTiffs(sent, received, dir, 'in-svc');
      expect(cmp.detail).toBe('');
      expect(cmp.identical).toBe(true);

      const hook = await Promise.race([rcv.next(), new Promise<null>((r) => setTimeout(() => r(null), 20_000))]);
      expect(hook, 'fax.received webhook').not.toBeNull();
      expect(signatureValid(hook!.raw, owner.account.webhookSecret, hook!.headers['x-service-signature'])).toBe(true);
      expect(JSON.parse(hook!.raw.toString())).toMatchObject({ event: 'fax.received', data: { jobId: got.jobId, direction: 'received', faxStatus: 'delivered', faxTransferredPages: 1 } });
    } finally {
      await clock.stop();
      sipp.kill();
      peer.kill();
    }
  }, 120_000);
});
