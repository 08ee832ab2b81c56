// fax-peer (spandsp's whole audio fax terminal) proven against itself before it judges our
// stack: two processes over UDP on 127.0.0.1 in lockstep, raw PCM and RTP µ-law/A-law, ECM on
// and off, over stdio, on an impaired line; the page must arrive pixel for pixel. Then the
// transmit level and the real-time RTP stream, and the recorders: re-recording a session gives
// the bytes in fixtures/sessions.
import { createSocket } from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { INTEROP_REQUIRED } from '../spandsp/build.js';
import { compareFaxTiffs } from '../tiff-compare.js';
import { buildFaxPeer, FaxPeer, type FaxPeerCodec, type FaxPeerExit, type FaxPeerOptions } from './fax-peer.js';
import { pageTop, readSidecar, recordSession, SESSIONS, SESSIONS_DIR } from './record-sessions.js';

const build = buildFaxPeer();
const dir = mkdtempSync(join(tmpdir(), 'faxstack-fax-peer-self-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The test page: 200 rows of fine text (1728 wide). */
function writePage(tag: string): string {
  const file = join(dir, `${tag}-tx.tif`);
  writeFileSync(file, pageTop({ rows: 200, yDpi: 196, seed: 11, coding: 'mr' }));
  return file;
}

type Side = Partial<Omit<FaxPeerOptions, 'role' | 'tiff' | 'transport'>>;

/** A receiving and a sending peer over UDP in lockstep; resolves with both exits. */
async function udpCall(tag: string, codec: FaxPeerCodec, send: Side = {}, receive: Side = {}): Promise<{ tx: FaxPeerExit; rx: FaxPeerExit; doc: string; received: string }> {
  if (!build.ok) throw new Error(build.reason);
  const doc = writePage(tag);
  const received = join(dir, `${tag}-rx.tif`);
  const rx = FaxPeer.start(build.binary, { ...receive, role: 'receive', tiff: received, transport: { kind: 'udp', codec, local: '127.0.0.1:0', lockstep: true } });
  let tx: FaxPeer | undefined;
  try {
    const remote = await rx.address;
    tx = FaxPeer.start(build.binary, { ...send, role: 'send', tiff: doc, transport: { kind: 'udp', codec, local: '127.0.0.1:0', remote, lockstep: true } });
    const [t, r] = await Promise.all([tx.exit, rx.exit]);
    return { tx: t, rx: r, doc, received };
  } finally {
    tx?.kill();
    rx.kill();
  }
}

function expectSuccess(e: FaxPeerExit, who: string): void {
  expect(e.result, `${who} printed its result (${e.stderr.slice(-500)})`).toBeDefined();
  expect({ code: e.code, completion: e.result!.completion, text: e.result!.completionText, pages: e.result!.pages }).toEqual({
    code: 0,
    completion: 0,
    text: 'OK',
    pages: 1,
  });
}

function dbm0(samples: Int16Array): number {
  let sum = 0;
  for (const v of samples) sum += v * v;
  return 10 * Math.log10(sum / samples.length / ((32768 * 32768) / 2)) + 3.14;
}

describe.skipIf(!build.ok && !INTEROP_REQUIRED)('fax-peer: spandsp fax_state_t against itself', () => {
  it('builds against libspandsp', () => {
    expect(build.ok ? '' : build.reason).toBe('');
  });

  describe('two processes over UDP in lockstep: the page arrives pixel for pixel', () => {
    const cases = (['pcm', 'pcmu', 'pcma'] as const).flatMap((codec) => [true, false].map((ecm) => ({ codec, ecm, name: `${codec} ${ecm ? 'ECM' : 'no ECM'}` })));
    it.each(cases)('$name', async ({ codec, ecm }) => {
      const tag = `udp-${codec}-${ecm}`;
      const { tx, rx, doc, received } = await udpCall(tag, codec, { ecm }, { ecm });
      expectSuccess(tx, 'sender');
      expectSuccess(rx, 'receiver');
      for (const r of [tx.result!, rx.result!]) {
        // Unforced, spandsp picks its fastest modem, and T.6 whenever ECM allows it.
        expect({ modulation: r.modulation, bitRate: r.bitRate, ecm: r.ecm, compression: r.compression, resolution: r.resolution, length: r.length }).toEqual({
          modulation: 'V.17',
          bitRate: 14400,
          ecm,
          compression: ecm ? 'mmr' : 'mr',
          resolution: { x: 204, y: 196 },
          length: 200,
        });
        // (A stall, the first side repeating itself after 2 s without an answer, would only mean
        // a process starved of CPU that long: not checked.)
        expect(r.transport?.bad).toBe(0);
      }
      expect({ tx: tx.result!.remoteIdent, rx: rx.result!.remoteIdent }).toEqual({ tx: '+15550199', rx: '+15550100' });
      expect(compareFaxTiffs(doc, received, dir, tag).detail).toBe('');
    }, 30_000);
  });

  it('runs over stdio: two peers whose stdin and stdout are crossed', async () => {
    if (!build.ok) throw new Error(build.reason);
    const doc = writePage('stdio');
    const received = join(dir, 'stdio-rx.tif');
    const tx = FaxPeer.start(build.binary, { role: 'send', tiff: doc, transport: { kind: 'stdio' } });
    const rx = FaxPeer.start(build.binary, { role: 'receive', tiff: received, transport: { kind: 'stdio' } });
    tx.child.stdout.pipe(rx.child.stdin);
    rx.child.stdout.pipe(tx.child.stdin);
    try {
      const [t, r] = await Promise.all([tx.exit, rx.exit]);
      expectSuccess(t, 'sender');
      expectSuccess(r, 'receiver');
      expect(compareFaxTiffs(doc, received, dir, 'stdio').detail).toBe('');
    } finally {
      tx.kill();
      rx.kill();
    }
  }, 30_000);

  it('gets through a weak, noisy G.711 line (sender at -26 dBm0, noise at -50 dBm0 each way)', async () => {
    // 24 dB SNR at the receiver (its --rx-noise), 36 dB at the sender (the receiver's
    // --tx-noise). spandsp's V.21 carrier detector (cut-off -45.5 dBm0, ±2.5 dB hysteresis) never
    // drops on noise above about -48 dBm0, and its T.30 then waits for ever for the far end to
    // stop talking: the noise on each direction is kept below that.
    const { tx, rx, doc, received } = await udpCall('noisy', 'pcmu', { txLevelDbm0: -26, seed: 3 }, { rxNoiseDbm0: -50, txNoiseDbm0: -50, seed: 4 });
    expectSuccess(tx, 'sender');
    expectSuccess(rx, 'receiver');
    expect(rx.result!.modulation).toBe('V.17');
    expect(compareFaxTiffs(doc, received, dir, 'noisy').detail).toBe('');
  }, 30_000);

  it.each([
    { txLevelDbm0: undefined, cng: -11 },
    { txLevelDbm0: -20, cng: -17 },
  ])('sends CNG at $cng dBm0 with --tx-level $txLevelDbm0 (spandsp: tones at -11, modems at -14)', async ({ txLevelDbm0, cng }) => {
    if (!build.ok) throw new Error(build.reason);
    const tx = FaxPeer.start(build.binary, { role: 'send', tiff: writePage('level'), maxSeconds: 2, txLevelDbm0, transport: { kind: 'stdio' } });
    const out: Buffer[] = [];
    tx.child.stdout.on('data', (c: Buffer) => out.push(c));
    tx.child.stdin.end(Buffer.alloc(25 * 320)); // half a second of silence from the far end
    const e = await tx.exit;
    expect(e.result?.completion, 'no far end: the call fails').not.toBe(0);
    const audio = Buffer.concat(out);
    const samples = new Int16Array(audio.buffer.slice(audio.byteOffset, audio.byteOffset + audio.byteLength));
    expect(samples.length).toBe(26 * 160); // one block first, then one per block in
    expect(dbm0(samples.subarray(400, 3600))).toBeCloseTo(cng, 0); // CNG: 0.5 s of 1100 Hz
  });

  it('paces an RTP stream in real time without --lockstep: seq +1, timestamp +160, one SSRC', async () => {
    if (!build.ok) throw new Error(build.reason);
    const sink = createSocket('udp4');
    const packets: Array<{ at: number; msg: Buffer }> = [];
    sink.on('message', (msg) => packets.push({ at: performance.now(), msg }));
    await new Promise<void>((res) => sink.bind(0, '127.0.0.1', res));
    const remote = `127.0.0.1:${sink.address().port}`;
    try {
      const tx = FaxPeer.start(build.binary, {
        role: 'send',
        tiff: writePage('rtp'),
        maxSeconds: 1,
        tailMs: 0,
        transport: { kind: 'udp', codec: 'pcma', local: '127.0.0.1:0', remote, lockstep: false },
      });
      const e = await tx.exit;
      expect(e.result?.transport?.sent).toBe(50);
      await new Promise((res) => setTimeout(res, 50)); // the last datagram's way through the kernel
      expect(packets).toHaveLength(50);
      const head = packets.map(({ msg }) => ({ v: msg[0]! >> 6, pt: msg[1]! & 0x7f, m: msg[1]! >> 7, seq: msg.readUInt16BE(2), ts: msg.readUInt32BE(4), ssrc: msg.readUInt32BE(8), len: msg.length }));
      head.forEach((h, i) =>
        expect(h).toEqual({ v: 2, pt: 8, m: i === 0 ? 1 : 0, seq: (head[0]!.seq + i) & 0xffff, ts: (head[0]!.ts + 160 * i) >>> 0, ssrc: head[0]!.ssrc, len: 172 }),
      );
      // 50 frames of 20 ms: about a second of wall time, not a burst.
      const spanMs = packets.at(-1)!.at - packets[0]!.at;
      expect(spanMs).toBeGreaterThan(800);
      expect(spanMs).toBeLessThan(2500);
    } finally {
      sink.close();
    }
  }, 10_000);

  describe('the recorders reproduce fixtures/sessions byte for byte', () => {
    // The smallest session of each kind: re-recorded with the session table, compared file by file.
    const picks = ['audio-v29-9600-mr', 't38-v17-14400-mr'].map((n) => SESSIONS.find((s) => s.name === n)!);
    it.each(picks.map((s) => [s.name, s] as const))('%s', async (_name, spec) => {
      if (!build.ok) throw new Error(build.reason);
      const out = mkdtempSync(join(dir, 'rec-'));
      const made = await recordSession(build.binary, spec, out, out);
      const stored = readSidecar(join(SESSIONS_DIR, `${spec.name}.json`));
      // Another spandsp release makes other (equally valid) audio: then only the mode must agree.
      if (made.spandspRelease !== stored.spandspRelease) {
        expect(made.expected).toEqual(stored.expected);
        return;
      }
      for (const ext of ['tif', spec.kind === 'audio' ? 'wav' : 'pcap', 'json']) {
        const [a, b] = [readFileSync(join(out, `${spec.name}.${ext}`)), readFileSync(join(SESSIONS_DIR, `${spec.name}.${ext}`))];
        expect(a.equals(b), `${spec.name}.${ext} as stored`).toBe(true);
      }
    }, 30_000);
  });
});
