// A whole fax over audio in real time against spandsp's fax terminal (test/interop/fax-audio/
// fax-peer.c, its own 20 ms clock) while child processes spin on every core (test/kit/cpu-hog.ts):
// the case issue 17 saw fail on a loaded machine — spandsp sending to us over RTP µ-law, 10 dB
// down with −57 dBm0 of noise, at V.27ter 4800 — must complete, every page pixel-identical. With
// ECM, so a dropout the load causes on spandsp's side (its sender starved too) is repaired by the
// protocol rather than left as lost rows. And a SIP call (SipLine through SIPp, G.711 only) whose
// V.17 sender is ours, so T.30 runs on the pump's line time there too. The load only makes timers
// late; nothing here measures time (bench/audio-hog.ts does).
import { availableParallelism, tmpdir } from 'node:os';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SipLine } from '../../src/engine/sip-line.js';
import { receiveOverFrontEnd } from '../../src/engine/t30-call.js';
import { openAudioCall } from '../../src/transport/audio/index.js';
import { CpuHog } from '../kit/cpu-hog.js';
import { buildFaxPeer, FaxPeer, hogSenderOptions } from './fax-audio/fax-peer.js';
import { startSipp } from './sip/harness.js';
import { sipTestSetup } from './sip/setup.js';
import { INTEROP_REQUIRED } from './spandsp/build.js';
import { writeCaseDocument } from './t38-matrix.js';
import { compareFaxTiffs } from './tiff-compare.js';

const build = buildFaxPeer();
if (!build.ok && INTEROP_REQUIRED) throw new Error(`the spandsp fax peer is required in CI: ${build.reason}`);
const work = mkdtempSync(join(tmpdir(), 'faxstack-audio-load-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const sip = sipTestSetup('faxstack-sip-load-');

describe.skipIf(!build.ok)('a real-time audio fax beside a CPU hog, against spandsp fax_state_t', () => {
  it('spandsp → us, RTP µ-law, V.27ter 4800, −10 dB, −57 dBm0 noise, ECM, MR, 1 Low page', async () => {
    const binary = (build as { binary: string }).binary;
    const sentFile = join(work, 'sent.tif');
    const receivedFile = join(work, 'received.tif');
    writeCaseDocument({ quality: 'Low', compression: 'mr', pages: 1 }, sentFile);
    const hog = await CpuHog.start(2 * availableParallelism());
    const call = await openAudioCall({ url: { kind: 'rtp', host: '127.0.0.1', port: 0, codec: 'pcmu' }, role: 'answerer', pacing: 'realtime' });
    const peer = FaxPeer.start(binary, hogSenderOptions(sentFile, call.local.port));
    try {
      const fax = await receiveOverFrontEnd(call.frontEnd, call.clock, { ident: '+14155550199', ecm: true, codings: ['mh', 'mr'] });
      const pumped = await call.close();
      const theirs = await peer.exit;
      expect(fax.result.completion, `ours: ${fax.result.message}; pump ${JSON.stringify(pumped.stats)}\nspandsp: ${theirs.stderr.slice(-5000)}`).toBe('T30_ERR_OK');
      expect(theirs.code, `spandsp: ${theirs.stderr.slice(-1500)}`).toBe(0);
      expect(fax.result.pages).toBe(1);
      expect(theirs.result).toMatchObject({ completion: 0, pages: 1, bitRate: 4800, ecm: true, compression: 'mr' });
      expect(fax.result.params).toMatchObject({ modem: { modulation: 'v27ter', bitRate: 4800 }, ecm: true, coding: 'mr' });
      writeFileSync(receivedFile, fax.tiff!.data);
    } finally {
      peer.kill();
      await call.close();
      await hog.stop();
    }
    const cmp = compareFaxTiffs(sentFile, receivedFile, work, 'under-load');
    expect(cmp.detail).toBe('');
    expect([cmp.sentPages, cmp.receivedPages]).toEqual([1, 1]);
  }, 300_000);

  it.skipIf(!sip.runnable && !INTEROP_REQUIRED)('us → spandsp over SIP (SIPp, G.711 µ-law), our V.17 sender, ECM, 1 Low page', async () => {
    const binary = (build as { binary: string }).binary;
    const receivedFile = join(sip.dir, 'received.tif');
    const hog = await CpuHog.start(2 * availableParallelism());
    const peer = FaxPeer.start(binary, { role: 'receive', tiff: receivedFile, ecm: true, maxSeconds: 300, log: true, transport: { kind: 'udp', codec: 'pcmu', local: '127.0.0.1:0', lockstep: false } });
    const trace: string[] = [];
    try {
      const address = await peer.address;
      const sipp = await startSipp('uas-g711.xml', { transport: 'udp', keys: { audio_port: Number(address.split(':').pop()) } });
      try {
        const line = new SipLine({ name: 'sipp', address: `127.0.0.1:${sipp.port}`, transport: 'udp', localAddress: '127.0.0.1', media: 'audio', trace: (d, t) => trace.push(`${d}: ${t}`) });
        const result = await line.call(sip.request(), { stage: () => undefined, pageConfirmed: () => undefined }, new AbortController().signal).finally(() => line.close());
        const s = await sipp.done;
        const theirs = await peer.exit;
        expect(result.code, `${result.message}\n${trace.join('\n').slice(-1500)}\nspandsp: ${theirs.stderr.slice(-3000)}`).toBe(0);
        expect(result.detail).toMatchObject({ sipStatus: 200, media: 'audio', t30Code: 'T30_ERR_OK' });
        expect(result.lastConfirmedPage).toBe(1);
        expect(theirs.result, theirs.stderr.slice(-1500)).toMatchObject({ completion: 0, pages: 1, bitRate: 14400, ecm: true });
        expect(s.code, s.output).toBe(0);
      } finally {
        sipp.kill();
      }
    } finally {
      peer.kill();
      await hog.stop();
    }
    const cmp = compareFaxTiffs(sip.sentFile, receivedFile, sip.dir, 'sip-under-load');
    expect(cmp.detail).toBe('');
    expect([cmp.sentPages, cmp.receivedPages]).toEqual([1, 1]);
  }, 300_000);
});
