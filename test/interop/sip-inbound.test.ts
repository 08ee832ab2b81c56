// Inbound SIP faxes (issue 6): SIPp calls our SipLine as the gateway would deliver a call, its
// media a spandsp sender in real time; the line answers (T.38 when offered, else G.711),
// receives, hangs up, and hands the fax to its delivery callback — the page must be pixel-identical.
// CI covers inbound T.38 through the service (sip-inbound-service.test.ts); these line-level
// cases — T.38, and G.711 received by our modems from spandsp's fax_state_t — run with
// FAXSTACK_INTEROP_FULL=1 (real-time faxes, ~25 s each).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { InboundDelivery, InboundSummary } from '../../src/engine/sip-inbound.js';
import { SipLine, type SipLineOptions } from '../../src/engine/sip-line.js';
import { buildFaxPeer, FaxPeer } from './fax-audio/fax-peer.js';
import { SpandspPeer } from './peer.js';
import { freeUdpPort, runPeerRealtime, sippMissing } from './sip/harness.js';
import { startSippUac } from './sip/uac.js';
import { buildPeer, INTEROP_REQUIRED } from './spandsp/build.js';
import { writeCaseDocument } from './t38-matrix.js';
import { compareFaxTiffs } from './tiff-compare.js';

const FULL = process.env.FAXSTACK_INTEROP_FULL === '1';
const missing = sippMissing();
const t38Build = buildPeer();
const audioBuild = buildFaxPeer();
const runnable = !missing && t38Build.ok && audioBuild.ok;
const dir = mkdtempSync(join(tmpdir(), 'faxstack-sip-in-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sentFile = join(dir, 'sent.tif');
writeCaseDocument({ quality: 'Low', compression: 'mmr', pages: 1 }, sentFile);

/** A spandsp sender as SIPp's media: the T.38 terminal (driven in real time) or fax_state_t over RTP. */
async function sender(kind: 't38' | 'audio' | 'both'): Promise<{ keys: Record<string, number>; stop(): Promise<void>; kill(): void }> {
  if (kind === 'both') {
    const [a, t] = await Promise.all([sender('audio'), sender('t38')]);
    return { keys: { ...a.keys, ...t.keys }, stop: async () => (await t.stop(), a.kill()), kill: () => (a.kill(), t.kill()) };
  }
  if (kind === 't38') {
    const peer = await SpandspPeer.start(t38Build.ok ? t38Build.binary : '', { role: 'send', tiff: sentFile, ecm: true });
    const clock = runPeerRealtime(peer);
    return { keys: { t38_port: peer.port }, stop: async () => (await clock.stop(), await peer.quit()), kill: () => peer.kill() };
  }
  const peer = FaxPeer.start(audioBuild.ok ? audioBuild.binary : '', { role: 'send', tiff: sentFile, ecm: true, transport: { kind: 'udp', codec: 'pcmu', local: '127.0.0.1:0', lockstep: false } });
  const port = Number((await peer.address).split(':').pop());
  return { keys: { audio_port: port }, stop: async () => void (await Promise.race([peer.exit, new Promise((r) => setTimeout(r, 3000))])), kill: () => peer.kill() };
}

/** Our line listening for the call, SIPp calling it with a spandsp sender of `sentFile` as its media. */
async function inbound(scenario: string, media: 't38' | 'audio' | 'both', o: Partial<SipLineOptions> = {}) {
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
  const peer = await sender(media);
  const sipp = await startSippUac(scenario, { target: await line.port(), transport: 'udp', keys: peer.keys });
  try {
    const s = await called;
    const exit = await sipp.done;
    await new Promise((r) => setTimeout(r, 300));
    await peer.stop();
    return { summary: s, deliveries, sipp: exit, trace };
  } finally {
    sipp.kill();
    peer.kill();
    await line.close();
  }
}

function expectReceived(r: Awaited<ReturnType<typeof inbound>>, media: 't38' | 'audio', name: string) {
  const ctx = `${r.summary.message}\n${r.trace.join('\n').slice(-4000)}\n${r.sipp.output}`;
  expect(r.summary, ctx).toMatchObject({ sipStatus: 200, media, code: 0, pages: 1, toNumber: '+15550002222', fromNumber: '+15550001111' });
  expect(r.deliveries).toHaveLength(1);
  const d = r.deliveries[0]!;
  expect(d).toMatchObject({ toNumber: '+15550002222', fromNumber: '+15550001111', quality: 'Low' });
  expect(d.fax.result.code).toBe(0);
  const received = join(dir, `received-${name}.tif`);
  writeFileSync(received, d.fax.tiff!.data);
  const cmp = compareFaxTiffs(sentFile, received, dir, name);
  expect(cmp.detail).toBe('');
  expect(cmp.identical).toBe(true);
  expect(r.sipp.code, r.sipp.output).toBe(0);
  expect(r.trace.some((t) => t.startsWith('send: BYE'))).toBe(true);
}

describe.skipIf(!runnable && !INTEROP_REQUIRED)('inbound SIP faxes (SIPp calls us, spandsp sends)', () => {
  it('has sipp and the spandsp peer', () => {
    expect([missing ?? '', t38Build.ok ? '' : t38Build.reason, audioBuild.ok ? '' : audioBuild.reason]).toEqual(['', '', '']);
  });

  it.skipIf(!FULL)('T.38 offered: answered with T.38, the page arrives pixel-identical, we hang up', async () => {
    expectReceived(await inbound('uac-t38.xml', 't38'), 't38', 'in-t38');
  }, 120_000);

  it.skipIf(!FULL)('G.711 offered: answered with PCMU, our modems receive in real time, pixel-identical', async () => {
    expectReceived(await inbound('uac-g711.xml', 'audio'), 'audio', 'in-g711');
  }, 120_000);

  it.skipIf(!FULL)('G.711 offered, reinviteT38: answered audio, our re-INVITE moves the call to T.38, pixel-identical', async () => {
    const r = await inbound('uac-audio-accept-reinvite.xml', 'both', { reinviteT38: true });
    expectReceived(r, 't38', 'in-reinvite');
    expect(r.trace.filter((t) => t.startsWith('send: INVITE'))).toHaveLength(1);
  }, 120_000);
});
