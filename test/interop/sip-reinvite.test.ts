// Our own re-INVITE to T.38 (issue 6, T.38 Annex D): SIPp answers audio, its media spandsp's
// fax_state_t; once we hear CED we re-INVITE to T.38 (SipLine `reinviteT38`), SIPp accepts with
// spandsp's T.38 terminal as the new media, and the page must arrive there pixel-identical.
// With FAXSTACK_INTEROP_FULL=1 also glare: SIPp re-INVITEs at the same moment (both get 491),
// then its retry (the non-owner of the Call-ID retries first) moves the call to T.38.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SipLine } from '../../src/engine/sip-line.js';
import { FaxPeer } from './fax-audio/fax-peer.js';
import { SpandspPeer } from './peer.js';
import { runPeerRealtime, startSipp } from './sip/harness.js';
import { INTEROP_REQUIRED } from './spandsp/build.js';
import { compareFaxTiffs } from './tiff-compare.js';
import { sipTestSetup } from './sip/setup.js';

const { FULL, missing, t38Build, audioBuild, runnable, dir, sentFile, request } = sipTestSetup('faxstack-sip-reinvite-');

/** A call answered with audio (fax_state_t), moved to T.38 (t38peer) by a re-INVITE. */
async function audioThenT38(scenario: string) {
  const received = join(dir, `${scenario}.tif`);
  const t38 = await SpandspPeer.start(t38Build.ok ? t38Build.binary : '', { role: 'receive', tiff: received, ecm: true });
  const t38Clock = runPeerRealtime(t38);
  const audio = FaxPeer.start(audioBuild.ok ? audioBuild.binary : '', { role: 'receive', tiff: join(dir, 'audio-unused.tif'), ecm: true, transport: { kind: 'udp', codec: 'pcmu', local: '127.0.0.1:0', lockstep: false } });
  const trace: string[] = [];
  try {
    const audioPort = Number((await audio.address).split(':').pop());
    const sipp = await startSipp(scenario, { transport: 'udp', keys: { audio_port: audioPort, t38_port: t38.port } });
    const line = new SipLine({ name: 'sipp', address: `127.0.0.1:${sipp.port}`, transport: 'udp', localAddress: '127.0.0.1', media: 't38-or-audio', reinviteT38: true, trace: (d, t) => trace.push(`${d}: ${t}`) });
    try {
      const result = await line.call(request(), { stage: () => undefined, pageConfirmed: () => undefined }, new AbortController().signal);
      const s = await sipp.done;
      await new Promise((r) => setTimeout(r, 500)); // the peer's last frames (DCN)
      await t38Clock.stop();
      await t38.quit();
      return { result, sipp: s, received, trace };
    } finally {
      sipp.kill();
      await line.close();
    }
  } finally {
    await t38Clock.stop();
    t38.kill();
    audio.kill();
  }
}

function expectMovedAndDelivered(r: Awaited<ReturnType<typeof audioThenT38>>) {
  const ctx = `${r.result.message}\n${r.trace.join('\n').slice(-5000)}\n${r.sipp.output}`;
  expect(r.result.code, ctx).toBe(0);
  expect(r.result.detail).toMatchObject({ sipStatus: 200, media: 't38', t30Code: 'T30_ERR_OK' });
  const cmp = compareFaxTiffs(sentFile, r.received, dir, 'reinvite');
  expect(cmp.detail).toBe('');
  expect(cmp.identical).toBe(true);
  expect(r.sipp.code, r.sipp.output).toBe(0);
}

describe.skipIf(!runnable && !INTEROP_REQUIRED)('our re-INVITE to T.38 (SIPp, spandsp audio then T.38)', () => {
  it('has sipp and the spandsp peers', () => {
    expect([missing ?? '', t38Build.ok ? '' : t38Build.reason, audioBuild.ok ? '' : audioBuild.reason]).toEqual(['', '', '']);
  });

  it('audio answered: we re-INVITE on CED, the gateway accepts, the page arrives over T.38', async () => {
    const r = await audioThenT38('uas-audio-accept-reinvite.xml');
    expectMovedAndDelivered(r);
    // Our INVITE after the ACK: the re-offer with the image section, audio rejected.
    const reinvite = r.trace.filter((t) => t.startsWith('send: INVITE'))[1];
    expect(reinvite).toMatch(/m=audio 0 RTP\/AVP/);
    expect(reinvite).toMatch(/m=image [1-9]\d* udptl t38/);
  }, 120_000);

  it.skipIf(!FULL)('glare: both re-INVITE at once, 491 each way, the gateway retries first and the call moves', async () => {
    const r = await audioThenT38('uas-audio-glare.xml');
    expectMovedAndDelivered(r);
    expect(r.trace.some((t) => t.startsWith('recv: SIP/2.0 491'))).toBe(true);
    expect(r.trace.some((t) => t.startsWith('send: SIP/2.0 491'))).toBe(true);
    // Our retry found the call on T.38 already: no third INVITE of ours.
    expect(r.trace.filter((t) => t.startsWith('send: INVITE'))).toHaveLength(2);
  }, 120_000);
});
