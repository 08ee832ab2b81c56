// The three wire formats of an audio frame: round trips, RTP bookkeeping, frames of other lengths,
// and what the decoder ignores (events, comfort noise, RTCP) or refuses (malformed datagrams).
import { describe, expect, it } from 'vitest';
import { g711RoundTrip } from '../../../native-free-dsp/index.js';
import { AudioDecoder, AudioEncoder, AUDIO_CODECS, FRAME_SAMPLES, type AudioCodecName } from './audio-codec.js';
import { RtpError } from './errors.js';
import { decodeRtp, encodeRtp, PT_PCMA, PT_PCMU } from './rtp.js';

/** A 1 kHz-ish test signal over most of the 16-bit range. */
function signal(n: number, phase = 0): Int16Array {
  return Int16Array.from({ length: n }, (_, i) => Math.round(20000 * Math.sin((2 * Math.PI * 1000 * (i + phase)) / 8000 + 0.3)));
}

const fixed = (codec: AudioCodecName) => new AudioEncoder({ codec, ssrc: 0x11223344, initialSeq: 65534, initialTimestamp: 0xffffff00 });

describe.each(AUDIO_CODECS)('%s frames', (codec) => {
  it.each([80, 160, 240, 480])('round-trips %i samples', (n) => {
    const pcm = signal(n);
    const d = new AudioDecoder({ codec }).decode(fixed(codec).encode(pcm));
    expect(d.kind).toBe('audio');
    if (d.kind !== 'audio') return;
    const expected = pcm.slice();
    if (codec !== 'pcm') g711RoundTrip(codec === 'pcmu' ? 'ulaw' : 'alaw', expected);
    expect(d.frame.samples).toEqual(expected);
  });

  it('sizes a 20 ms frame as the contract says', () => {
    const d = fixed(codec).encode(new Int16Array(FRAME_SAMPLES));
    expect(d.length).toBe(codec === 'pcm' ? 320 : 12 + 160);
  });

  it('refuses frames longer than the limit', () => {
    const dec = new AudioDecoder({ codec, maxFrameSamples: 160 });
    const d = dec.decode(new AudioEncoder({ codec }).encode(new Int16Array(161)));
    expect(d.kind === 'error' && d.error.kind).toBe('too_large');
    expect(dec.stats.errors).toBe(1);
  });

  it('ignores empty datagrams (keep-alives)', () => {
    const dec = new AudioDecoder({ codec });
    expect(dec.decode(new Uint8Array(0))).toEqual({ kind: 'ignored', why: 'empty' });
    expect(dec.stats.empty).toBe(1);
  });
});

describe('raw PCM', () => {
  it('is signed 16-bit little-endian with no header', () => {
    const d = new AudioEncoder({ codec: 'pcm' }).encode(Int16Array.of(1, -2, 0x1234));
    expect([...d]).toEqual([0x01, 0x00, 0xfe, 0xff, 0x34, 0x12]);
  });

  it('refuses an odd length', () => {
    const d = new AudioDecoder({ codec: 'pcm' }).decode(new Uint8Array(3));
    expect(d.kind === 'error' && d.error).toBeInstanceOf(RtpError);
    expect(d.kind === 'error' && d.error.kind).toBe('invalid');
  });

  it('carries no sequence numbers', () => {
    const d = new AudioDecoder({ codec: 'pcm' }).decode(new Uint8Array(320));
    expect(d.kind === 'audio' && d.frame.seq).toBeUndefined();
  });
});

describe('RTP bookkeeping', () => {
  it('numbers frames, advances the timestamp by samples, wraps both, marks the first', () => {
    const enc = fixed('pcmu');
    const headers = [160, 160, 80].map((n) => {
      const r = decodeRtp(enc.encode(new Int16Array(n)));
      if (!r.ok) throw r.error;
      return [r.packet.sequenceNumber, r.packet.timestamp, r.packet.marker, r.packet.ssrc, r.packet.payloadType];
    });
    expect(headers).toEqual([
      [65534, 0xffffff00, true, 0x11223344, PT_PCMU],
      [65535, 0xffffffa0, false, 0x11223344, PT_PCMU],
      [0, 0x40, false, 0x11223344, PT_PCMU],
    ]);
    expect([enc.seq, enc.timestamp]).toEqual([1, 0x90]);
  });

  it('skip() uses up a sequence number and the samples', () => {
    const enc = fixed('pcma');
    enc.skip(160);
    expect([enc.seq, enc.timestamp]).toEqual([65535, 0xffffffa0]);
  });

  it('suppress() lets the samples pass without a sequence number, and marks the next frame sent', () => {
    const enc = fixed('pcmu');
    enc.encode(new Int16Array(160));
    enc.suppress(160);
    enc.suppress(160);
    const r = decodeRtp(enc.encode(new Int16Array(160)));
    if (!r.ok) throw r.error;
    expect([r.packet.sequenceNumber, r.packet.timestamp, r.packet.marker]).toEqual([65535, 0xe0, true]);
    const next = decodeRtp(enc.encode(new Int16Array(160)));
    expect(next.ok && next.packet.marker).toBe(false);
  });

  it('takes SSRC, sequence and timestamp from the injected random source', () => {
    const values = [0xaabbccdd, 0x12345, 0x77];
    const enc = new AudioEncoder({ codec: 'pcma', randomU32: () => values.shift()! });
    expect([enc.ssrc, enc.seq, enc.timestamp]).toEqual([0xaabbccdd, 0x2345, 0x77]);
  });

  it('rejects fields out of range and unknown codecs', () => {
    expect(() => new AudioEncoder({ codec: 'pcmu', initialSeq: 70000 })).toThrow(/initialSeq/);
    expect(() => new AudioEncoder({ codec: 'g729' as AudioCodecName })).toThrow(/pcm, pcmu, pcma/);
    expect(() => new AudioDecoder({ codec: 'pcmu', maxFrameSamples: 0 })).toThrow(/maxFrameSamples/);
  });

  it('decodes the other law by its payload type, and counts it', () => {
    const pcm = signal(160);
    const dec = new AudioDecoder({ codec: 'pcmu' });
    const d = dec.decode(fixed('pcma').encode(pcm));
    const expected = pcm.slice();
    g711RoundTrip('alaw', expected);
    expect(d.kind === 'audio' && d.frame.samples).toEqual(expected);
    expect(dec.stats.otherLaw).toBe(1);
  });
});

describe('what the G.711 decoder ignores or refuses', () => {
  const header = { marker: false, sequenceNumber: 7, timestamp: 0, ssrc: 1 };
  it.each([
    { name: 'an RFC 4733 event (PT 101)', d: encodeRtp({ ...header, payloadType: 101 }, Uint8Array.of(1, 0x0a, 0, 160)), why: 'telephone-event', stat: 'events' },
    { name: 'comfort noise (PT 13)', d: encodeRtp({ ...header, payloadType: 13 }, Uint8Array.of(40)), why: 'comfort-noise', stat: 'comfortNoise' },
    { name: 'G.729 (PT 18)', d: encodeRtp({ ...header, payloadType: 18 }, new Uint8Array(20)), why: 'payload-type', stat: 'otherPayload' },
    { name: 'an RTCP receiver report', d: Uint8Array.of(0x81, 201, 0, 7, ...new Uint8Array(28)), why: 'rtcp', stat: 'rtcp' },
    { name: 'an RTP packet with no payload', d: encodeRtp({ ...header, payloadType: PT_PCMA }, new Uint8Array(0)), why: 'empty', stat: 'empty' },
  ] as const)('ignores $name', ({ d, why, stat }) => {
    const dec = new AudioDecoder({ codec: 'pcma' });
    expect(dec.decode(d)).toEqual({ kind: 'ignored', why });
    expect(dec.stats[stat]).toBe(1);
    expect(dec.stats.frames).toBe(0);
  });

  it('takes the event payload type from the options', () => {
    const dec = new AudioDecoder({ codec: 'pcmu', telephoneEventPayloadType: 96 });
    expect(dec.decode(encodeRtp({ ...header, payloadType: 96 }, new Uint8Array(4)))).toEqual({ kind: 'ignored', why: 'telephone-event' });
    expect(dec.decode(encodeRtp({ ...header, payloadType: 101 }, new Uint8Array(4)))).toEqual({ kind: 'ignored', why: 'payload-type' });
  });

  it.each([
    ['a short datagram', Uint8Array.of(0x80, 0, 0)],
    ['version 1', Uint8Array.of(0x40, 0, ...new Uint8Array(11))],
    ['padding past the header', Uint8Array.of(0xa0, 0, ...new Uint8Array(10), 200)],
  ])('returns an error for %s, without throwing', (_, d) => {
    const dec = new AudioDecoder({ codec: 'pcmu' });
    const r = dec.decode(d);
    expect(r.kind).toBe('error');
    expect(dec.stats.errors).toBe(1);
  });
});
