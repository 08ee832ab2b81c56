// Our T.30 session over our T.38 front end against spandsp's T.38 terminal (the peer in
// spandsp/t38peer.c), over UDPTL on 127.0.0.1, both directions, in lockstep: our ManualClock
// and the peer's sample clock advance together in 20 ms steps (peer.ts, lockstep-transport.ts).
// Issue 4, Acceptance: every page pixel-identical (libtiff's tiffcmp), both sides report success
// and the same page count; the failure paths end with the right code.
//
// `wiredOurSide()` is the one place that knows our engine's API: T30Session (src/t30) over
// T38FrontEnd and udp.ts (src/transport/t38), behind the lockstep transport.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { readTiff } from '../../src/documents/tiff-read.js';
import { writeTiffF } from '../../src/documents/tiff-f.js';
import { T30Session, type PageFormats, type PageSource, type ReceivedPage, type Resolution, type T30Config, type T30Result } from '../../src/t30/index.js';
import { openUdpTransport, T38FrontEnd, type DatagramTransport } from '../../src/transport/t38/index.js';
import { LockstepTransport, ourParty } from './lockstep-transport.js';
import { peerParty, runLockstep, SpandspPeer, type PeerFailMode, type PeerOptions } from './peer.js';
import { buildPeer, INTEROP_REQUIRED } from './spandsp/build.js';
import { QUALITIES, REDUNDANCY, selectedMatrix, writeCaseDocument, type LineCompression, type T38Case } from './t38-matrix.js';
import { compareFaxTiffs } from './tiff-compare.js';

/** One call of ours, as the harness needs it. */
export interface OurCallSpec {
  role: 'send' | 'receive';
  /** The UDPTL datagrams (already connected to the peer). */
  transport: DatagramTransport;
  clock: ManualClock;
  ecm: boolean;
  /** UDPTL redundancy depth of what we send. */
  redundancy: number;
  /** T.38 version both sides speak (the peer's --t38-version). */
  t38Version: 0;
  ident: string;
  /** Sending: the TIFF-F to send (pages at the case's quality, coded in the case's coding). */
  document?: Buffer;
  /** Receiving: the codings our DIS offers (MH is always offered). */
  compressions?: LineCompression[];
}

export interface OurResult {
  success: boolean;
  /** docs/api.md code (0, -3103 …). */
  code: number;
  /** spandsp-style completion name, e.g. 'T30_ERR_OK', 'T30_ERR_T1_EXPIRED'. */
  completion: string;
  /** Pages confirmed (sending) or accepted (receiving). */
  pages: number;
  bitRate: number;
  ecm: boolean;
  compression: LineCompression;
  /** "204x98", "204x196", "408x391" … */
  resolution: string;
  remoteIdent: string;
}

export interface OurCall {
  /** The outcome, once the call is over (T.30 phase E). */
  readonly result: OurResult | undefined;
  /** Receiving: the received pages as a TIFF-F file. */
  receivedTiff(): Buffer;
}

const RESOLUTION_OF_DPI: Record<string, Resolution> = { '204x98': 'R8_STANDARD', '204x196': 'R8_FINE', '204x391': 'R8_SUPERFINE', '408x391': 'R16_SUPERFINE' };

/** Our pages to send, from a TIFF-F (always as they are: the matrix never needs a re-render). */
function tiffSource(document: Buffer): { source: PageSource; formats: PageFormats } {
  const pages = readTiff(document);
  const resolution = RESOLUTION_OF_DPI[`${Math.round(pages[0]!.xDpi ?? 204)}x${Math.round(pages[0]!.yDpi ?? 98)}`] ?? 'R8_FINE';
  return { source: { count: pages.length, get: (i) => pages[i]!.bitmap }, formats: { resolutions: [resolution], widths: ['a4'] } };
}

/** Starts our side of a call: T30Session over T38FrontEnd. */
function wiredOurSide(): ((spec: OurCallSpec) => OurCall) | undefined {
  return (spec) => {
    const t38 = new T38FrontEnd({
      transport: spec.transport,
      clock: spec.clock,
      version: spec.t38Version,
      errorCorrection: { scheme: 'redundancy', depth: spec.redundancy },
      pacing: 'realtime',
    });
    const frontEnd = t38;
    const received: ReceivedPage[] = [];
    let result: T30Result | undefined;
    const config: T30Config =
      spec.role === 'send'
        ? { role: 'caller', ident: spec.ident, ecm: spec.ecm, ...tiffSource(spec.document!) }
        : { role: 'answerer', ident: spec.ident, ecm: spec.ecm, ...(spec.compressions ? { codings: spec.compressions } : {}) };
    const session = new T30Session({
      config,
      frontEnd,
      clock: spec.clock,
      onProgress: (p) => {
        if (p.kind === 'page-received') received.push(p.page);
        if (p.kind === 'done') result = p.result;
      },
    });
    session.start();
    return {
      get result(): OurResult | undefined {
        if (!result) return undefined;
        const p = result.params;
        return {
          success: result.completion === 'T30_ERR_OK',
          code: result.code,
          completion: result.completion,
          pages: result.pages,
          bitRate: p?.modem.bitRate ?? 0,
          ecm: p?.ecm ?? false,
          compression: p?.coding ?? 'mh',
          resolution: p ? `${p.xDpi}x${p.yDpi}` : '',
          remoteIdent: result.remoteIdent ?? '',
        };
      },
      receivedTiff: () =>
        writeTiffF(
          received.map((r) => ({ bitmap: r.bitmap!, xDpi: r.params.xDpi, yDpi: r.params.yDpi })),
          { compression: 'mmr' },
        ),
    };
  };
}

const build = buildPeer();
const ourSide = wiredOurSide();
const dir = mkdtempSync(join(tmpdir(), 'faxstack-t38-interop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface CallOutcome {
  ours: OurResult | undefined;
  peer: SpandspPeer;
  simulatedMs: number;
  ourCall: OurCall;
}

/** Runs one call: the peer with `peerOpts`, ours with `spec`, in lockstep until both are done. */
async function runCall(
  start: (spec: OurCallSpec) => OurCall,
  spec: Omit<OurCallSpec, 'transport' | 'clock' | 't38Version'>,
  peerOpts: PeerOptions,
  opts: { maxSimulatedMs: number; until?: (ours: OurCall, peer: SpandspPeer) => boolean },
): Promise<CallOutcome> {
  if (!build.ok) throw new Error(build.reason);
  const peer = await SpandspPeer.start(build.binary, peerOpts);
  const udp = await openUdpTransport({ bindHost: '127.0.0.1', remoteHost: '127.0.0.1', remotePort: peer.port }).catch((err: unknown) => {
    peer.kill();
    throw err;
  });
  try {
    await peer.setRemote(`127.0.0.1:${udp.local.port}`);
    const transport = new LockstepTransport(udp);
    const clock = new ManualClock();
    const ourCall = start({ ...spec, transport, clock, t38Version: 0 });
    const until = opts.until ?? ((o, p) => o.result !== undefined && p.done !== undefined);
    const simulatedMs = await runLockstep(
      ourParty(clock, transport, () => ourCall.result !== undefined),
      peerParty(peer),
      { maxSimulatedMs: opts.maxSimulatedMs, tailMs: 500, done: () => until(ourCall, peer) },
    );
    await peer.quit();
    transport.close();
    return { ours: ourCall.result, peer, simulatedMs, ourCall };
  } catch (err) {
    peer.kill();
    udp.close();
    throw err;
  }
}

function peerLoss(c: T38Case): Partial<PeerOptions> {
  // The peer drops in both directions: its own datagrams (lossPct) and ours on their way in (lossRxPct).
  return { lossPct: c.lossPct, lossRxPct: c.lossPct, maxBurst: c.maxBurst, seed: c.seed, redundancy: c.redundancy };
}

async function matrixCase(start: (spec: OurCallSpec) => OurCall, c: T38Case): Promise<void> {
  const tag = c.name.replace(/[^a-z0-9]+/gi, '-');
  const sent = join(dir, `${tag}-sent.tif`);
  const received = join(dir, `${tag}-received.tif`);
  const q = QUALITIES[c.quality];
  if (c.direction === 'us-to-spandsp') {
    writeCaseDocument(c, sent);
    const { ours, peer } = await runCall(
      start,
      { role: 'send', ecm: c.ecm, redundancy: c.redundancy, ident: 'FAXSTACK', document: readFileSync(sent) },
      { role: 'receive', tiff: received, ecm: c.ecm, allowCompression: [c.compression], allowResolution: q.peerResolutions, ...peerLoss(c) },
      { maxSimulatedMs: c.maxSimulatedMs },
    );
    expect(ours, 'our side finished').toBeDefined();
    expect(peer.done, 'spandsp finished').toBeDefined();
    expect({ success: ours!.success, code: ours!.code, pages: ours!.pages }).toEqual({ success: true, code: 0, pages: c.pages });
    expect({ success: peer.done!.success, pages: peer.done!.pages }).toEqual({ success: true, pages: c.pages });
    expect({ ecm: peer.done!.ecm, compression: peer.done!.compression, resolution: peer.done!.resolution }).toEqual({ ecm: c.ecm, compression: c.compression, resolution: q.line });
    expect(peer.done!.remoteIdent).toBe('FAXSTACK');
  } else {
    writeCaseDocument(c, sent);
    const { ours, peer, ourCall } = await runCall(
      start,
      { role: 'receive', ecm: c.ecm, redundancy: c.redundancy, ident: 'FAXSTACK', compressions: [c.compression] },
      { role: 'send', tiff: sent, ecm: c.ecm, ...peerLoss(c) },
      { maxSimulatedMs: c.maxSimulatedMs },
    );
    expect(ours, 'our side finished').toBeDefined();
    expect(peer.done, 'spandsp finished').toBeDefined();
    expect({ success: peer.done!.success, pages: peer.done!.pages }).toEqual({ success: true, pages: c.pages });
    expect({ success: ours!.success, code: ours!.code, pages: ours!.pages }).toEqual({ success: true, code: 0, pages: c.pages });
    expect({ ecm: ours!.ecm, compression: ours!.compression, resolution: ours!.resolution }).toEqual({ ecm: c.ecm, compression: c.compression, resolution: q.line });
    writeFileSync(received, ourCall.receivedTiff());
  }
  const cmp = compareFaxTiffs(sent, received, dir, tag);
  expect(cmp.detail).toBe('');
}

interface FailureCase {
  name: string;
  /** Our role; the peer takes the other one and fails as `fail` says. */
  role: 'send' | 'receive';
  fail: PeerFailMode;
  ecm: boolean;
  /** docs/api.md code our side must end with, and the pages it must have confirmed. */
  code: number;
  pages: number;
}

const FAILURES: FailureCase[] = [
  { name: 'spandsp never answers: no fax machine (T1)', role: 'send', fail: 'no-answer', ecm: true, code: -3103, pages: 0 },
  { name: 'spandsp hangs up in page 2 (ECM): call dropped after 1 page', role: 'send', fail: 'hangup-mid-page', ecm: true, code: -3108, pages: 1 },
  { name: 'spandsp hangs up in page 2 (no ECM): call dropped after 1 page', role: 'send', fail: 'hangup-mid-page', ecm: false, code: -3108, pages: 1 },
  { name: 'spandsp refuses our DCS: receiver cannot accept this document', role: 'send', fail: 'reject-coding', ecm: true, code: -3106, pages: 0 },
  { name: 'spandsp answers FTT at every rate: training failed', role: 'send', fail: 'ftt-always', ecm: false, code: -3105, pages: 0 },
  // We send nothing while waiting for the post-page command, so even ICMP cannot tell us: T2.
  { name: 'spandsp (sending) hangs up in page 2 (no ECM): T2 expires after 1 page', role: 'receive', fail: 'hangup-mid-page', ecm: false, code: -3107, pages: 1 },
  { name: 'spandsp (sending) hangs up in page 2 (ECM): T2 expires after 1 page', role: 'receive', fail: 'hangup-mid-page', ecm: true, code: -3107, pages: 1 },
];

async function failureCase(start: (spec: OurCallSpec) => OurCall, f: FailureCase): Promise<void> {
  const tag = `fail-${f.fail}-${f.role}-${f.ecm}`;
  const doc = join(dir, `${tag}.tif`);
  writeCaseDocument({ quality: 'Standard', pages: 3, compression: 'mh' }, doc);
  const peerOpts: PeerOptions =
    f.role === 'send'
      ? { role: 'receive', tiff: join(dir, `${tag}-rx.tif`), ecm: f.ecm, fail: f.fail, failPage: 2, redundancy: REDUNDANCY }
      : { role: 'send', tiff: doc, ecm: f.ecm, fail: f.fail, failPage: 2, redundancy: REDUNDANCY };
  const spec = f.role === 'send'
    ? { role: 'send' as const, ecm: f.ecm, redundancy: REDUNDANCY, ident: 'FAXSTACK', document: readFileSync(doc) }
    : { role: 'receive' as const, ecm: f.ecm, redundancy: REDUNDANCY, ident: 'FAXSTACK' };
  const { ours } = await runCall(start, spec, peerOpts, { maxSimulatedMs: 5 * 60_000, until: (o) => o.result !== undefined });
  expect(ours, 'our side finished').toBeDefined();
  expect({ success: ours!.success, code: ours!.code, pages: ours!.pages }).toEqual({ success: false, code: f.code, pages: f.pages });
}

describe.skipIf(!build.ok && !INTEROP_REQUIRED)('T.38: our T.30 session vs spandsp', () => {
  it('builds the spandsp peer', () => {
    expect(build.ok ? '' : build.reason).toBe('');
  });

  const cases = selectedMatrix(['us-to-spandsp', 'spandsp-to-us']);
  describe('matrix: pixel-identical pages, success and the same page count on both sides', () => {
    for (const c of cases) {
      if (!ourSide) it.todo(c.name);
      else it(c.name, () => matrixCase(ourSide, c), 600_000);
    }
  });

  describe('failure paths end with the right code', () => {
    for (const f of FAILURES) {
      if (!ourSide) it.todo(f.name);
      else it(f.name, () => failureCase(ourSide, f), 120_000);
    }
  });
});
