// Whole faxes over audio lines against spandsp's fax terminal (fax_state_t: its T.30 and its
// modems, in our peer test/interop/fax-audio/fax-peer.c), over real UDP on 127.0.0.1 in lockstep
// (each 20 ms frame answered by one frame, so time is the count of frames on both sides): our
// sender → spandsp's receiver and spandsp's sender → our receiver, over raw PCM and RTP µ-law and
// A-law, ECM on and off, MH/MR/MMR, V.17/V.29/V.27ter, clean and with noise and level changes
// on the line. Every page pixel-identical (decoded by libtiff), both sides successful with the
// same page count, the mode the case asked for.
//
// CI runs a representative matrix; `npm run test:interop:full` runs every combination.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { faxPagesFromTiff } from '../../src/documents/fax-pages.js';
import { receiveOverFrontEnd, sendOverFrontEnd } from '../../src/engine/t30-call.js';
import type { Coding } from '../../src/t30/modes.js';
import { openAudioCall } from '../../src/transport/audio/index.js';
import type { AudioCodecName } from '../../src/transport/rtp/index.js';
import { buildFaxPeer, FaxPeer, type FaxPeerModem } from './fax-audio/fax-peer.js';
import { INTEROP_REQUIRED } from './spandsp/build.js';
import { INTEROP_FULL, writeCaseDocument } from './t38-matrix.js';
import { compareFaxTiffs } from './tiff-compare.js';

type Direction = 'us-to-spandsp' | 'spandsp-to-us';

interface AudioCase {
  direction: Direction;
  codec: AudioCodecName;
  ecm: boolean;
  compression: Coding;
  modem: FaxPeerModem;
  pages: 1 | 2;
  /** White noise added to both directions at spandsp's end, dBm0 (its signal is at −14). */
  noiseDbm0?: number;
  /** Which way the noise goes (default both). */
  noiseTo?: 'us' | 'spandsp';
  /** spandsp's send level, dBm0. */
  levelDbm0?: number;
}

const RATE: Record<FaxPeerModem, { bitRate: number; modulation: string }> = {
  v17: { bitRate: 14400, modulation: 'v17' },
  v29: { bitRate: 9600, modulation: 'v29' },
  v27ter: { bitRate: 4800, modulation: 'v27ter' },
};

const name = (c: AudioCase) =>
  `${c.direction} ${c.codec} ${c.modem} ${c.ecm ? 'ECM' : 'non-ECM'} ${c.compression} ${c.pages}p` +
  (c.noiseDbm0 !== undefined ? ` noise ${c.noiseDbm0} dBm0${c.noiseTo ? ` to ${c.noiseTo}` : ''}` : '') + (c.levelDbm0 !== undefined ? ` level ${c.levelDbm0} dBm0` : '');

function fullMatrix(): AudioCase[] {
  const out: AudioCase[] = [];
  for (const direction of ['us-to-spandsp', 'spandsp-to-us'] as const)
    for (const codec of ['pcm', 'pcmu', 'pcma'] as const)
      for (const modem of ['v17', 'v29', 'v27ter'] as const)
        for (const ecm of [true, false])
          for (const compression of ['mh', 'mr', 'mmr'] as const) {
            if (compression === 'mmr' && !ecm) continue; // T.6 needs ECM
            out.push({ direction, codec, ecm, compression, modem, pages: 1 });
          }
  return [...out, ...impaired()];
}

/**
 * Impaired lines. Towards us, noise down to 26 dB SNR with ECM and 24 dB without (spandsp sends
 * at −14 dBm0; 24 dB is spandsp's own regression threshold for V.17 14400 — at 21 dB a non-ECM
 * page arrives with rows lost, accepted by the copy-quality check as spandsp would). Towards
 * spandsp only what its own terminal survives: spandsp 0.0.6's fax_state_t loses calls with
 * continuous white noise above about −50 dBm0 at its input, even spandsp to spandsp through this
 * peer. Levels: spandsp's signal 16 dB weaker, and 10 dB hotter, than its default.
 */
function impaired(): AudioCase[] {
  return [
    { direction: 'spandsp-to-us', codec: 'pcma', ecm: true, compression: 'mmr', modem: 'v17', pages: 2, noiseDbm0: -40, noiseTo: 'us' },
    { direction: 'us-to-spandsp', codec: 'pcmu', ecm: false, compression: 'mr', modem: 'v17', pages: 2, noiseDbm0: -60, levelDbm0: -30 },
    { direction: 'spandsp-to-us', codec: 'pcma', ecm: false, compression: 'mr', modem: 'v17', pages: 1, noiseDbm0: -38, noiseTo: 'us' },
    { direction: 'spandsp-to-us', codec: 'pcmu', ecm: false, compression: 'mh', modem: 'v29', pages: 1, noiseDbm0: -60, levelDbm0: -4 },
    { direction: 'us-to-spandsp', codec: 'pcma', ecm: true, compression: 'mr', modem: 'v27ter', pages: 1, noiseDbm0: -55 },
  ];
}

function representative(): AudioCase[] {
  return [
    { direction: 'us-to-spandsp', codec: 'pcm', ecm: true, compression: 'mmr', modem: 'v17', pages: 1 },
    { direction: 'us-to-spandsp', codec: 'pcmu', ecm: false, compression: 'mh', modem: 'v29', pages: 1 },
    { direction: 'us-to-spandsp', codec: 'pcma', ecm: true, compression: 'mr', modem: 'v27ter', pages: 1 },
    { direction: 'spandsp-to-us', codec: 'pcm', ecm: false, compression: 'mr', modem: 'v17', pages: 1 },
    { direction: 'spandsp-to-us', codec: 'pcmu', ecm: true, compression: 'mmr', modem: 'v29', pages: 1 },
    { direction: 'spandsp-to-us', codec: 'pcma', ecm: false, compression: 'mh', modem: 'v27ter', pages: 1 },
    ...impaired().slice(0, 2),
  ];
}

const CASES = INTEROP_FULL ? fullMatrix() : representative();
const build = buildFaxPeer();
if (!build.ok && INTEROP_REQUIRED) throw new Error(`the spandsp fax peer is required in CI: ${build.reason}`);
const work = mkdtempSync(join(tmpdir(), 'faxstack-audio-interop-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const codings = (c: Coding): Coding[] => (c === 'mh' ? ['mh'] : c === 'mr' ? ['mh', 'mr'] : ['mh', 'mr', 'mmr']);

describe.skipIf(!build.ok)('whole faxes over audio against spandsp fax_state_t (lockstep over UDP)', () => {
  it.each(CASES.map((c) => [name(c), c] as const))('%s', async (tag, c) => {
    const binary = (build as { binary: string }).binary;
    const safe = tag.replace(/[^A-Za-z0-9]+/g, '-');
    const sentFile = join(work, `${safe}-sent.tif`);
    const receivedFile = join(work, `${safe}-received.tif`);
    writeCaseDocument({ quality: 'Standard', compression: c.compression, pages: c.pages }, sentFile);
    const line = {
      ...(c.noiseDbm0 !== undefined && c.noiseTo !== 'spandsp' ? { txNoiseDbm0: c.noiseDbm0 } : {}),
      ...(c.noiseDbm0 !== undefined && c.noiseTo !== 'us' ? { rxNoiseDbm0: c.noiseDbm0 } : {}),
      ...(c.levelDbm0 !== undefined ? { txLevelDbm0: c.levelDbm0 } : {}),
    };
    const peerT30 = { ecm: c.ecm, modems: [c.modem], compression: codings(c.compression), maxSeconds: 600, tailMs: 0 };
    const url = (port: number) => ({ kind: c.codec === 'pcm' ? ('pcm' as const) : ('rtp' as const), host: '127.0.0.1', port, codec: c.codec });
    const expected = RATE[c.modem];

    if (c.direction === 'us-to-spandsp') {
      const peer = FaxPeer.start(binary, { role: 'receive', tiff: receivedFile, ...peerT30, ...line, transport: { kind: 'udp', codec: c.codec, local: '127.0.0.1:0', lockstep: true } });
      try {
        const port = Number((await peer.address).split(':').at(-1));
        const call = await openAudioCall({ url: url(port), role: 'caller', pacing: 'lockstep' });
        const pages = faxPagesFromTiff(readFileSync(sentFile));
        const ours = await sendOverFrontEnd(
          { jobId: 0, fromNumber: '', toNumber: '', quality: 'Standard', totalPages: pages.count, firstPage: 1, ident: '+14155550100', pages },
          { stage: () => {}, pageConfirmed: () => {} }, new AbortController().signal, call.frontEnd, call.clock, { ecm: c.ecm, maxBitRate: expected.bitRate },
        );
        await call.close();
        const theirs = await peer.exit;
        expect(ours.code, `ours: ${ours.message} ${JSON.stringify(ours.detail)}`).toBe(0);
        expect(theirs.code, `spandsp: ${theirs.stderr.slice(-1500)}`).toBe(0);
        expect(ours.lastConfirmedPage).toBe(c.pages);
        expect(theirs.result).toMatchObject({ completion: 0, pages: c.pages, bitRate: expected.bitRate, ecm: c.ecm, compression: c.compression, remoteIdent: '+14155550100' });
        expect(ours.detail).toMatchObject({ bitRate: expected.bitRate, modulation: expected.modulation, ecm: c.ecm, compression: c.compression });
      } finally {
        peer.kill();
      }
    } else {
      const call = await openAudioCall({ url: url(0), role: 'answerer', pacing: 'lockstep' });
      const peer = FaxPeer.start(binary, {
        role: 'send', tiff: sentFile, ...peerT30, ...line, ident: '+15550100',
        transport: { kind: 'udp', codec: c.codec, local: '127.0.0.1:0', remote: `127.0.0.1:${call.local.port}`, lockstep: true },
      });
      try {
        const fax = await receiveOverFrontEnd(call.frontEnd, call.clock, { ident: '+14155550199', ecm: c.ecm, codings: codings(c.compression) });
        await call.close();
        const theirs = await peer.exit;
        expect(fax.result.completion, `ours: ${fax.result.message}`).toBe('T30_ERR_OK');
        expect(theirs.code, `spandsp: ${theirs.stderr.slice(-1500)}`).toBe(0);
        expect(fax.result.pages).toBe(c.pages);
        expect(theirs.result).toMatchObject({ completion: 0, pages: c.pages, bitRate: expected.bitRate, ecm: c.ecm, compression: c.compression });
        expect(fax.result.params).toMatchObject({ modem: { modulation: expected.modulation, bitRate: expected.bitRate }, ecm: c.ecm, coding: c.compression });
        expect(fax.result.remoteIdent).toBe('+15550100');
        writeFileSync(receivedFile, fax.tiff!.data);
      } finally {
        peer.kill();
        await call.close();
      }
    }
    const cmp = compareFaxTiffs(sentFile, receivedFile, work, safe);
    expect(cmp.detail).toBe('');
    expect([cmp.sentPages, cmp.receivedPages]).toEqual([c.pages, c.pages]);
  }, 120_000);
});
