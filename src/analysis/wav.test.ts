// WAV and raw audio readers: every supported layout read back sample for sample, and malformed
// or hostile files (truncated, odd sizes, absurd declared sizes) rejected with the right reason
// or read as far as their bytes go — never allocating from a declared size.
import { describe, expect, it } from 'vitest';
import { alawToLinear, linearToAlaw, linearToUlaw, ulawToLinear } from '../../native-free-dsp/index.js';
import { CaptureError, type CaptureErrorReason } from './errors.js';
import { readRaw, readWav, sniffCapture, writeWav } from './wav.js';

interface Chunk {
  id: string;
  body: Uint8Array;
  /** Declared size when it should lie. */
  size?: number;
}

function le16(v: number): number[] {
  return [v & 0xff, (v >>> 8) & 0xff];
}
function le32(v: number): number[] {
  return [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff];
}

function fmt(o: { format?: number; channels?: number; rate?: number; bits?: number; align?: number; extensible?: number } = {}): Chunk {
  const channels = o.channels ?? 1;
  const bits = o.bits ?? 16;
  const rate = o.rate ?? 8000;
  const align = o.align ?? (channels * bits) / 8;
  const base = [...le16(o.extensible !== undefined ? 0xfffe : (o.format ?? 1)), ...le16(channels), ...le32(rate), ...le32(rate * align), ...le16(align), ...le16(bits)];
  if (o.extensible !== undefined) base.push(...le16(22), ...le16(bits), ...le32(0), ...le16(o.extensible), 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xaa, 0, 0x38, 0x9b, 0x71);
  return { id: 'fmt ', body: Uint8Array.from(base) };
}

function riff(chunks: Chunk[], opts: { riffSize?: number; head?: string; cut?: number } = {}): Uint8Array {
  const parts: number[] = [];
  for (const c of chunks) {
    parts.push(...[...c.id].map((ch) => ch.charCodeAt(0)), ...le32(c.size ?? c.body.length), ...c.body);
    if (c.body.length & 1) parts.push(0);
  }
  const head = opts.head ?? 'RIFF';
  const bytes = Uint8Array.from([...[...head].map((ch) => ch.charCodeAt(0)), ...le32(opts.riffSize ?? parts.length + 4), ...'WAVE'.split('').map((ch) => ch.charCodeAt(0)), ...parts]);
  return opts.cut === undefined ? bytes : bytes.subarray(0, opts.cut);
}

const pcm16 = (samples: number[]) => Uint8Array.from(samples.flatMap((s) => le16(s & 0xffff)));

describe('readWav: what it reads', () => {
  const ramp = [0, 1000, -1000, 32767, -32768, 12345];
  it.each([
    ['16-bit PCM mono', [fmt(), { id: 'data', body: pcm16(ramp) }], 1, 's16le', [ramp]],
    ['16-bit PCM stereo', [fmt({ channels: 2 }), { id: 'data', body: pcm16([1, -1, 2, -2, 3, -3]) }], 2, 's16le', [[1, 2, 3], [-1, -2, -3]]],
    ['µ-law mono', [fmt({ format: 7, bits: 8 }), { id: 'data', body: Uint8Array.of(0xff, 0x00, 0x80) }], 1, 'ulaw', [[0xff, 0x00, 0x80].map(ulawToLinear)]],
    ['A-law stereo', [fmt({ format: 6, bits: 8, channels: 2 }), { id: 'data', body: Uint8Array.of(0xd5, 0x55, 0x2a, 0xaa) }], 2, 'alaw', [[0xd5, 0x2a].map(alawToLinear), [0x55, 0xaa].map(alawToLinear)]],
    ['WAVE_FORMAT_EXTENSIBLE PCM', [fmt({ extensible: 1 }), { id: 'data', body: pcm16(ramp) }], 1, 's16le', [ramp]],
    ['WAVE_FORMAT_EXTENSIBLE µ-law', [fmt({ extensible: 7, bits: 8 }), { id: 'data', body: Uint8Array.of(0xff) }], 1, 'ulaw', [[ulawToLinear(0xff)]]],
    ['LIST and odd-sized chunks before data', [{ id: 'LIST', body: Uint8Array.of(1, 2, 3) }, fmt(), { id: 'fact', body: Uint8Array.of(0, 0, 0, 0) }, { id: 'data', body: pcm16(ramp) }], 1, 's16le', [ramp]],
  ] as const)('%s', (_name, chunks, nch, encoding, expected) => {
    const a = readWav(riff([...chunks]));
    expect(a.channels).toHaveLength(nch);
    expect(a.encoding).toBe(encoding);
    expect(a.sampleRate).toBe(8000);
    expected.forEach((ch, i) => expect(Array.from(a.channels[i]!)).toEqual(ch));
    expect(a.warnings).toEqual([]);
  });

  it('a data chunk claiming 4 GiB in a small file: reads what is there, allocates only that, warns', () => {
    const a = readWav(riff([fmt(), { id: 'data', body: pcm16([5, 6, 7]), size: 0xffffffff }], { riffSize: 0xffffffff }));
    expect(a.frames).toBe(3);
    expect(a.channels[0]!.buffer.byteLength).toBe(6);
    expect(a.warnings.join(' ')).toMatch(/declares/);
  });

  it('a partial last frame is dropped with a warning', () => {
    const a = readWav(riff([fmt({ channels: 2 }), { id: 'data', body: Uint8Array.of(1, 0, 2, 0, 3) }]));
    expect(a.frames).toBe(1);
    expect(a.warnings.join(' ')).toMatch(/partial/);
  });

  it.each(['s16le', 'ulaw', 'alaw'] as const)('writeWav → readWav round trip (%s, stereo)', (enc) => {
    const left = Int16Array.from({ length: 1000 }, (_, i) => Math.round(8000 * Math.sin(i / 7)));
    const right = Int16Array.from({ length: 1000 }, (_, i) => Math.round(-3000 * Math.cos(i / 5)));
    const a = readWav(writeWav([left, right], enc));
    expect(a.encoding).toBe(enc);
    const q = (v: number) => (enc === 'ulaw' ? ulawToLinear(linearToUlaw(v)) : enc === 'alaw' ? alawToLinear(linearToAlaw(v)) : v);
    expect(Array.from(a.channels[0]!)).toEqual(Array.from(left, q));
    expect(Array.from(a.channels[1]!)).toEqual(Array.from(right, q));
  });
});

describe('readWav: what it refuses', () => {
  const data = { id: 'data', body: pcm16([1, 2, 3, 4]) };
  it.each<[string, Uint8Array, CaptureErrorReason, RegExp]>([
    ['an empty file', new Uint8Array(0), 'truncated', /not even a RIFF header/],
    ['8 bytes', riff([], { cut: 8 }), 'truncated', /RIFF header/],
    ['no RIFF header', new TextEncoder().encode('Hello, this is not audio at all'), 'unknown_format', /RIFF\/WAVE/],
    ['RIFF but not WAVE', Uint8Array.from([...'RIFF'].map((c) => c.charCodeAt(0)).concat(le32(4), [...'AVI '].map((c) => c.charCodeAt(0)))), 'unknown_format', /RIFF\/WAVE/],
    ['big-endian RIFX', riff([fmt(), data], { head: 'RIFX' }), 'unsupported', /RIFX/],
    ['RF64', riff([fmt(), data], { head: 'RF64' }), 'unsupported', /RF64/],
    ['no fmt chunk', riff([data]), 'corrupt', /data chunk before the fmt/],
    ['only a LIST chunk', riff([{ id: 'LIST', body: new Uint8Array(4) }]), 'corrupt', /no fmt chunk/],
    ['no data chunk', riff([fmt()]), 'corrupt', /no data chunk/],
    ['fmt chunk of 12 bytes', riff([{ id: 'fmt ', body: new Uint8Array(12) }, data]), 'corrupt', /fmt chunk of 12/],
    ['extensible fmt cut short', riff([{ id: 'fmt ', body: Uint8Array.from([...le16(0xfffe), ...new Array<number>(16).fill(0)]) }, data]), 'corrupt', /extensible/],
    ['the file ends inside fmt', riff([fmt(), data], { cut: 30 }), 'truncated', /inside the fmt/],
    ['the file ends inside a chunk header', riff([{ id: 'LIST', body: new Uint8Array(4) }, fmt()], { cut: 26 }), 'truncated', /ends inside a chunk/],
    ['a chunk whose size runs past the end', riff([{ id: 'LIST', body: new Uint8Array(4), size: 0x7ffffff0 }, fmt(), data]), 'truncated', /no fmt chunk/],
    ['44.1 kHz', riff([fmt({ rate: 44100 }), data]), 'unsupported', /44100 samples\/s/],
    ['three channels', riff([fmt({ channels: 3 }), data]), 'unsupported', /3 channels/],
    ['zero channels', riff([fmt({ channels: 0, align: 2 }), data]), 'unsupported', /0 channels/],
    ['8-bit linear PCM', riff([fmt({ bits: 8 }), data]), 'unsupported', /8-bit PCM/],
    ['24-bit PCM', riff([fmt({ bits: 24 }), data]), 'unsupported', /24-bit PCM/],
    ['µ-law at 16 bits', riff([fmt({ format: 7, bits: 16 }), data]), 'corrupt', /G\.711 with 16 bits/],
    ['MP3 (format 85)', riff([fmt({ format: 85 }), data]), 'unsupported', /format tag 85/],
    ['a block align that does not fit', riff([fmt({ align: 3 }), data]), 'corrupt', /block align 3/],
    ['no samples', riff([fmt(), { id: 'data', body: new Uint8Array(0) }]), 'empty', /no audio/],
  ])('%s', (_name, bytes, reason, message) => {
    let err: unknown;
    try {
      readWav(bytes);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CaptureError);
    expect((err as CaptureError).reason).toBe(reason);
    expect((err as CaptureError).message).toMatch(message);
    expect((err as CaptureError).code).toBe(-3006);
  });

  it('longer than the limit: too_large before any sample is decoded', () => {
    const bytes = riff([fmt(), { id: 'data', body: new Uint8Array(8000 * 2 * 3) }]);
    expect(() => readWav(bytes, { maxSeconds: 2 })).toThrow(expect.objectContaining({ reason: 'too_large' }));
    expect(readWav(bytes, { maxSeconds: 3 }).frames).toBe(24000);
  });
});

describe('readRaw', () => {
  it.each([
    ['s16le mono', Uint8Array.of(1, 0, 0xff, 0xff), 's16le', 1, [[1, -1]]],
    ['s16le stereo, interleaved', Uint8Array.of(1, 0, 2, 0, 3, 0, 4, 0), 's16le', 2, [[1, 3], [2, 4]]],
    ['µ-law', Uint8Array.of(0xff, 0x7f), 'ulaw', 1, [[ulawToLinear(0xff), ulawToLinear(0x7f)]]],
    ['A-law stereo', Uint8Array.of(0xd5, 0x55), 'alaw', 2, [[alawToLinear(0xd5)], [alawToLinear(0x55)]]],
  ] as const)('%s', (_n, bytes, encoding, channels, expected) => {
    const a = readRaw(bytes, { encoding, channels });
    expected.forEach((ch, i) => expect(Array.from(a.channels[i]!)).toEqual(ch));
  });

  it('odd byte counts: the partial frame is dropped with a warning; nothing at all is an error', () => {
    expect(readRaw(Uint8Array.of(1, 0, 2)).warnings.join(' ')).toMatch(/partial/);
    expect(() => readRaw(Uint8Array.of(1))).toThrow(expect.objectContaining({ reason: 'empty' }));
  });
});

describe('sniffCapture', () => {
  it.each([
    ['RIFF', riff([fmt()]), 'wav'],
    ['pcap (µs, little-endian)', Uint8Array.of(0xd4, 0xc3, 0xb2, 0xa1), 'pcap'],
    ['pcap (µs, big-endian)', Uint8Array.of(0xa1, 0xb2, 0xc3, 0xd4), 'pcap'],
    ['pcap (ns)', Uint8Array.of(0x4d, 0x3c, 0xb2, 0xa1), 'pcap'],
    ['pcapng', Uint8Array.of(0x0a, 0x0d, 0x0d, 0x0a), 'pcapng'],
    ['raw audio', Uint8Array.of(1, 2, 3, 4, 5), undefined],
    ['three bytes', Uint8Array.of(1, 2, 3), undefined],
  ])('%s', (_n, bytes, kind) => expect(sniffCapture(bytes)).toBe(kind));
});
