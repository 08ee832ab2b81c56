// The recorded reference sessions of fixtures/sessions/ hold what their README says, without
// spandsp: every sidecar parses and agrees with itself (its DCS says the modulation, ECM, coding
// and resolution it expects), every WAV is 8 kHz stereo µ-law of a plausible length and level,
// every pcap is classic libpcap of valid IPv4/UDP/UDPTL between the two documented endpoints,
// and every source page is a valid TIFF class F page. Tests that replay the sessions through our
// receiver rely on exactly these formats.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTiff } from '../../src/documents/tiff-read.js';
import { readSidecar, SESSIONS_DIR, sidecarFiles, type Sidecar } from './sessions.js';

const DIR = SESSIONS_DIR;
const names = sidecarFiles().map((f) => f.slice(0, -5));
const sidecar = (name: string): Sidecar => readSidecar(`${name}.json`);
const mediaFile = (name: string, s: Sidecar): string => join(DIR, `${name}.${s.format === 'pcap' ? 'pcap' : 'wav'}`);

/** FIF bit n (T.30 Table 2 numbering, from 1) of a frame given as address, control, FCF, FIF. */
function fifBit(frame: Uint8Array, n: number): boolean {
  const octet = frame[3 + ((n - 1) >> 3)];
  return octet !== undefined && ((octet >> ((n - 1) & 7)) & 1) === 1;
}

/** The modulation DCS bits 11-14 select (T.30 Table 2). */
function dcsModulation(dcs: Uint8Array): string {
  if (fifBit(dcs, 14)) return 'V.17';
  return fifBit(dcs, 11) ? 'V.29' : 'V.27ter';
}

/** The µ-law expansion of G.711 (Table 2a), to 16-bit linear. */
function ulawToLinear(u: number): number {
  const b = ~u & 0xff;
  const t = (((b & 0x0f) << 3) + 0x84) << ((b >> 4) & 7);
  return b & 0x80 ? 0x84 - t : t - 0x84;
}

/** dBm0 as spandsp counts it: a full-scale µ-law sine is +3.14 dBm0. */
function dbm0(samples: Int16Array | number[]): number {
  let sum = 0;
  for (const v of samples) sum += v * v;
  return sum === 0 ? -Infinity : 10 * Math.log10(sum / samples.length / (32768 * 32768 / 2)) + 3.14;
}

interface Wav {
  format: number;
  channels: number;
  rate: number;
  byteRate: number;
  blockAlign: number;
  bits: number;
  factFrames: number | null;
  data: Uint8Array;
}

function parseWav(buf: Buffer): Wav {
  expect(buf.toString('latin1', 0, 4)).toBe('RIFF');
  expect(buf.toString('latin1', 8, 12)).toBe('WAVE');
  expect(buf.readUInt32LE(4)).toBe(buf.length - 8);
  let fmt: Omit<Wav, 'factFrames' | 'data'> | undefined;
  let factFrames: number | null = null;
  let data: Uint8Array | undefined;
  for (let at = 12; at < buf.length; ) {
    const id = buf.toString('latin1', at, at + 4);
    const size = buf.readUInt32LE(at + 4);
    expect(at + 8 + size, `chunk ${id} fits`).toBeLessThanOrEqual(buf.length);
    const body = buf.subarray(at + 8, at + 8 + size);
    if (id === 'fmt ') {
      expect(size).toBeGreaterThanOrEqual(16);
      fmt = { format: body.readUInt16LE(0), channels: body.readUInt16LE(2), rate: body.readUInt32LE(4), byteRate: body.readUInt32LE(8), blockAlign: body.readUInt16LE(12), bits: body.readUInt16LE(14) };
      if (size >= 18) expect(body.readUInt16LE(16), 'cbSize').toBe(0);
    } else if (id === 'fact') {
      factFrames = body.readUInt32LE(0);
    } else if (id === 'data') {
      data = body;
    }
    at += 8 + size + (size & 1);
  }
  if (!fmt || !data) throw new Error('WAV without fmt or data chunk');
  return { ...fmt, factFrames, data };
}

interface PcapRecord {
  timeUs: number;
  packet: Buffer;
}

function parsePcap(buf: Buffer): { linktype: number; records: PcapRecord[] } {
  expect(buf.readUInt32LE(0), 'magic: little-endian, microseconds').toBe(0xa1b2c3d4);
  expect([buf.readUInt16LE(4), buf.readUInt16LE(6)]).toEqual([2, 4]);
  const snaplen = buf.readUInt32LE(16);
  const records: PcapRecord[] = [];
  let at = 24;
  while (at < buf.length) {
    expect(at + 16, 'record header fits').toBeLessThanOrEqual(buf.length);
    const [sec, usec, incl, orig] = [0, 4, 8, 12].map((o) => buf.readUInt32LE(at + o)) as [number, number, number, number];
    expect(usec).toBeLessThan(1_000_000);
    expect(incl).toBe(orig);
    expect(incl).toBeLessThanOrEqual(snaplen);
    expect(at + 16 + incl, 'record fits').toBeLessThanOrEqual(buf.length);
    records.push({ timeUs: sec * 1_000_000 + usec, packet: buf.subarray(at + 16, at + 16 + incl) });
    at += 16 + incl;
  }
  return { linktype: buf.readUInt32LE(20), records };
}

function inetChecksum(bytes: Uint8Array, initial = 0): number {
  let sum = initial;
  for (let i = 0; i + 1 < bytes.length; i += 2) sum += (bytes[i]! << 8) | bytes[i + 1]!;
  if (bytes.length & 1) sum += bytes[bytes.length - 1]! << 8;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return sum;
}

/** PER length determinant (X.691 10.9, short and long forms). */
function readLength(b: Uint8Array, pos: number): [number, number] {
  const first = b[pos]!;
  if ((first & 0x80) === 0) return [first, pos + 1];
  expect(first & 0xc0, 'no fragmented lengths in UDPTL').toBe(0x80);
  return [((first & 0x3f) << 8) | b[pos + 1]!, pos + 2];
}

/** T.38 9.1 UDPTL packet with secondary-ifp-packets recovery: sequence number, primary IFP, secondaries. */
function parseUdptl(b: Uint8Array): { seq: number; primary: Uint8Array; secondaries: Uint8Array[] } {
  const seq = (b[0]! << 8) | b[1]!;
  let [len, pos] = readLength(b, 2);
  const primary = b.subarray(pos, pos + len);
  pos += len;
  expect(b[pos], 'error-recovery: secondary-ifp-packets').toBe(0x00);
  let count: number;
  [count, pos] = readLength(b, pos + 1);
  const secondaries: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    [len, pos] = readLength(b, pos);
    secondaries.push(b.subarray(pos, pos + len));
    pos += len;
  }
  expect(pos, 'UDPTL packet ends with its last secondary').toBe(b.length);
  return { seq, primary, secondaries };
}

/** T.38 data-type codes (T.38 Annex A, Data-Field type) of the fast modems. */
const T38_DATA_TYPE: Record<string, number> = {
  'V.27ter 2400': 1,
  'V.27ter 4800': 2,
  'V.29 7200': 3,
  'V.29 9600': 4,
  'V.17 7200': 5,
  'V.17 9600': 6,
  'V.17 12000': 7,
  'V.17 14400': 8,
};

describe('fixtures/sessions', () => {
  it('holds audio and T.38 sessions, each with its media, document and sidecar, listed in the README', () => {
    expect(names.filter((n) => sidecar(n).format === 'wav-ulaw-stereo').length).toBeGreaterThanOrEqual(5);
    expect(names.filter((n) => sidecar(n).format === 'pcap').length).toBeGreaterThanOrEqual(2);
    const readme = readFileSync(join(DIR, 'README.md'), 'utf8');
    let total = 0;
    for (const n of names) {
      const s = sidecar(n);
      expect(readme, `README mentions ${n}`).toContain(n);
      for (const f of [mediaFile(n, s), join(DIR, s.document), join(DIR, `${n}.json`)]) total += statSync(f).size;
    }
    expect(total, 'fixtures stay small').toBeLessThan(4 * 1024 * 1024);
  });

  describe.each(names)('%s', (name) => {
    const s = sidecar(name);

    it('has a complete sidecar that agrees with the DIS and DCS it recorded', () => {
      expect(s.description.length).toBeGreaterThan(10);
      expect(s.madeWith).toMatch(/^spandsp \S+ (fax_state_t|t38_terminal)$/);
      expect(s.madeWith.endsWith(s.format === 'pcap' ? 't38_terminal' : 'fax_state_t')).toBe(true);
      expect(s.document).toBe(`${name}.tif`);
      expect(s.expected.completion).toBe(0);
      expect(s.expected.pages).toBe(1);
      expect(s.durationMs).toBeGreaterThan(10_000);
      expect(s.durationMs).toBeLessThan(60_000);
      expect(s.idents.caller).not.toBe(s.idents.answerer);
      if (s.format === 'wav-ulaw-stereo') expect(s.channels).toEqual(['caller', 'answerer']);
      else expect(s.endpoints?.caller.ip).not.toBe(s.endpoints?.answerer.ip);

      const ms = s.frames.map((f) => f.ms);
      expect(ms).toEqual([...ms].sort((a, b) => a - b));
      const frame = (from: string, fcf: string) => s.frames.find((f) => f.from === from && f.fcf === fcf);
      const dis = frame('answerer', 'DIS');
      const dcs = frame('caller', 'DCS');
      expect(dis && dcs, 'a DIS from the answerer and a DCS from the caller').toBeTruthy();
      expect(frame('caller', 'DCN')).toBeDefined();
      const d = Buffer.from(dcs!.hex, 'hex');
      expect(dcsModulation(d)).toBe(s.expected.modulation);
      expect(fifBit(d, 27), 'DCS bit 27: ECM').toBe(s.expected.ecm);
      expect(fifBit(d, 31) ? 'mmr' : fifBit(d, 16) ? 'mr' : 'mh', 'DCS bits 16/31: coding').toBe(s.expected.compression);
      expect(fifBit(d, 15) ? 196 : 98, 'DCS bit 15: fine').toBe(s.expected.resolution.y);
      // Each frame is address 0xff, control 0x03/0x13, then the FCF.
      for (const f of s.frames) expect(f.hex).toMatch(/^ff(03|13)[0-9a-f]{2}/);
    });

    it('has a source page that is valid TIFF class F at the expected resolution', () => {
      const pages = readTiff(readFileSync(join(DIR, s.document)));
      expect(pages).toHaveLength(s.expected.pages);
      const p = pages[0]!;
      expect(p.width).toBe(1728);
      expect(['mh', 'mr', 'mmr']).toContain(p.compression);
      expect(Math.round(p.xDpi ?? 0)).toBe(s.expected.resolution.x);
      expect(Math.round(p.yDpi ?? 0)).toBe(s.expected.resolution.y);
      expect(p.height).toBeGreaterThan(50);
    });

    if (s.format === 'wav-ulaw-stereo') {
      it('is an 8 kHz stereo µ-law WAV as long as the call, the caller on channel 0', () => {
        const w = parseWav(readFileSync(mediaFile(name, s)));
        expect({ format: w.format, channels: w.channels, rate: w.rate, byteRate: w.byteRate, blockAlign: w.blockAlign, bits: w.bits }).toEqual({
          format: 7,
          channels: 2,
          rate: 8000,
          byteRate: 16000,
          blockAlign: 2,
          bits: 8,
        });
        const frames = w.data.length / 2;
        expect(Number.isInteger(frames)).toBe(true);
        expect(w.factFrames).toBe(frames);
        expect((frames / 8000) * 1000).toBeCloseTo(s.durationMs, -1);
        const channel = (c: number, fromMs: number, toMs: number) =>
          Array.from(w.data.subarray(Math.round(fromMs * 8) * 2 + c, Math.round(toMs * 8) * 2), (u, i) => (i % 2 === 0 ? ulawToLinear(u) : null)).filter(
            (v): v is number => v !== null,
          );
        // The caller opens with CNG (0.5 s of 1100 Hz), the answerer waits 200 ms, then CED.
        const level = s.line?.txLevelDbm0 ?? -14;
        expect(dbm0(channel(0, 50, 450))).toBeCloseTo(level + 3, 0); // tones are 3 dB above the modems
        expect(dbm0(channel(1, 0, 150))).toBeLessThan(level - 20);
        expect(dbm0(channel(1, 500, 2500))).toBeCloseTo(level + 3, 0);
        // The DIS (V.21) arrives while the answerer is sending at the modems' level.
        const dis = s.frames.find((f) => f.fcf === 'DIS')!;
        expect(dbm0(channel(1, dis.ms - 300, dis.ms - 100))).toBeCloseTo(level, 0);
      });
    } else {
      it('is a classic pcap of IPv4/UDP/UDPTL between the two endpoints, the caller first', () => {
        const { linktype, records } = parsePcap(readFileSync(mediaFile(name, s)));
        expect(linktype, 'LINKTYPE_RAW').toBe(101);
        const ep = s.endpoints!;
        const addr = (b: Uint8Array) => Array.from(b).join('.');
        const nextSeq = new Map<string, number>();
        const lastPrimaries = new Map<string, Uint8Array[]>();
        const dataTypes = new Set<number>();
        for (const [i, { packet }] of records.entries()) {
          // IPv4 (RFC 791): version 4, 20-octet header, UDP, a valid header checksum.
          expect(packet[0]).toBe(0x45);
          expect(packet.readUInt16BE(2)).toBe(packet.length);
          expect(packet[9]).toBe(17);
          expect(inetChecksum(packet.subarray(0, 20))).toBe(0xffff);
          const [src, dst] = [addr(packet.subarray(12, 16)), addr(packet.subarray(16, 20))];
          const udp = packet.subarray(20);
          const [sport, dport] = [udp.readUInt16BE(0), udp.readUInt16BE(2)];
          const from = src === ep.caller.ip && sport === ep.caller.port ? 'caller' : 'answerer';
          const to = from === 'caller' ? ep.answerer : ep.caller;
          expect(`${src}:${sport}`).toBe(from === 'caller' ? `${ep.caller.ip}:${ep.caller.port}` : `${ep.answerer.ip}:${ep.answerer.port}`);
          expect(`${dst}:${dport}`).toBe(`${to.ip}:${to.port}`);
          if (i === 0) expect(from, 'the caller sends first').toBe('caller');
          // UDP (RFC 768): length, and the checksum over the pseudo-header.
          expect(udp.readUInt16BE(4)).toBe(udp.length);
          const pseudo = inetChecksum(packet.subarray(12, 20)) + 17 + udp.length;
          expect(inetChecksum(udp, pseudo)).toBe(0xffff);
          // UDPTL: consecutive sequence numbers from 0 per direction, the secondaries repeat the
          // previous primaries, newest first.
          const u = parseUdptl(udp.subarray(8));
          expect(u.seq).toBe(nextSeq.get(from) ?? 0);
          nextSeq.set(from, u.seq + 1);
          const prev = lastPrimaries.get(from) ?? [];
          expect(u.secondaries.length).toBe(Math.min(s.udptl!.redundancy, prev.length));
          u.secondaries.forEach((sec, k) => expect(Buffer.from(sec).equals(Buffer.from(prev[k]!))).toBe(true));
          lastPrimaries.set(from, [u.primary, ...prev].slice(0, 2));
          // IFP (T.38 Annex A): a data packet carries its data type in bits 4..1 of octet 0.
          expect(u.primary.length).toBeGreaterThan(0);
          if ((u.primary[0]! & 0x60) === 0x40) dataTypes.add((u.primary[0]! >> 1) & 0x0f);
        }
        const times = records.map((r) => r.timeUs);
        expect(times).toEqual([...times].sort((a, b) => a - b));
        const spanMs = (times.at(-1)! - times[0]!) / 1000;
        expect(spanMs).toBeGreaterThan(s.durationMs - 3000);
        expect(spanMs).toBeLessThanOrEqual(s.durationMs);
        expect(dataTypes.has(0), 'V.21 HDLC data').toBe(true);
        expect(dataTypes.has(T38_DATA_TYPE[`${s.expected.modulation} ${s.expected.bitRate}`]!), 'the expected fast modem').toBe(true);
      });
    }
  });
});
