// native-free-dsp's fax tones against libspandsp's modem_connect_tones, both ways: our CNG, CED,
// ANS/, ANSam and ANSam/ must be named right by spandsp's detectors, and spandsp's generators by
// ours (including the phase reversals), on a clean line and through noise and a G.711 hop.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { FaxToneRx, LineModel, TONES, ToneTx, type FaxToneEvent, type LineModelOptions, type ToneName } from '../../native-free-dsp/index.js';
import { buildFaxAudioPeer } from './fax-audio/build.js';
import { INTEROP_REQUIRED } from './spandsp/build.js';

const build = buildFaxAudioPeer();
if (!build.ok && INTEROP_REQUIRED) throw new Error(build.reason);

/** spandsp's MODEM_CONNECT_TONES_* codes. */
const CODE = { CNG: 1, ANS: 2, ANS_PR: 3, ANSAM: 4, ANSAM_PR: 5 } as const;

const CASES: { tone: ToneName; code: number; ours: { tone: string; reversals: boolean } }[] = [
  { tone: 'cng', code: CODE.CNG, ours: { tone: 'CNG', reversals: false } },
  { tone: 'ced', code: CODE.ANS, ours: { tone: 'CED', reversals: false } },
  { tone: 'ansPr', code: CODE.ANS_PR, ours: { tone: 'CED', reversals: true } },
  { tone: 'ansam', code: CODE.ANSAM, ours: { tone: 'ANSam', reversals: false } },
  { tone: 'ansamPr', code: CODE.ANSAM_PR, ours: { tone: 'ANSam', reversals: true } },
];

// spandsp's detectors want the tone well clear of the rest of the band (its CNG detector asks
// for the notched remainder to be ~16 dB down), so the impaired line towards spandsp is 20 dB;
// ours is asked to work at 10 dB.
const LINES: { name: string; toSpandsp: LineModelOptions; toUs: LineModelOptions }[] = [
  { name: 'clean line', toSpandsp: {}, toUs: {} },
  {
    name: 'noise and a µ-law hop',
    toSpandsp: { snrDb: 20, signalDbm0: -11, codec: 'ulaw', seed: 31 },
    toUs: { snrDb: 10, signalDbm0: -11, codec: 'ulaw', seed: 32 },
  },
];

const MS = 6000;

function spandspDetects(audio: Int16Array, type: number): number[] {
  if (!build.ok) throw new Error(build.reason);
  const out = execFileSync(build.binary, ['tone-rx', String(type)], { input: Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength), encoding: 'utf8' });
  return out
    .split('\n')
    .filter((l) => l.startsWith('tone '))
    .map((l) => Number(l.split(' ')[1]))
    .filter((code) => code > 0);
}

function spandspSends(type: number): Int16Array {
  if (!build.ok) throw new Error(build.reason);
  const raw = execFileSync(build.binary, ['tone-tx', String(type), String(MS)], { maxBuffer: 1 << 24 });
  return new Int16Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
}

describe.skipIf(!build.ok)('fax tones against spandsp', () => {
  describe.each(LINES)('$name', ({ toSpandsp, toUs }) => {
    it.each(CASES)('our $tone is spandsp tone $code', ({ tone, code }) => {
      const audio = new Int16Array(MS * 8);
      new ToneTx(TONES[tone]).tx(audio);
      new LineModel(toSpandsp).process(audio, audio);
      expect(spandspDetects(audio, code === CODE.CNG ? CODE.CNG : CODE.ANS)[0]).toBe(code);
    });

    it.each(CASES)('spandsp tone $code is our $ours.tone', ({ code, ours }) => {
      const audio = spandspSends(code);
      new LineModel(toUs).process(audio, audio);
      const events: FaxToneEvent[] = [];
      const rx = new FaxToneRx({ onEvent: (e) => events.push(e) });
      rx.rx(audio);
      const on = events.filter((e) => e.kind === 'tone-on').map((e) => (e as { tone: string }).tone);
      expect(on[0]).toBe(ours.tone);
      expect(new Set(on).size).toBe(1);
      expect(events.some((e) => e.kind === 'phase-reversal')).toBe(ours.reversals);
    });
  });
});
