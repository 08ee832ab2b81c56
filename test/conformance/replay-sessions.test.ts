// The recorded spandsp sessions of fixtures/sessions replayed through OUR receiver, with no
// spandsp installed: the caller's side of each call (its channel of the WAV, or its UDPTL
// datagrams in the pcap, at their recorded times) is fed to our answering T.30 session on our
// audio front end or our T.38 front end, while what we answer goes nowhere. A recording is one
// fixed conversation, so this holds only if our receiver follows it: listens when spandsp's
// caller speaks, accepts its DCS, passes its TCF, takes its page. The pages must come out
// pixel-identical to the document the session sent, in the mode it was sent.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { firstDifference } from '../../src/codecs/index.js';
import { readTiff } from '../../src/documents/tiff-read.js';
import { ManualClock } from '../../src/shared/clock.js';
import { T30Session, type ReceivedPage, type T30FrontEnd } from '../../src/t30/index.js';
import { AudioFrontEnd } from '../../src/transport/audio/index.js';
import { readPcap, readWav } from '../../src/analysis/index.js';
import { T38FrontEnd, type DatagramTransport } from '../../src/transport/t38/index.js';
import { endpointKey, MODULATION, readSidecar, SESSIONS_DIR, sidecarFiles, type Sidecar } from './sessions.js';

const DIR = SESSIONS_DIR;
const sessions = sidecarFiles().map((f) => ({ name: f.replace(/\.json$/, ''), meta: readSidecar(f) }));

/** Our answerer on `frontEnd`; resolves with its result and pages once it has finished. */
function answerer(frontEnd: T30FrontEnd, clock: ManualClock) {
  const pages: ReceivedPage[] = [];
  const session = new T30Session({
    config: { role: 'answerer', ident: '+15550199', ecm: true },
    frontEnd,
    clock,
    onProgress: (p) => p.kind === 'page-received' && pages.push(p.page),
  });
  session.start();
  return { session, pages };
}

async function replayAudio(name: string) {
  const wav = readWav(readFileSync(join(DIR, `${name}.wav`)));
  const callerAudio = wav.channels[0]!;
  const clock = new ManualClock(0);
  const fe = new AudioFrontEnd();
  const { session, pages } = answerer(fe, clock);
  const out = new Int16Array(160);
  for (let at = 0; at + 160 <= callerAudio.length && !session.finished; at += 160) {
    fe.process(callerAudio.subarray(at, at + 160), out);
    await clock.advance(20);
  }
  return { session, pages, fe };
}

async function replayT38(name: string, meta: Sidecar) {
  const cap = readPcap(readFileSync(join(DIR, `${name}.pcap`)));
  const first = cap.datagrams[0]!;
  const callerKey = meta.endpoints ? endpointKey(meta.endpoints.caller) : `${first.src.host}:${first.src.port}`;
  const fromCaller = cap.datagrams.filter((d) => `${d.src.host}:${d.src.port}` === callerKey);
  const clock = new ManualClock(0);
  let deliver: ((d: Uint8Array) => void) | undefined;
  const transport: DatagramTransport = { send: () => {}, onMessage: (cb) => (deliver = cb), close: () => {} };
  const fe = new T38FrontEnd({ transport, clock, pacing: 'fast', idleTimeoutMs: 0 });
  const { session, pages } = answerer(fe, clock);
  const t0 = first.timeUs / 1000;
  for (const d of fromCaller) {
    if (session.finished) break;
    await clock.set(d.timeUs / 1000 - t0);
    deliver!(d.payload);
  }
  await clock.advance(5000);
  return { session, pages };
}

describe('recorded spandsp sessions replayed through our receiver (no spandsp needed)', () => {
  it('finds the recorded sessions', () => {
    expect(sessions.filter((s) => s.meta.format === 'wav-ulaw-stereo').length).toBeGreaterThanOrEqual(5);
    expect(sessions.filter((s) => s.meta.format === 'pcap').length).toBeGreaterThanOrEqual(2);
  });

  it.each(sessions.map((s) => [s.name, s] as const))('%s', async (name, { meta }) => {
    const r = meta.format === 'pcap' ? await replayT38(name, meta) : await replayAudio(name);
    const e = meta.expected;
    const params = r.session.state.params;
    expect(params, `no DCS accepted; state ${r.session.state.state}`).toBeDefined();
    expect(params).toMatchObject({ modem: { modulation: MODULATION[e.modulation], bitRate: e.bitRate }, ecm: e.ecm, coding: e.compression });
    expect([params!.xDpi, params!.yDpi]).toEqual([e.resolution.x, e.resolution.y]);
    const doc = readTiff(readFileSync(join(DIR, meta.document)));
    expect(r.pages).toHaveLength(e.pages);
    r.pages.forEach((p, i) => expect(firstDifference(p.bitmap!, doc[i]!.bitmap), `page ${i + 1}`).toBeNull());
  });
});
