// Inbound SIP faxes (issue 6): SIPp calls our SipLine as the gateway would deliver a call, its
// media a spandsp t38peer sending a page in real time; the line answers with T.38, receives,
// hangs up, and hands the fax to its delivery callback — the page must be pixel-identical.
// CI covers inbound T.38 through the service (sip-inbound-service.test.ts); these line-level
// cases run with FAXSTACK_INTEROP_FULL=1 (real-time faxes, ~25 s each).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { InboundDelivery, InboundSummary } from '../../src/engine/sip-inbound.js';
import { SipLine, type SipLineOptions } from '../../src/engine/sip-line.js';
import { SpandspPeer } from './peer.js';
import { freeUdpPort, runPeerRealtime, sippMissing } from './sip/harness.js';
import { startSippUac } from './sip/uac.js';
import { buildPeer, INTEROP_REQUIRED } from './spandsp/build.js';
import { writeCaseDocument } from './t38-matrix.js';
import { compareFaxTiffs } from './tiff-compare.js';

const FULL = process.env.FAXSTACK_INTEROP_FULL === '1';
const missing = sippMissing();
const t38Build = buildPeer();
const runnable = !missing && t38Build.ok;
const dir = mkdtempSync(join(tmpdir(), 'faxstack-sip-in-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sentFile = join(dir, 'sent.tif');
writeCaseDocument({ quality: 'Low', compression: 'mmr', pages: 1 }, sentFile);

/** Our line listening for the call, SIPp calling it with a t38peer sending `sentFile` as its media. */
async function inbound(scenario: string, o: Partial<SipLineOptions> = {}) {
  const deliveries: InboundDelivery[] = [];
  let summary!: (s: InboundSummary) => void;
  const called = new Promise<InboundSummary>((resolve) => (summary = resolve));
  const trace: string[] = [];
  const line = new SipLine({
    name: 'sipp', address: '127.0.0.1:9', transport: 'udp', media: 't38-or-audio', localAddress: '127.0.0.1', localPort: await freeUdpPort(),
    trace: (d, t) => trace.push(`${d}: ${t}`),
    inbound: { onReceived: async (d) => void deliveries.push(d), onCall: (s) => summary(s) },
    ...o,
  });
  await line.ready();
  const peer = await SpandspPeer.start(t38Build.ok ? t38Build.binary : '', { role: 'send', tiff: sentFile, ecm: true });
  const clock = runPeerRealtime(peer);
  const sipp = await startSippUac(scenario, { target: await line.port(), transport: 'udp', keys: { t38_port: peer.port } });
  try {
    const s = await called;
    const exit = await sipp.done;
    await new Promise((r) => setTimeout(r, 300));
    await clock.stop();
    await peer.quit();
    return { summary: s, deliveries, sipp: exit, trace, peer };
  } finally {
    sipp.kill();
    peer.kill();
    await line.close();
  }
}

describe.skipIf(!runnable && !INTEROP_REQUIRED)('inbound SIP faxes (SIPp calls us, spandsp sends)', () => {
  it('has sipp and the spandsp peer', () => {
    expect([missing ?? '', t38Build.ok ? '' : t38Build.reason]).toEqual(['', '']);
  });

  it.skipIf(!FULL)('T.38 offered: answered with T.38, the page arrives pixel-identical, we hang up', async () => {
    const r = await inbound('uac-t38.xml');
    const ctx = `${r.summary.message}\n${r.trace.join('\n').slice(-4000)}\n${r.sipp.output}`;
    expect(r.summary, ctx).toMatchObject({ sipStatus: 200, media: 't38', code: 0, pages: 1, toNumber: '+15550002222', fromNumber: '+15550001111' });
    expect(r.deliveries).toHaveLength(1);
    const d = r.deliveries[0]!;
    expect(d).toMatchObject({ toNumber: '+15550002222', fromNumber: '+15550001111', quality: 'Low' });
    expect(d.fax.result.code).toBe(0);
    const received = join(dir, 'received-t38.tif');
    writeFileSync(received, d.fax.tiff!.data);
    const cmp = compareFaxTiffs(sentFile, received, dir, 'in-t38');
    expect(cmp.detail).toBe('');
    expect(cmp.identical).toBe(true);
    expect(r.sipp.code, r.sipp.output).toBe(0);
    expect(r.trace.some((t) => t.startsWith('send: BYE'))).toBe(true);
  }, 120_000);
});
