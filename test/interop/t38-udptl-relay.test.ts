// Our UDPTL and IFP code in the middle of a spandsp-to-spandsp fax: every datagram one peer sends
// is taken apart by our UdptlReceiver (with its redundancy recovery), each IFP packet decoded by
// decodeIfp and encoded again by encodeIfp (which must give back spandsp's exact octets), and
// sent on by our UdptlSender with its own sequence numbers and redundancy. The fax only gets
// through, pixel-identical, if both directions of our T.38 packet layer read and write what
// spandsp's t38_core writes and reads, under loss on both legs.
import { createSocket, type Socket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeIfp, decodeIfpPrefix, encodeIfp, type T38Version } from '../../src/transport/t38/ifp.js';
import { UdptlReceiver } from '../../src/transport/t38/udptl-receiver.js';
import { UdptlSender, type ErrorCorrection } from '../../src/transport/t38/udptl.js';
import { SpandspPeer } from './peer.js';
import { buildPeer, INTEROP_REQUIRED } from './spandsp/build.js';
import { QUALITIES, writeCaseDocument, type LineCompression, type Quality } from './t38-matrix.js';
import { compareFaxTiffs } from './tiff-compare.js';

const build = buildPeer();
const dir = mkdtempSync(join(tmpdir(), 'faxstack-t38-relay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Steps without a datagram after which a leg gives up what it still misses (lockstep has no reordering). */
const IDLE_FLUSH_STEPS = 5;

/** One direction through the relay: datagrams in on one socket, out on the other. */
class Leg {
  readonly arrived: Uint8Array[] = [];
  arrivedTotal = 0;
  taken = 0;
  sentTotal = 0;
  idleSteps = 0;
  ifpPackets = 0;
  roundTripMismatches: string[] = [];
  decodeErrors: string[] = [];
  private readonly receiver: UdptlReceiver;
  private readonly sender: UdptlSender;

  constructor(inSock: Socket, private readonly outSock: Socket, version: T38Version, errorCorrection: ErrorCorrection) {
    inSock.on('message', (m) => {
      this.arrived.push(new Uint8Array(m));
      this.arrivedTotal++;
    });
    this.sender = new UdptlSender({ errorCorrection });
    this.receiver = new UdptlReceiver({
      // FEC rebuilds come zero-padded to the longest packet of their group.
      trimRecovered: (bytes) => decodeIfpPrefix(bytes, version).length,
      onIfp: ({ ifp }) => {
        this.ifpPackets++;
        try {
          const again = encodeIfp(decodeIfp(ifp, version), version);
          if (Buffer.compare(Buffer.from(again), Buffer.from(ifp)) !== 0 && this.roundTripMismatches.length < 5) {
            this.roundTripMismatches.push(`${Buffer.from(ifp).toString('hex')} → ${Buffer.from(again).toString('hex')}`);
          }
        } catch (err) {
          if (this.decodeErrors.length < 5) this.decodeErrors.push(`${Buffer.from(ifp).toString('hex')}: ${(err as Error).message}`);
        }
        // Forward spandsp's own octets: the far peer judges our UDPTL, not our IFP encoder.
        this.outSock.send(this.sender.packetize(ifp));
        this.sentTotal++;
      },
    });
  }

  get stats() {
    return this.receiver.stats;
  }

  /** Takes in exactly the first `expect` datagrams (waiting for the kernel if need be). */
  async take(expect: number): Promise<void> {
    const started = Date.now();
    while (this.arrivedTotal < expect) {
      if (Date.now() - started > 5000) throw new Error(`relay barrier: ${this.arrivedTotal} of ${expect}`);
      await new Promise<void>((r) => setImmediate(r));
    }
    const before = this.taken;
    while (this.taken < expect) {
      this.receiver.receive(this.arrived.shift()!);
      this.taken++;
    }
    this.idleSteps = this.taken === before ? this.idleSteps + 1 : 0;
    if (this.idleSteps === IDLE_FLUSH_STEPS && this.receiver.pending) this.receiver.flush();
  }
}

async function udp(): Promise<Socket> {
  const s = createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', r));
  return s;
}

interface RelayCase {
  name: string;
  version: T38Version;
  ecm: boolean;
  compression: LineCompression;
  quality: Quality;
  pages: number;
  lossPct: number;
  /** UDPTL FEC (both ways) instead of redundancy 3. */
  fec?: { span: number; entries: number };
}

const CASES: RelayCase[] = [
  { name: 'T.38 v0, ECM, MMR, Standard, 2 pages, 10 % loss', version: 0, ecm: true, compression: 'mmr', quality: 'Standard', pages: 2, lossPct: 10 },
  { name: 'T.38 v0, no ECM, MR, Low, 2 pages, 5 % loss', version: 0, ecm: false, compression: 'mr', quality: 'Low', pages: 2, lossPct: 5 },
  { name: 'T.38 v3, ECM, MH, HD, 1 page, 5 % loss', version: 3, ecm: true, compression: 'mh', quality: 'HD', pages: 1, lossPct: 5 },
  { name: 'T.38 v2, no ECM, MH, Standard, 1 page, 0 % loss', version: 2, ecm: false, compression: 'mh', quality: 'Standard', pages: 1, lossPct: 0 },
  { name: 'T.38 v0, ECM, MR, Low, 2 pages, 5 % loss, FEC 3×3', version: 0, ecm: true, compression: 'mr', quality: 'Low', pages: 2, lossPct: 5, fec: { span: 3, entries: 3 } },
];

describe.skipIf(!build.ok && !INTEROP_REQUIRED)('T.38: our UDPTL/IFP layer relaying a spandsp-to-spandsp fax', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_n, c) => {
    if (!build.ok) throw new Error(build.reason);
    const tag = c.name.replace(/[^a-z0-9]+/gi, '-');
    const sent = join(dir, `${tag}-tx.tif`);
    writeCaseDocument(c, sent);
    const [toTx, toRx] = [await udp(), await udp()];
    // Loss on both legs of both directions: each peer drops some of what it sends and some of
    // what reaches it, never more than the redundancy depth in a row without ECM.
    const loss = { lossPct: c.lossPct, lossRxPct: c.lossPct, maxBurst: c.ecm ? undefined : 3, redundancy: 3, fec: c.fec, t38Version: c.version as 0 };
    const ec: ErrorCorrection = c.fec ? { scheme: 'fec', ...c.fec } : { scheme: 'redundancy', depth: 3 };
    const rx = await SpandspPeer.start(build.binary, {
      role: 'receive', tiff: join(dir, `${tag}-rx.tif`), ecm: c.ecm, seed: 3, ...loss,
      remote: `127.0.0.1:${toRx.address().port}`, allowCompression: [c.compression], allowResolution: QUALITIES[c.quality].peerResolutions,
    });
    const tx = await SpandspPeer.start(build.binary, { role: 'send', tiff: sent, ecm: c.ecm, seed: 4, ...loss, remote: `127.0.0.1:${toTx.address().port}` });
    await new Promise<void>((r) => toTx.connect(tx.port, '127.0.0.1', r));
    await new Promise<void>((r) => toRx.connect(rx.port, '127.0.0.1', r));
    const forward = new Leg(toTx, toRx, c.version, ec); // tx → rx
    const backward = new Leg(toRx, toTx, c.version, ec); // rx → tx
    try {
      let steps = 0;
      let tail = 25;
      while (steps++ < (10 * 60_000) / 20) {
        const [txSent, rxSent, fwdSent, bwdSent] = [tx.sentTotal, rx.sentTotal, forward.sentTotal, backward.sentTotal];
        await Promise.all([tx.tick(160, bwdSent), rx.tick(160, fwdSent), forward.take(txSent), backward.take(rxSent)]);
        if (tx.done && rx.done && --tail === 0) break;
      }
      await Promise.all([tx.quit(), rx.quit()]);
    } finally {
      tx.kill();
      rx.kill();
      toTx.close();
      toRx.close();
    }
    for (const leg of [forward, backward]) {
      expect(leg.decodeErrors).toEqual([]);
      expect(leg.roundTripMismatches).toEqual([]);
      expect(leg.stats.malformed).toBe(0);
    }
    expect(forward.ifpPackets).toBeGreaterThan(100); // the fax really went through the relay
    if (c.lossPct > 0 && !c.fec) expect(forward.stats.recoveredRedundancy).toBeGreaterThan(0);
    if (c.lossPct > 0 && c.fec) {
      // Our receiver rebuilt from the peer's parity, the peer from ours.
      expect(forward.stats.recoveredFec).toBeGreaterThan(0);
      expect(rx.done!.udptl.recoveredFec).toBeGreaterThan(0);
    }
    expect({ success: tx.done?.success, pages: tx.done?.pages }).toEqual({ success: true, pages: c.pages });
    expect({ success: rx.done?.success, pages: rx.done?.pages, compression: rx.done?.compression, ecm: rx.done?.ecm }).toEqual({
      success: true, pages: c.pages, compression: c.compression, ecm: c.ecm,
    });
    expect(compareFaxTiffs(sent, join(dir, `${tag}-rx.tif`), dir, tag).detail).toBe('');
  }, 120_000);
});
