// SipLine against SIPp as the far-end gateway (issue 6, Acceptance): SIPp scenarios answer with
// T.38 at once, with audio then a re-INVITE to T.38, with G.711 only, with 486 / 480 / 404, with
// a digest challenge, and hang up mid-fax; spandsp is the media behind them (t38peer in real
// time, fax-peer over RTP G.711 in real time). Faxes that should arrive are compared pixel for
// pixel; failures must give the right code. Real-time faxes take 10-20 s each: `npm test` runs
// T.38 direct, audio → T.38, G.711 and the (fast) failures; FAXSTACK_INTEROP_FULL=1 the rest.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CallResult } from '../../src/engine/line.js';
import { SipLine, type SipLineOptions } from '../../src/engine/sip-line.js';
import { FaxPeer } from './fax-audio/fax-peer.js';
import { SpandspPeer } from './peer.js';
import { runPeerRealtime, startSipp, type Sipp } from './sip/harness.js';
import { INTEROP_REQUIRED } from './spandsp/build.js';
import { compareFaxTiffs } from './tiff-compare.js';
import { sipTestSetup } from './sip/setup.js';

const { FULL, missing, t38Build, audioBuild, runnable, dir, sentFile, request } = sipTestSetup('faxstack-sip-');

async function place(sipp: Sipp, o: Partial<SipLineOptions> & Pick<SipLineOptions, 'media'>, trace: string[]): Promise<CallResult> {
  const line = new SipLine({ name: 'sipp', address: `127.0.0.1:${sipp.port}`, transport: 'udp', localAddress: '127.0.0.1', trace: (d, t) => trace.push(`${d}: ${t}`), ...o });
  try {
    return await line.call(request(), { stage: () => undefined, pageConfirmed: () => undefined }, new AbortController().signal);
  } finally {
    await line.close();
  }
}

/** A call whose fax should reach the t38peer behind SIPp, pixel-identical. */
async function t38Fax(scenario: string, o: Partial<SipLineOptions> & Pick<SipLineOptions, 'media'>, keys: Record<string, number> = {}) {
  const received = join(dir, `${scenario}-${o.transport ?? 'udp'}.tif`);
  const peer = await SpandspPeer.start(t38Build.ok ? t38Build.binary : '', { role: 'receive', tiff: received, ecm: true });
  const clock = runPeerRealtime(peer);
  const sipp = await startSipp(scenario, { transport: o.transport ?? 'udp', keys: { t38_port: peer.port, ...keys } });
  const trace: string[] = [];
  try {
    const result = await place(sipp, o, trace);
    const s = await sipp.done;
    await new Promise((r) => setTimeout(r, 500)); // the peer's last frames (DCN)
    await clock.stop();
    await peer.quit();
    return { result, sipp: s, peer, received, trace };
  } finally {
    sipp.kill();
    peer.kill();
  }
}

function expectDelivered(r: { result: CallResult; received: string; trace: string[]; sipp: { code: number | null; output: string } }, media: 't38' | 'audio') {
  const ctx = `${r.result.message}\n${r.trace.join('\n').slice(-4000)}\n${r.sipp.output}`;
  expect(r.result.code, ctx).toBe(0);
  expect(r.result.detail).toMatchObject({ sipStatus: 200, media, t30Code: 'T30_ERR_OK' });
  expect(r.result.lastConfirmedPage).toBe(1);
  const cmp = compareFaxTiffs(sentFile, r.received, dir, media);
  expect(cmp.detail).toBe('');
  expect(cmp.identical).toBe(true);
  expect(r.sipp.code, r.sipp.output).toBe(0);
}

async function failing(scenario: string, transport: 'udp' | 'tcp' = 'udp'): Promise<CallResult> {
  const sipp = await startSipp(scenario, { transport });
  const trace: string[] = [];
  try {
    const result = await place(sipp, { media: 't38-or-audio', transport }, trace);
    await sipp.done;
    return result;
  } finally {
    sipp.kill();
  }
}

describe.skipIf(!runnable && !INTEROP_REQUIRED)('SIP gateway (SIPp) with spandsp media', () => {
  it('has sipp and the spandsp peers', () => {
    expect([missing ?? '', t38Build.ok ? '' : t38Build.reason, audioBuild.ok ? '' : audioBuild.reason]).toEqual(['', '', '']);
  });

  describe('failures give the right code', () => {
    it.each([
      ['uas-486.xml', 'udp', -3101, 486],
      ['uas-480.xml', 'udp', -3102, 480],
      ['uas-404.xml', 'udp', -3104, 404],
      ['uas-486.xml', 'tcp', -3101, 486],
    ] as const)('%s over %s → %i', async (scenario, transport, code, status) => {
      const r = await failing(scenario, transport);
      expect(r.code).toBe(code);
      expect(r.detail.sipStatus).toBe(status);
      expect(r.message).toContain(`SIP ${status}`);
      expect(r.aborted).toBe(false);
    });
  });

  it('T.38 answered at once: the page arrives pixel-identical', async () => {
    expectDelivered(await t38Fax('uas-t38.xml', { media: 't38' }), 't38');
  }, 120_000);

  it('audio answered, then re-INVITE to T.38: the call moves and the page arrives', async () => {
    const r = await t38Fax('uas-audio-reinvite-t38.xml', { media: 't38-or-audio' });
    expectDelivered(r, 't38');
    expect(r.trace.some((t) => t.startsWith('recv: INVITE'))).toBe(true);
  }, 120_000);

  it('G.711 only: our modems over RTP to spandsp fax_state_t, pixel-identical', async () => {
    const received = join(dir, 'g711.tif');
    const peer = FaxPeer.start(audioBuild.ok ? audioBuild.binary : '', { role: 'receive', tiff: received, ecm: true, transport: { kind: 'udp', codec: 'pcmu', local: '127.0.0.1:0', lockstep: false } });
    try {
      const address = await peer.address;
      const sipp = await startSipp('uas-g711.xml', { transport: 'udp', keys: { audio_port: Number(address.split(':').pop()) } });
      const trace: string[] = [];
      try {
        const result = await place(sipp, { media: 'audio' }, trace);
        const s = await sipp.done;
        const exit = await peer.exit;
        expect(exit.result?.completion, exit.stderr.slice(-2000)).toBe(0);
        expectDelivered({ result, received, trace, sipp: s }, 'audio');
      } finally {
        sipp.kill();
      }
    } finally {
      peer.kill();
    }
  }, 180_000);

  describe.skipIf(!FULL)('FAXSTACK_INTEROP_FULL=1', () => {
    it('401 digest challenge, then T.38', async () => {
      const r = await t38Fax('uas-401-t38.xml', { media: 't38', username: 'fax', password: 'secret' });
      expectDelivered(r, 't38');
      expect(r.trace.some((t) => /Authorization: Digest username="fax"/.test(t))).toBe(true);
    }, 120_000);

    it('401 with the wrong password → 403 → -3104', async () => {
      const r = await t38Fax('uas-401-t38.xml', { media: 't38', username: 'fax', password: 'wrong' });
      expect(r.result.code).toBe(-3104);
      expect(r.result.detail.sipStatus).toBe(403);
    }, 60_000);

    it('T.38 over TCP signalling', async () => {
      expectDelivered(await t38Fax('uas-t38.xml', { media: 't38', transport: 'tcp' }), 't38');
    }, 120_000);

    it('BYE mid-fax → call dropped', async () => {
      const r = await t38Fax('uas-t38-bye.xml', { media: 't38' });
      expect(r.result.code, r.result.message).toBe(-3108);
      expect(r.result.message).toContain('BYE');
    }, 120_000);
  });
});
