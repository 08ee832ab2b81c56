// T.38 captures of real calls (two T30Sessions over T38FrontEnds, every datagram recorded) as
// pcap files: frames, mode, TCF and pages pixel for pixel in both T.38 versions; datagrams lost
// from the capture rebuilt from redundancy; SIP, RTP and other calls' packets skipped and
// counted; the caller found by the first packet or named; local TCF.
import { beforeAll, describe, expect, it } from 'vitest';
import { firstDifference, type Bitmap } from '../codecs/index.js';
import { textPage } from '../../test/vectors/synthetic-pages.js';
import { seededRandom } from '../transport/t38/index.js';
import { analyzeCapture } from './analyze.js';
import type { CallAnalysis, ReportEntry } from './call-analysis.js';
import { writePcap, type Endpoint, type PcapRecordInput, type WritePcapOptions } from './pcap.js';
import { recordCall, type RecordCallOptions, type RecordedCall } from '../../test/kit/call-synth.js';

const CALLER: Endpoint = { host: '192.0.2.10', port: 40000 };
const ANSWERER: Endpoint = { host: '203.0.113.5', port: 5004 };
const T0 = 1_750_000_000_000_000;

function pcapOf(call: RecordedCall, o: { caller?: Endpoint; answerer?: Endpoint; keep?: (i: number) => boolean; extra?: PcapRecordInput[]; pcap?: WritePcapOptions } = {}): Uint8Array {
  const a = o.caller ?? CALLER;
  const b = o.answerer ?? ANSWERER;
  const records: PcapRecordInput[] = call.datagrams
    .filter((_, i) => o.keep?.(i) ?? true)
    .map((d) => ({ timeUs: T0 + d.atMs * 1000, src: d.from === 'caller' ? a : b, dst: d.from === 'caller' ? b : a, payload: d.data }));
  records.push(...(o.extra ?? []));
  records.sort((x, y) => x.timeUs - y.timeUs);
  return writePcap(records, o.pcap);
}

const frameNames = (c: CallAnalysis) => c.entries.filter((e): e is Extract<ReportEntry, { kind: 'frame' }> => e.kind === 'frame').map((e) => `${e.from === 'caller' ? '>' : '<'}${e.name}`);

function expectPages(c: CallAnalysis, source: readonly Bitmap[]): void {
  expect(c.pages).toHaveLength(source.length);
  c.pages.forEach((p, i) => {
    expect(p.error, `page ${i + 1}`).toBeUndefined();
    expect(firstDifference(p.bitmap!, source[i]!), `page ${i + 1}`).toBeNull();
  });
}

const pages = [textPage(1728, 240, 11), textPage(1728, 160, 12)];
const calls = new Map<string, RecordedCall>();
const CALLS: Record<string, Omit<RecordCallOptions, 'pages'>> = {
  'ecm-v0': { ecm: true, fe: { version: 0 } },
  'ecm-v3': { ecm: true, fe: { version: 3 } },
  'non-ecm-v0': { ecm: false, fe: { version: 0 } },
  'non-ecm-v3': { ecm: false, fe: { version: 3 } },
  'local-tcf': { ecm: false, fe: { rateManagement: 'localTCF' } },
};

beforeAll(async () => {
  for (const [name, o] of Object.entries(CALLS)) {
    const call = await recordCall({ pages, ...o });
    expect(call.caller.completion, name).toBe('T30_ERR_OK');
    calls.set(name, call);
  }
});

describe('analyzeT38 over recorded calls', () => {
  it.each([
    ['ecm-v0', 0, true],
    ['ecm-v3', 3, true],
    ['non-ecm-v0', 0, false],
    ['non-ecm-v3', 3, false],
  ] as const)('%s: frames, version, mode, TCF and pages', (name, version, ecm) => {
    const a = analyzeCapture(pcapOf(calls.get(name)!));
    expect(a.format).toBe('pcap');
    expect(a.t38).toMatchObject({ version, caller: '192.0.2.10:40000', answerer: '203.0.113.5:5004', sip: 0, other: 0, lost: 0 });
    expect(frameNames(a.call)).toEqual(
      ecm
        ? ['<CSI', '<DIS', '>TSI', '>DCS', '<CFR', '>PPS', '<MCF', '>PPS', '<MCF', '>DCN']
        : ['<CSI', '<DIS', '>TSI', '>DCS', '<CFR', '>MPS', '<MCF', '>EOP', '<MCF', '>DCN'],
    );
    expect(a.call.mode?.text).toMatch(ecm ? /^V\.17 14400, ECM, MMR, R8×7\.7, A4/ : /^V\.17 14400, MR, R8×7\.7, A4/);
    expect(a.call.entries.find((e) => e.kind === 'tcf')).toMatchObject({ from: 'caller', training: 'long', measured: { ok: true, errors: 0, bits: 21600 } });
    expect(a.call.entries.filter((e) => e.kind === 'tone').map((e) => `${e.from}:${(e as { tone: string }).tone}`)).toEqual(['caller:CNG', 'answerer:CED']);
    expectPages(a.call, pages);
    a.call.pages.forEach((p) => expect(p.training).toBe('short'));
  });

  it('T.38 version forced wrong: the reading makes no sense (fewer frames), which is why it is guessed', () => {
    const right = analyzeCapture(pcapOf(calls.get('non-ecm-v3')!), { t38Version: 3 });
    const wrong = analyzeCapture(pcapOf(calls.get('non-ecm-v3')!), { t38Version: 0 });
    expect(right.call.frames.ok).toBe(10);
    expect(wrong.call.frames.ok).toBeLessThan(10);
  });

  it.each([
    ['ecm-v3', 0.1],
    ['non-ecm-v0', 0.08],
  ])('%s with %s of the datagrams missing from the capture: redundancy fills the gaps', (name, loss) => {
    const rand = seededRandom(42);
    const a = analyzeCapture(pcapOf(calls.get(name)!, { keep: () => rand() >= loss }));
    expect(a.t38!.recovered).toBeGreaterThan(10);
    expect(a.t38!.lost).toBe(0);
    expect(a.call.frames).toEqual({ ok: 10, bad: 0 });
    expectPages(a.call, pages);
  });

  it('SIP, RTP and another call\'s UDPTL in the same capture are skipped and counted', () => {
    const call = calls.get('ecm-v0')!;
    const sip = (t: number, text: string): PcapRecordInput => ({ timeUs: T0 + t, src: { host: '192.0.2.99', port: 5060 }, dst: { host: '192.0.2.10', port: 5060 }, payload: new TextEncoder().encode(text) });
    const rtp = Uint8Array.from([0x80, 0x00, 0x12, 0x34, 0, 0, 0, 160, 1, 2, 3, 4, ...new Array<number>(160).fill(0xff)]);
    const other = call.datagrams[5]!.data;
    const a = analyzeCapture(
      pcapOf(call, {
        extra: [
          sip(-2_000_000, 'INVITE sip:100@192.0.2.10 SIP/2.0\r\nVia: SIP/2.0/UDP 192.0.2.99\r\n\r\n'),
          sip(-1_900_000, 'SIP/2.0 200 OK\r\n\r\n'),
          { timeUs: T0 - 1_000_000, src: { host: '192.0.2.10', port: 10000 }, dst: { host: '192.0.2.99', port: 20000 }, payload: rtp },
          { timeUs: T0 + 1_000_000, src: { host: '198.51.100.1', port: 7000 }, dst: { host: '198.51.100.2', port: 7000 }, payload: other },
        ],
      }),
    );
    expect(a.t38).toMatchObject({ sip: 2, other: 1, otherFlows: 1, caller: '192.0.2.10:40000' });
    expect(a.description).toMatch(/skipped 2 SIP, 1 other, 1 UDPTL of other calls/);
    // Time zero is the first datagram of the capture (the INVITE).
    expect(a.call.entries[0]!.atMs).toBeCloseTo(2000, 0);
    expectPages(a.call, pages);
  });

  it('--caller names the other side: directions flip', () => {
    const a = analyzeCapture(pcapOf(calls.get('ecm-v0')!), { caller: ANSWERER });
    expect(a.t38).toMatchObject({ caller: '203.0.113.5:5004', answerer: '192.0.2.10:40000' });
    expect(frameNames(a.call).slice(0, 4)).toEqual(['>CSI', '>DIS', '<TSI', '<DCS']);
  });

  it('IPv6 endpoints in a Linux cooked capture with nanosecond times', () => {
    const a = analyzeCapture(
      pcapOf(calls.get('non-ecm-v0')!, { caller: { host: '2001:db8::10', port: 4000 }, answerer: { host: '2001:db8::20', port: 4002 }, pcap: { linkType: 113, nanoseconds: true } }),
    );
    expect(a.t38).toMatchObject({ caller: '[2001:db8::10]:4000', answerer: '[2001:db8::20]:4002' });
    expectPages(a.call, pages);
  });

  it('local TCF (T38FaxRateManagement localTCF): the TCF is reported as not carried', () => {
    const a = analyzeCapture(pcapOf(calls.get('local-tcf')!));
    const tcf = a.call.entries.find((e) => e.kind === 'tcf');
    expect(tcf).toMatchObject({ trained: true });
    expect(tcf).not.toHaveProperty('measured');
    expectPages(a.call, pages);
  });

  it('a capture with no UDPTL at all: no frames, a warning', () => {
    const a = analyzeCapture(writePcap([{ timeUs: T0, src: CALLER, dst: ANSWERER, payload: new TextEncoder().encode('OPTIONS sip:x SIP/2.0\r\n\r\n') }]));
    expect(a.call.frames).toEqual({ ok: 0, bad: 0 });
    expect(a.warnings).toContain('no UDPTL (T.38) datagrams found');
  });
});
