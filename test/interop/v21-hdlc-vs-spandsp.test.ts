// native-free-dsp's V.21 channel 2 and HDLC against libspandsp's fsk and hdlc, both ways: our
// framer and modulator into spandsp's demodulator and deframer, and spandsp's into ours, on a
// clean line and on an impaired one (noise, loss, a G.711 hop, a frequency offset). T.30 frames
// must come out with the right FCS; a frame we corrupt on purpose must come out as bad.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { END_OF_DATA, HdlcRx, HdlcTx, LineModel, V21Rx, V21Tx, type HdlcFrame, type LineModelOptions } from '../../native-free-dsp/index.js';
import { INTEROP_REQUIRED } from './spandsp/build.js';
import { buildFaxAudioPeer } from './fax-audio/build.js';

const build = buildFaxAudioPeer();
if (!build.ok && INTEROP_REQUIRED) throw new Error(build.reason);

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const fromHex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, 'hex'));

// T.30 frames (address, control, FCF, FIF): NSF, CSI, DIS; the last has the final bit.
const FRAMES = [
  fromHex(`ff0320${'00'.repeat(2)}${Array.from({ length: 30 }, (_, i) => ((i * 41) & 0xff).toString(16).padStart(2, '0')).join('')}`),
  Uint8Array.of(0xff, 0x03, 0x40, ...new TextEncoder().encode('5432 109 876 5432 10'.padEnd(20, ' '))),
  Uint8Array.of(0xff, 0x13, 0x80, 0x00, 0xce, 0xf4, 0x80, 0x80, 0x81, 0x80, 0x80),
];

const LINES: { name: string; line: LineModelOptions }[] = [
  { name: 'clean line', line: {} },
  { name: '8 dB SNR, 20 dB loss, µ-law hop, +8 Hz', line: { gainDb: -20, snrDb: 8, signalDbm0: -13, codec: 'ulaw', freqOffsetHz: 8, seed: 21 } },
  { name: '10 dB SNR, A-law hop, −12 Hz', line: { snrDb: 10, signalDbm0: -13, codec: 'alaw', freqOffsetHz: -12, seed: 22 } },
];

/** Our side's audio for `frames` (1 s of flags first), through `line`. */
function ourAudio(frames: Uint8Array[], line: LineModelOptions, flipBit = -1): Int16Array {
  const hdlc = new HdlcTx();
  for (const f of frames) hdlc.sendFrame(f);
  hdlc.end();
  let n = 0;
  const tx = new V21Tx({ levelDbm0: -13, getBit: () => {
    const b = hdlc.getBit();
    return b !== END_OF_DATA && n++ === flipBit ? b ^ 1 : b;
  } });
  const chunks: Int16Array[] = [];
  for (;;) {
    const buf = new Int16Array(160);
    const got = tx.tx(buf);
    chunks.push(buf.subarray(0, got));
    if (got < buf.length) break;
  }
  chunks.push(new Int16Array(1600)); // 200 ms of line after the carrier
  const audio = new Int16Array(chunks.reduce((s, c) => s + c.length, 0));
  let at = 0;
  for (const c of chunks) (audio.set(c, at), (at += c.length));
  new LineModel(line).process(audio, audio);
  return audio;
}

/** What spandsp's fsk_rx + hdlc_rx make of `audio`. */
function spandspReceives(audio: Int16Array): { ok: boolean; frame: string }[] {
  if (!build.ok) throw new Error(build.reason);
  const out = execFileSync(build.binary, ['rx'], { input: Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength), encoding: 'utf8' });
  return out
    .split('\n')
    .filter((l) => l.startsWith('frame '))
    .map((l) => {
      const [, ok, frame] = l.split(' ');
      return { ok: ok === '1', frame: frame ?? '' };
    });
}

/** What our V21Rx + HdlcRx make of spandsp's fsk_tx + hdlc_tx sending `frames`, through `line`. */
function weReceive(frames: Uint8Array[], line: LineModelOptions): HdlcFrame[] {
  if (!build.ok) throw new Error(build.reason);
  const raw = execFileSync(build.binary, ['tx', '38', ...frames.map(hex)], { maxBuffer: 1 << 24 });
  const audio = new Int16Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
  new LineModel(line).process(audio, audio);
  const got: HdlcFrame[] = [];
  const hdlc = new HdlcRx({ onFrame: (f) => got.push(f) });
  const rx = new V21Rx({ putBit: hdlc.putBit });
  rx.rx(audio);
  rx.rx(new Int16Array(1600));
  return got;
}

describe.skipIf(!build.ok)('V.21 + HDLC against spandsp', () => {
  describe.each(LINES)('$name', ({ line }) => {
    it('ours → spandsp: every frame arrives with a good FCS', () => {
      expect(spandspReceives(ourAudio(FRAMES, line))).toEqual(FRAMES.map((f) => ({ ok: true, frame: hex(f) })));
    });

    it('spandsp → ours: every frame arrives with a good FCS', () => {
      expect(weReceive(FRAMES, line)).toEqual(FRAMES.map((f) => ({ frame: f, crcOk: true })));
    });
  });

  it('a frame we corrupt on the way is bad to spandsp too, and its neighbours are good', () => {
    // The CSI starts after the 38-flag preamble, the NSF as sent (stuffed, with FCS) and one flag;
    // a lone framer gives the NSF's length: opening flag + NSF + closing flag. Flip a bit about
    // ten octets into the CSI.
    const hdlc = new HdlcTx({ preambleFlags: 0 });
    hdlc.sendFrame(FRAMES[0]!);
    hdlc.end();
    let flagNsfFlag = 0;
    while (hdlc.getBit() !== END_OF_DATA) flagNsfFlag++;
    const flip = 38 * 8 + (flagNsfFlag - 8) + 8 * 10 + 2;
    const got = spandspReceives(ourAudio(FRAMES, {}, flip));
    expect(got.map((g) => g.ok)).toEqual([true, false, true]);
    expect(got[0]!.frame).toBe(hex(FRAMES[0]!));
    expect(got[2]!.frame).toBe(hex(FRAMES[2]!));
  });
});
