// Tone generators → line model → detectors. Each tone is sent at several SNRs (white noise over
// the full band, relative to one component) and must be named right by the detector meant for it
// and ignored by the other; noise alone, V.21 flags and the wrong frequencies must stay silent.
// Level and frequency limits follow spandsp's modem_connect_tones tests: detect at −43 dBm0 and
// above, never at −44 dBm0 and below (noise at −60 dBm0); CNG within 1100 ± 38 Hz (T.30) plus
// margin, CED within 2100 ± 15 Hz (T.30) plus margin; nothing 80 Hz or more away.
import { describe, expect, it } from 'vitest';
import { HdlcTx } from '../hdlc/hdlc-tx.js';
import { LineModel, type LineModelOptions } from '../line-model/line-model.js';
import { levelDbm0 } from '../power/levels.js';
import { V21Tx } from '../v21/v21.js';
import { CallProgressRx, type CallProgressEvent } from './call-progress-rx.js';
import { FaxToneRx, type FaxToneEvent } from './fax-tone-rx.js';
import { GoertzelBank } from './goertzel.js';
import { TONES, ToneTx, type ToneName, type ToneSpec } from './tone-tx.js';

type Event = FaxToneEvent | CallProgressEvent;

/** Plays `source` for `ms` through the line into both detectors; returns their events. */
function listen(source: { tx(out: Int16Array): number }, ms: number, line: LineModelOptions): Event[] {
  const events: Event[] = [];
  const fax = new FaxToneRx({ onEvent: (e) => events.push(e) });
  const cp = new CallProgressRx({ onEvent: (e) => events.push(e) });
  const lm = new LineModel(line);
  const buf = new Int16Array(160);
  for (let t = 0; t < ms * 8; t += buf.length) {
    const n = source.tx(buf);
    buf.fill(0, n);
    lm.process(buf, buf);
    fax.rx(buf);
    cp.rx(buf);
  }
  return events;
}

const summary = (events: Event[]): string[] =>
  events.map((e) => (e.kind === 'call-progress' ? `${e.tone}` : e.kind === 'phase-reversal' ? 'reversal' : `${e.kind} ${e.tone}`));

/** What each tone must produce over `ms` (order of first appearance, duplicates removed). */
const EXPECT: Record<ToneName, { ms: number; first: string[] }> = {
  cng: { ms: 4000, first: ['tone-on CNG', 'tone-off CNG'] },
  ced: { ms: 4000, first: ['tone-on CED', 'tone-off CED'] },
  ansPr: { ms: 4000, first: ['tone-on CED', 'reversal', 'tone-off CED'] },
  ansam: { ms: 6000, first: ['tone-on ANSam', 'tone-off ANSam'] },
  ansamPr: { ms: 6000, first: ['tone-on ANSam', 'reversal', 'tone-off ANSam'] },
  dial: { ms: 3000, first: ['dial'] },
  ringback: { ms: 7000, first: ['ringback'] },
  busy: { ms: 3000, first: ['busy'] },
  reorder: { ms: 2000, first: ['reorder'] },
};

const SNRS = [30, 15, 10, 5];
const CASES = (Object.keys(TONES) as ToneName[]).flatMap((tone) => SNRS.map((snrDb) => ({ tone, snrDb })));

describe.each(CASES)('$tone at $snrDb dB SNR', ({ tone, snrDb }) => {
  it('is detected as itself and nothing else', () => {
    const spec: ToneSpec = TONES[tone];
    const events = listen(new ToneTx(spec), EXPECT[tone].ms, { snrDb, signalDbm0: spec.levelDbm0, seed: snrDb * 7 + tone.length });
    expect([...new Set(summary(events))]).toEqual(EXPECT[tone].first);
  });
});

describe('fax tone durations and counts', () => {
  it('reports CNG bursts of 0.5 s every 3.5 s and CED of 3 s, with their levels', () => {
    const cng = listen(new ToneTx(TONES.cng), 8000, { noiseDbm0: -60 });
    expect(cng.filter((e) => e.kind === 'tone-off').map((e) => (e as { durationMs: number }).durationMs)).toEqual([500, 500, 500]);
    const on = cng.find((e) => e.kind === 'tone-on') as Extract<FaxToneEvent, { kind: 'tone-on' }>;
    expect(on.levelDbm0).toBeCloseTo(-11, 0);
    const ced = listen(new ToneTx(TONES.ced), 4000, { noiseDbm0: -60 });
    expect(ced.filter((e) => e.kind === 'tone-off').map((e) => (e as { durationMs: number }).durationMs)).toEqual([3000]);
  });

  it('counts a phase reversal every 450 ms in ANSam/', () => {
    const ev = listen(new ToneTx(TONES.ansamPr), 6000, { snrDb: 15, signalDbm0: -11, seed: 5 });
    const at = ev.filter((e) => e.kind === 'phase-reversal').map((e) => (e as { atSample: number }).atSample / 8);
    // Reversals at 450, 900, …, 4950 ms; the first comes before the tone is declared (500 ms).
    expect(at.length).toBe(10);
    at.forEach((ms, k) => expect(Math.abs(ms - 450 * (k + 2))).toBeLessThanOrEqual(20));
  });
});

describe('fax tone level and frequency limits (noise −60 / −50 dBm0)', () => {
  const levelCases = [-5, -20, -43, -44, -48].flatMap((levelDbm0) => [
    { tone: 'cng' as const, levelDbm0, want: levelDbm0 >= -43 ? 'CNG' : null },
    { tone: 'ced' as const, levelDbm0, want: levelDbm0 >= -43 ? 'CED' : null },
  ]);
  it.each(levelCases)('$tone at $levelDbm0 dBm0 → $want', ({ tone, levelDbm0, want }) => {
    const ev = listen(new ToneTx({ ...TONES[tone], levelDbm0 }), 4000, { noiseDbm0: -60, seed: 3 });
    const on = ev.filter((e) => e.kind === 'tone-on').map((e) => (e as { tone: string }).tone);
    expect(on[0] ?? null).toBe(want);
  });

  const freqCases = [
    ...[-46, -38, 0, 38, 46].map((d) => ({ tone: 'cng' as const, hz: 1100 + d, want: 'CNG' })),
    ...[-200, -80, 80, 200].map((d) => ({ tone: 'cng' as const, hz: 1100 + d, want: null })),
    ...[-23, -15, 15, 23].map((d) => ({ tone: 'ced' as const, hz: 2100 + d, want: 'CED' })),
    ...[-200, -80, 80, 200].map((d) => ({ tone: 'ced' as const, hz: 2100 + d, want: null })),
  ];
  it.each(freqCases)('$tone at $hz Hz → $want', ({ tone, hz, want }) => {
    const ev = listen(new ToneTx({ ...TONES[tone], freqsHz: [hz] }), 4000, { noiseDbm0: -50, seed: 4 });
    const on = ev.filter((e) => e.kind === 'tone-on').map((e) => (e as { tone: string }).tone);
    expect(on[0] ?? null).toBe(want);
  });
});

describe('rejection', () => {
  it.each([-50, -30, -15])('white noise at %i dBm0 triggers nothing', (noiseDbm0) => {
    const silence = { tx: (out: Int16Array) => (out.fill(0), out.length) };
    expect(listen(silence, 10_000, { noiseDbm0, seed: 6 })).toEqual([]);
  });

  it('a V.21 preamble of flags is not CED (spandsp test 4)', () => {
    const hdlc = new HdlcTx({ preambleMs: 3000 });
    hdlc.end();
    const v21 = new V21Tx({ getBit: hdlc.getBit });
    expect(listen(v21, 3500, { snrDb: 20, signalDbm0: -13, seed: 8 })).toEqual([]);
  });

  it('a 1000 Hz + 1400 Hz pair and a 700 Hz tone trigger nothing', () => {
    expect(listen(new ToneTx({ freqsHz: [1000, 1400], levelDbm0: -15 }), 5000, { noiseDbm0: -55 })).toEqual([]);
    expect(listen(new ToneTx({ freqsHz: [700], levelDbm0: -15, cadenceMs: [500, 500] }), 5000, { noiseDbm0: -55 })).toEqual([]);
  });

  it('busy-tone frequencies with a ringback cadence (and vice versa) are not named', () => {
    const ev1 = listen(new ToneTx({ ...TONES.busy, cadenceMs: [2000, 4000] }), 7000, { noiseDbm0: -55 });
    expect(ev1).toEqual([]);
    const ev2 = listen(new ToneTx({ ...TONES.ringback, cadenceMs: [500, 500] }), 3000, { noiseDbm0: -55 });
    expect(ev2).toEqual([]);
  });
});

describe('ToneTx', () => {
  it('keeps the cadence to the sample and the level to 0.05 dB', () => {
    const tx = new ToneTx({ freqsHz: [1000], levelDbm0: -10, cadenceMs: [100, 50] });
    const out = new Int16Array(8 * 450);
    expect(tx.tx(out)).toBe(out.length);
    const on = (a: number, b: number) => out.subarray(a * 8, b * 8);
    expect(levelDbm0(on(0, 100))).toBeCloseTo(-10, 1);
    expect(on(100, 150).every((x) => x === 0)).toBe(true);
    expect(levelDbm0(on(150, 250))).toBeCloseTo(-10, 1);
    expect(on(400, 450).every((x) => x === 0)).toBe(true);
  });

  it('stops at durationMs, puts both components of a pair at the level, and modulates ANSam by 20 %', () => {
    const tx = new ToneTx(TONES.ced);
    const out = new Int16Array(30_000);
    expect(tx.tx(out)).toBe(24_000);
    expect(tx.tx(out)).toBe(0);
    const pair = new ToneTx(TONES.dial);
    const buf = new Int16Array(8000);
    pair.tx(buf);
    const bank = new GoertzelBank([350, 440], 8000);
    bank.feed(buf, 0, buf.length);
    expect(bank.complete).toBe(true);
    expect(10 * Math.log10(bank.power[0]! / bank.power[1]!)).toBeCloseTo(0, 1);
    const am = new ToneTx(TONES.ansam);
    am.tx(buf); // 1 s = 15 whole cycles of the envelope
    const env = new GoertzelBank([2085, 2100, 2115], 8000);
    env.feed(buf, 0, buf.length);
    // Sidebands at ±15 Hz, each 10 % of the carrier's amplitude: −20 dB.
    expect(10 * Math.log10(env.power[0]! / env.power[1]!)).toBeCloseTo(-20, 0);
    expect(10 * Math.log10(env.power[2]! / env.power[1]!)).toBeCloseTo(-20, 0);
  });

  it('validates its arguments', () => {
    expect(() => new ToneTx({ freqsHz: [], levelDbm0: 0 })).toThrow(/ToneTx: freqsHz must list one or two frequencies, got 0/);
    expect(() => new ToneTx({ freqsHz: [5000], levelDbm0: 0 })).toThrow(/ToneTx: freqsHz\[0\] must be a number in \[10, 3990\], got 5000/);
    expect(() => new ToneTx({ freqsHz: [1000], levelDbm0: 0, cadenceMs: [100] })).toThrow(/cadenceMs must have an even length/);
    expect(() => new FaxToneRx({ onEvent: () => {}, minPurity: 2 })).toThrow(/FaxToneRx: minPurity must be a number in \[0.05, 1\], got 2/);
    expect(() => new CallProgressRx({} as never)).toThrow(/CallProgressRx: onEvent must be a function/);
  });
});
