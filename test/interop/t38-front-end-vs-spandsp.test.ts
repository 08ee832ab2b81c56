// Our T38FrontEnd against spandsp's T.38 terminal, with the T.30 side scripted by hand (in the
// manner of TSB-85: a fixed sequence of frames, each answer checked): a one-page non-ECM fax
// each way at V.17 14 400, over UDPTL on 127.0.0.1 in lockstep. This isolates the front end
// (indicators, V.21 HDLC, TCF, non-ECM image data, sig-end, pacing) from our T.30 machine:
// when t38-ours-vs-spandsp fails and this passes, look in src/t30.
//
// The first test guards a bug this file found: HDLC octets must be bit-reversed between IFP
// (first bit in bit 7) and T.30 frames (first bit in bit 0), as spandsp's terminal does.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeMH, encodeMH } from '../../src/codecs/index.js';
import { firstDifference } from '../../src/codecs/bitmap.js';
import { readTiff } from '../../src/documents/tiff-read.js';
import { ManualClock } from '../../src/shared/clock.js';
import type { FrontEndEvent, ModemSpec, T30FrontEnd } from '../../src/t30/index.js';
import { openUdpTransport, T38FrontEnd } from '../../src/transport/t38/index.js';
import { LockstepTransport, ourParty } from './lockstep-transport.js';
import { SpandspPeer, type LockstepParty } from './peer.js';
import { buildPeer, INTEROP_REQUIRED } from './spandsp/build.js';
import { writeCaseDocument } from './t38-matrix.js';
import { compareFaxTiffs } from './tiff-compare.js';

const build = buildPeer();
const dir = mkdtempSync(join(tmpdir(), 'faxstack-t38-fe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const V17_14400: ModemSpec = { modulation: 'v17', bitRate: 14400 };
// FCFs as they stand in the frame (first bit in bit 0), X bit clear (T.30 5.3.6.1).
const FCF = { DIS: 0x80, CSI: 0x40, DCS: 0x82, TSI: 0x42, CFR: 0x84, FTT: 0x44, EOP: 0x2e, MCF: 0x8c, DCN: 0xfa } as const;
const fcfOf = (f: Uint8Array) => f[2]! & 0xfe;
// DCS (T.30 Table 2, bit n at octet (n-1)/8, bit (n-1)%8 of the FIF): bit 10 receive, bit 14
// V.17 14 400, bit 15 R8 × 7.7 (fine), bits 17-20 0 (1728 pixels, A4), bits 21-23 1 (0 ms scan time).
const DCS_FIF = [0x00, 0x62, 0x70];
// DIS: bit 10 ready to receive, bits 11/12/14 V.27ter+V.29+V.17, bit 15 fine, scan time 0 ms; MH only.
const DIS_FIF = [0x00, 0x6e, 0x70];

/** One call between a scripted front end of ours and the peer, stepped by `until`. */
class Script {
  readonly events: FrontEndEvent[] = [];
  private readonly party: LockstepParty;
  private done = false;
  simulatedMs = 0;

  constructor(
    readonly fe: T30FrontEnd,
    clock: ManualClock,
    transport: LockstepTransport,
    readonly peer: SpandspPeer,
  ) {
    fe.onEvent((e) => this.events.push(e));
    this.party = ourParty(clock, transport, () => this.done);
  }

  /** Steps both sides in 20 ms lockstep until `cond` holds (or `maxMs` of simulated time pass). */
  async until(what: string, cond: () => boolean, maxMs = 60_000): Promise<void> {
    for (let t = 0; !cond(); t += 20) {
      if (t >= maxMs) throw new Error(`timed out (${maxMs} ms simulated) waiting for ${what}; events: ${this.describe()}`);
      const [ours, theirs] = [this.party.sentTotal, this.peer.sentTotal];
      await Promise.all([this.party.tick(160, theirs), this.peer.tick(160, ours)]);
      this.simulatedMs += 20;
    }
  }

  /** HDLC frames received so far (good FCS only), from index `from` of the event list. */
  frames(from = 0): Uint8Array[] {
    return this.events.slice(from).flatMap((e) => (e.kind === 'hdlc' && e.crcOk ? [e.frame] : []));
  }

  has(fcf: number, from = 0): boolean {
    return this.frames(from).some((f) => fcfOf(f) === fcf);
  }

  /** Image bytes received after event index `from`, and whether image-end followed. */
  image(from: number): { data: Uint8Array; ended: boolean } {
    const chunks: Uint8Array[] = [];
    let ended = false;
    for (const e of this.events.slice(from)) {
      if (e.kind === 'image-data' && !ended) chunks.push(e.data);
      if (e.kind === 'image-end') {
        ended = true;
        break;
      }
    }
    return { data: Uint8Array.from(Buffer.concat(chunks)), ended };
  }

  finish(): void {
    this.done = true;
  }

  describe(): string {
    return this.events
      .map((e) => (e.kind === 'hdlc' ? `hdlc(${Buffer.from(e.frame.subarray(0, 4)).toString('hex')}${e.crcOk ? '' : ' BAD'})` : e.kind === 'image-data' ? 'data' : e.kind === 'carrier' ? `carrier(${e.on})` : e.kind))
      .filter((s, i, a) => s !== 'data' || a[i - 1] !== 'data')
      .join(' ');
  }
}

async function setUp(peerRole: 'send' | 'receive', tiff: string, lossPct: number): Promise<Script> {
  if (!build.ok) throw new Error(build.reason);
  const peer = await SpandspPeer.start(build.binary, {
    role: peerRole, tiff, ecm: false, allowCompression: ['mh'], lossPct, lossRxPct: lossPct, maxBurst: 3, seed: 9,
  });
  const udp = await openUdpTransport({ bindHost: '127.0.0.1', remoteHost: '127.0.0.1', remotePort: peer.port });
  await peer.setRemote(`127.0.0.1:${udp.local.port}`);
  const clock = new ManualClock();
  const transport = new LockstepTransport(udp);
  const fe = new T38FrontEnd({ transport, clock, version: 0, errorCorrection: { scheme: 'redundancy', depth: 3 }, pacing: 'realtime' });
  return new Script(fe, clock, transport, peer);
}

describe.skipIf(!build.ok && !INTEROP_REQUIRED)('T.38: our T38FrontEnd with a scripted T.30 vs spandsp', () => {
  it('spandsp’s CSI and DIS arrive as T.30 frames (first bit in bit 0)', async () => {
    const s = await setUp('receive', join(dir, 'fe-order-rx.tif'), 0);
    try {
      s.fe.command({ kind: 'set-rx', mode: { kind: 'v21' } });
      await s.until('two frames', () => s.frames().length >= 2, 10_000);
    } finally {
      s.peer.kill();
      s.fe.close();
    }
    // CSI (not final), then DIS (final frame): ff 03 40 …, ff 13 80 …
    expect(s.frames().slice(0, 2).map((f) => Buffer.from(f.subarray(0, 3)).toString('hex'))).toEqual(['ff0340', 'ff1380']);
  }, 30_000);

  it.each([0, 5])('sends a non-ECM MH page to spandsp, %i percent loss each way', async (lossPct) => {
    const sent = join(dir, `fe-send-${lossPct}.tif`);
    const received = join(dir, `fe-send-${lossPct}-rx.tif`);
    writeCaseDocument({ quality: 'Standard', pages: 1, compression: 'mh' }, sent);
    const page = readTiff(readFileSync(sent))[0]!.bitmap;
    const s = await setUp('receive', received, lossPct);
    try {
      const { fe } = s;
      fe.command({ kind: 'set-rx', mode: { kind: 'v21' } });
      fe.command({ kind: 'send-tone', tone: 'cng' });
      await s.until('DIS', () => s.has(FCF.DIS));
      expect(s.frames().find((f) => fcfOf(f) === FCF.DIS)![1]).toBe(0x13); // DIS ends the frame sequence
      await s.until('the end of spandsp’s V.21 signal', () => s.events.some((e) => e.kind === 'carrier' && !e.on));
      let mark = s.events.length;
      fe.command({ kind: 'send-hdlc', frames: [Uint8Array.from([0xff, 0x13, FCF.DCS | 1, ...DCS_FIF])], modem: 'v21' });
      fe.command({ kind: 'send-silence', durationMs: 75 });
      fe.command({ kind: 'send-tcf', modem: V17_14400, durationMs: 1500 });
      fe.command({ kind: 'set-rx', mode: { kind: 'v21' } });
      await s.until('CFR', () => s.has(FCF.CFR, mark) || s.has(FCF.FTT, mark));
      expect(s.has(FCF.CFR, mark)).toBe(true);
      mark = s.events.length;
      fe.command({ kind: 'send-image', modem: V17_14400, data: encodeMH(page) });
      fe.command({ kind: 'send-silence', durationMs: 75 });
      fe.command({ kind: 'send-hdlc', frames: [Uint8Array.from([0xff, 0x13, FCF.EOP | 1])], modem: 'v21' });
      fe.command({ kind: 'set-rx', mode: { kind: 'v21' } });
      await s.until('MCF', () => s.has(FCF.MCF, mark), 120_000);
      fe.command({ kind: 'send-hdlc', frames: [Uint8Array.from([0xff, 0x13, FCF.DCN | 1])], modem: 'v21' });
      fe.command({ kind: 'hangup' });
      s.finish();
      await s.until('spandsp’s phase E', () => s.peer.done !== undefined);
      await s.peer.quit();
    } finally {
      s.peer.kill();
      s.fe.close();
    }
    expect(s.peer.done).toMatchObject({ success: true, pages: 1, compression: 'mh', ecm: false, bitRate: 14400, resolution: '204x196' });
    expect(compareFaxTiffs(sent, received, dir, `fe-send-${lossPct}`).detail).toBe('');
  }, 60_000);

  it.each([0, 5])('receives a non-ECM MH page from spandsp, %i percent loss each way', async (lossPct) => {
    const sent = join(dir, `fe-recv-${lossPct}.tif`);
    writeCaseDocument({ quality: 'Standard', pages: 1, compression: 'mh' }, sent);
    const s = await setUp('send', sent, lossPct);
    let page: ReturnType<typeof decodeMH>;
    let tcf: Uint8Array;
    try {
      const { fe } = s;
      fe.command({ kind: 'set-rx', mode: { kind: 'v21' } });
      fe.command({ kind: 'send-tone', tone: 'ced' });
      fe.command({ kind: 'send-silence', durationMs: 75 });
      fe.command({ kind: 'send-hdlc', frames: [Uint8Array.from([0xff, 0x13, FCF.DIS, ...DIS_FIF])], modem: 'v21' });
      await s.until('DCS', () => s.has(FCF.DCS));
      const dcs = s.frames().find((f) => fcfOf(f) === FCF.DCS)!;
      expect(dcs[4]! & 0x3c).toBe(0x20); // V.17 14 400
      expect(dcs[4]! & 0x40).toBe(0x40); // fine
      let mark = s.events.length;
      fe.command({ kind: 'set-rx', mode: { kind: 'image', modem: V17_14400 } });
      await s.until('TCF', () => s.image(mark).ended);
      tcf = s.image(mark).data;
      mark = s.events.length;
      fe.command({ kind: 'send-hdlc', frames: [Uint8Array.from([0xff, 0x13, FCF.CFR])], modem: 'v21' });
      fe.command({ kind: 'set-rx', mode: { kind: 'image', modem: V17_14400 } });
      await s.until('the page', () => s.image(mark).ended, 120_000);
      page = decodeMH(s.image(mark).data, { width: 1728, badLines: 'repeat' });
      mark = s.events.length;
      fe.command({ kind: 'set-rx', mode: { kind: 'v21' } });
      await s.until('EOP', () => s.has(FCF.EOP, mark));
      mark = s.events.length;
      fe.command({ kind: 'send-hdlc', frames: [Uint8Array.from([0xff, 0x13, FCF.MCF])], modem: 'v21' });
      await s.until('DCN', () => s.has(FCF.DCN, mark));
      fe.command({ kind: 'hangup' });
      s.finish();
      await s.until('spandsp’s phase E', () => s.peer.done !== undefined);
      await s.peer.quit();
    } finally {
      s.peer.kill();
      s.fe.close();
    }
    // TCF: 1.5 s of zeros at 14 400 bit/s (T.30 5.3.6.2.4), give or take a packet.
    expect(tcf.length).toBeGreaterThan(2500);
    expect(tcf.every((b) => b === 0)).toBe(true);
    expect(s.peer.done).toMatchObject({ success: true, pages: 1, compression: 'mh', ecm: false, bitRate: 14400 });
    const original = readTiff(readFileSync(sent))[0]!.bitmap;
    expect(page.badLines).toBe(0);
    expect({ width: page.width, height: page.height }).toEqual({ width: original.width, height: original.height });
    expect(firstDifference(page, original)).toBeNull();
  }, 60_000);
});
