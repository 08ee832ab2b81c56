// The receive buffer: order by sequence number across the 16-bit wrap, silence for lost frames,
// duplicates and late frames dropped, restarts, overflow, and block reads with a jitter target.
import { describe, expect, it } from 'vitest';
import type { AudioFrame } from './audio-codec.js';
import { ReceiveBuffer, type PlayoutFrame } from './receive-buffer.js';

/** A frame whose samples all hold `tag`, at sequence number `seq`. */
const frame = (seq: number, tag = seq, n = 160, ts = seq * n, ssrc = 7): AudioFrame => ({ samples: new Int16Array(n).fill(tag), seq: seq & 0xffff, timestamp: ts >>> 0, ssrc });
/** What popFrame gives, as tags: the sample value, or 'lost:N' for N samples of silence. */
const tag = (f: PlayoutFrame) => (f.lost ? `lost:${f.samples.length}` : f.samples[0]!);
function drain(b: ReceiveBuffer): (number | string)[] {
  const out: (number | string)[] = [];
  for (let f = b.popFrame(); f; f = b.popFrame()) out.push(tag(f));
  return out;
}
/** Pushes each frame and takes out what is ready at once (the lockstep pump's way). */
function lockstep(seqs: number[]): { played: (number | string)[]; b: ReceiveBuffer } {
  const b = new ReceiveBuffer({ targetSamples: 0 });
  const played: (number | string)[] = [];
  for (const s of seqs) {
    b.push(frame(s, s & 0x7fff));
    played.push(...drain(b));
  }
  return { played, b };
}

describe('ReceiveBuffer ordering (taken out as frames arrive)', () => {
  it.each([
    { name: 'in order', seqs: [1, 2, 3], played: [1, 2, 3], stats: { played: 3, lost: 0 } },
    { name: 'one lost', seqs: [1, 2, 4, 5], played: [1, 2, 'lost:160', 4, 5], stats: { lost: 1 } },
    { name: 'three lost', seqs: [1, 5], played: [1, 'lost:160', 'lost:160', 'lost:160', 5], stats: { lost: 3 } },
    { name: 'a duplicate', seqs: [1, 2, 2, 3], played: [1, 2, 3], stats: { duplicates: 1, late: 0 } },
    { name: 'a late frame', seqs: [1, 3, 2, 4], played: [1, 'lost:160', 3, 4], stats: { late: 1, lost: 1 } },
    { name: 'the wrap', seqs: [65534, 65535, 0, 1], played: [32766, 32767, 0, 1], stats: { lost: 0, resyncs: 0 } },
    { name: 'a loss across the wrap', seqs: [65534, 0, 1], played: [32766, 'lost:160', 0, 1], stats: { lost: 1 } },
    { name: 'a duplicate across the wrap', seqs: [65535, 0, 65535, 1], played: [32767, 0, 1], stats: { duplicates: 1 } },
    { name: 'a jump (new stream)', seqs: [10, 11, 5000, 5001], played: [10, 11, 5000, 5001], stats: { resyncs: 1, lost: 0 } },
    { name: 'a jump backwards (sender restarted)', seqs: [5000, 5001, 10, 11], played: [5000, 5001, 10, 11], stats: { resyncs: 1, late: 0 } },
  ])('$name', ({ seqs, played, stats }) => {
    const r = lockstep(seqs);
    expect(r.played).toEqual(played);
    expect(r.b.stats).toMatchObject({ received: seqs.length, ...stats });
  });
});

describe('ReceiveBuffer reordering (frames held before playout)', () => {
  it('puts reordered frames back in order, across the wrap', () => {
    const b = new ReceiveBuffer();
    for (const s of [65533, 65535, 65534, 1, 0, 2]) b.push(frame(s, s & 0xff));
    expect(drain(b)).toEqual([0xfd, 0xfe, 0xff, 0, 1, 2]);
    expect(b.stats).toMatchObject({ lost: 0, late: 0, duplicates: 0 });
  });

  it('sizes a lost frame from the timestamps around it', () => {
    const b = new ReceiveBuffer();
    b.push({ samples: new Int16Array(160).fill(1), seq: 1, timestamp: 1000 });
    b.push({ samples: new Int16Array(80).fill(3), seq: 3, timestamp: 1000 + 160 + 80 });
    expect(drain(b)).toEqual([1, 'lost:80', 3]);
  });

  it('starts a new stream on a new SSRC', () => {
    const b = new ReceiveBuffer({ targetSamples: 0 });
    b.push(frame(100, 1, 160, 0, 1));
    b.push(frame(7, 2, 160, 0, 2)); // far behind, but another source: not late
    expect(drain(b)).toEqual([2]);
    expect(b.stats).toMatchObject({ ssrcChanges: 1, resyncs: 1, late: 0 });
  });

  it('drops the oldest frames when a frame comes too far ahead of playout', () => {
    const b = new ReceiveBuffer({ maxFrames: 4 });
    for (const s of [1, 2, 3]) b.push(frame(s));
    b.push(frame(6)); // 6 ≥ 1 + 4: frames 1 and 2 go, so 3..6 fit
    expect(drain(b)).toEqual([3, 'lost:160', 'lost:160', 6]);
    expect(b.stats).toMatchObject({ overflows: 2 });
  });

  it('skipNext() gives up the next frame: it counts as lost, and late if it comes after', () => {
    const b = new ReceiveBuffer({ targetSamples: 0 });
    b.push(frame(1));
    expect(drain(b)).toEqual([1]);
    b.skipNext();
    b.push(frame(2));
    b.push(frame(3));
    expect(drain(b)).toEqual([3]);
    expect(b.stats).toMatchObject({ lost: 1, late: 1 });
  });

  it('takes raw PCM frames (no sequence numbers) in arrival order; skipNext() cannot tell lost from slow there', () => {
    const b = new ReceiveBuffer({ targetSamples: 0 });
    for (const t of [5, 3, 9]) b.push({ samples: new Int16Array(160).fill(t) });
    expect(drain(b)).toEqual([5, 3, 9]);
    b.skipNext();
    b.push({ samples: new Int16Array(160).fill(4) });
    expect(drain(b)).toEqual([4]);
    expect(b.stats).toMatchObject({ lost: 0, late: 0 });
  });
});

describe('ReceiveBuffer.read (blocks paced by a clock)', () => {
  const block = () => new Int16Array(160);

  it('plays silence until the target is buffered, then the frames, split across blocks', () => {
    const b = new ReceiveBuffer({ targetSamples: 240 });
    const out = block();
    b.push(frame(1, 1, 80));
    expect(b.read(out)).toBe(0);
    expect(out.every((v) => v === 0)).toBe(true);
    b.push(frame(2, 2, 80));
    b.push(frame(3, 3, 80));
    expect(b.read(out)).toBe(160);
    expect([out[0], out[79], out[80], out[159]]).toEqual([1, 1, 2, 2]);
    b.push(frame(4, 4, 120));
    expect(b.read(out)).toBe(160);
    expect([out[0], out[79], out[80], out[159]]).toEqual([3, 3, 4, 4]);
    expect(b.stats.silenceSamples).toBe(160);
    expect(b.stats.underruns).toBe(0);
  });

  it('goes back to buffering after running dry, and counts the underrun', () => {
    const b = new ReceiveBuffer({ targetSamples: 160 });
    const out = block();
    b.push(frame(1));
    expect(b.read(out)).toBe(160);
    expect(b.read(out)).toBe(0);
    expect(b.stats.underruns).toBe(1);
    b.push(frame(2, 2, 80));
    expect(b.read(out)).toBe(0); // 80 < 160 buffered: still waiting
    b.push(frame(3, 3, 80));
    expect(b.read(out)).toBe(160);
    expect([out[0], out[159]]).toEqual([2, 3]);
  });

  it('after running dry waits for refillSamples, so that much of a later stall is heard in full', () => {
    const b = new ReceiveBuffer({ targetSamples: 160, refillSamples: 480 });
    const out = block();
    b.push(frame(1));
    expect(b.read(out)).toBe(160); // the start waits for the target only
    expect(b.read(out)).toBe(0);
    expect(b.stats.underruns).toBe(1);
    b.push(frame(2));
    b.push(frame(3));
    expect(b.ready(160)).toBe(false);
    expect(b.read(out)).toBe(0); // 320 < 480: the cushion is not there yet
    b.push(frame(4));
    expect(b.ready(160)).toBe(true);
    // The far end stalls for the next two blocks: the cushion plays on through them.
    expect([b.read(out), out[0]]).toEqual([160, 2]);
    expect([b.read(out), out[0]]).toEqual([160, 3]);
    expect([b.read(out), out[0]]).toEqual([160, 4]);
    expect(b.stats.underruns).toBe(1);
    // A new stream starts from the target again.
    b.push(frame(5000, 9, 160, 5000 * 160, 8));
    expect([b.read(out), out[0]]).toEqual([160, 9]);
  });

  it('plays a lost frame as silence in its place', () => {
    const b = new ReceiveBuffer({ targetSamples: 0 });
    const out = new Int16Array(480);
    for (const s of [1, 3]) b.push(frame(s));
    expect(b.read(out)).toBe(480);
    expect([out[0], out[160], out[319], out[320]]).toEqual([1, 0, 0, 3]);
    expect(b.stats.lost).toBe(1);
  });

  it('validates its options', () => {
    expect(() => new ReceiveBuffer({ maxFrames: 0 })).toThrow(/maxFrames 0 outside/);
    expect(() => new ReceiveBuffer({ targetSamples: -1 })).toThrow(/targetSamples/);
    expect(() => new ReceiveBuffer({ targetSamples: 480, refillSamples: 160 })).toThrow(/refillSamples 160 outside 480..8000/);
    expect(() => new ReceiveBuffer({ targetSamples: 480, maxLatencySamples: 960, refillSamples: 1600 })).toThrow(/refillSamples 1600 outside 480..960/);
  });
});

describe('ReceiveBuffer latency in the quiet (maxLatencySamples; read() is the clock)', () => {
  /** A frame of a carrier (a 1800 Hz tone at about −10 dBm0) or of line noise (about −60 dBm0). */
  const carrier = (seq: number) => ({ samples: Int16Array.from({ length: 160 }, (_, i) => Math.round(5000 * Math.sin((2 * Math.PI * 1800 * (seq * 160 + i)) / 8000))), seq, timestamp: seq * 160, ssrc: 7 });
  const noise = (seq: number) => ({ samples: Int16Array.from({ length: 160 }, (_, i) => ((seq * 160 + i) % 3) * 10 - 10), seq, timestamp: seq * 160, ssrc: 7 });
  /** Reads 20 ms blocks until nothing is waiting; the order of what was heard: 'C' carrier, '.' quiet. */
  function playout(b: ReceiveBuffer): string {
    const out = new Int16Array(160);
    let heard = '';
    while (b.bufferedSamples > 0) {
      b.read(out);
      heard += out.some((v) => Math.abs(v) > 100) ? 'C' : '.';
    }
    return heard;
  }

  it('a backlog of silence between two signals shrinks to the limit, the gap keeping its first two and its last frame', () => {
    // A stall left 1 s waiting: 10 frames of carrier, a 30-frame gap, 10 frames of carrier.
    const b = new ReceiveBuffer({ targetSamples: 960, maxLatencySamples: 3200 });
    for (let s = 0; s < 50; s++) b.push(s < 10 || s >= 40 ? carrier(s) : noise(s));
    // After the gap's first two frames, 38 frames wait (760 ms): 18 quiet ones go at once, down
    // to the limit (20 frames, 400 ms), and the rest of the gap and the second signal play in full.
    expect(playout(b)).toBe('C'.repeat(10) + '.'.repeat(12) + 'C'.repeat(10));
    expect(b.stats).toMatchObject({ trimmed: 18, played: 32, lost: 0, overflows: 0 });
  });

  it('never cuts a carrier, however much waits', () => {
    const b = new ReceiveBuffer({ targetSamples: 960, maxLatencySamples: 960, maxFrames: 100 });
    for (let s = 0; s < 60; s++) b.push(carrier(s));
    expect(playout(b)).toBe('C'.repeat(60));
    expect(b.stats).toMatchObject({ trimmed: 0, played: 60, peakSamples: 60 * 160 });
  });

  it('keeps the first two frames of a gap and the one before a signal: only a gap of four or more shrinks', () => {
    const b = new ReceiveBuffer({ targetSamples: 0, maxLatencySamples: 160 });
    'CC..C...C....C'.split('').forEach((k, s) => b.push(k === 'C' ? carrier(s) : noise(s)));
    expect(playout(b)).toBe('CC..C...C...C');
    expect(b.stats.trimmed).toBe(1);
  });

  it('trims nothing without a limit (the default)', () => {
    const b = new ReceiveBuffer({ targetSamples: 960 });
    for (let s = 0; s < 50; s++) b.push(s < 10 || s >= 40 ? carrier(s) : noise(s));
    expect(playout(b)).toBe('C'.repeat(10) + '.'.repeat(30) + 'C'.repeat(10));
    expect(b.stats.trimmed).toBe(0);
  });

  it('validates the limit against the target', () => {
    expect(() => new ReceiveBuffer({ targetSamples: 960, maxLatencySamples: 800 })).toThrow(/maxLatencySamples 800 below targetSamples 960/);
  });
});
