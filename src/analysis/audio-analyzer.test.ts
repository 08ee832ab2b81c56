// Audio captures made with our own modems: real calls (two T30Sessions, test-synth.ts) rendered
// to one channel per side, or mixed to mono, through WAV files in each encoding, and a scripted
// call with a failed TCF and a fallback. The analyzer must name every frame and its sender, the
// mode, the TCF verdict, and give back each page pixel for pixel, much faster than real time.
import { describe, expect, it } from 'vitest';
import { LineModel } from '../../native-free-dsp/index.js';
import { encodeMH, firstDifference, type Bitmap } from '../codecs/index.js';
import { buildFrame, DIS_DEFAULTS, encodeDcs, encodeDis, encodeIdent, fcfByte, type Dcs, type FcfName, type ModemSpec } from '../t30/index.js';
import { textPage } from '../../test/vectors/synthetic-pages.js';
import { analyzeCapture } from './analyze.js';
import type { CallAnalysis, ReportEntry } from './call-analysis.js';
import { mixDown, recordCall, renderCall, type RecordCallOptions, type RecordedCommand } from '../../test/kit/call-synth.js';
import { writeWav, type SampleEncoding } from './wav.js';

const frameNames = (c: CallAnalysis) => c.entries.filter((e): e is Extract<ReportEntry, { kind: 'frame' }> => e.kind === 'frame').map((e) => `${e.from === 'caller' ? '>' : '<'}${e.name}`);
const tcfs = (c: CallAnalysis) => c.entries.filter((e): e is Extract<ReportEntry, { kind: 'tcf' }> => e.kind === 'tcf');

function expectPages(c: CallAnalysis, source: readonly Bitmap[]): void {
  expect(c.pages).toHaveLength(source.length);
  c.pages.forEach((p, i) => {
    expect(p.error).toBeUndefined();
    expect(p.badRows).toBe(0);
    expect(p.bitmap, `page ${i + 1}`).toBeDefined();
    expect(firstDifference(p.bitmap!, source[i]!), `page ${i + 1}`).toBeNull();
  });
}

interface Case {
  name: string;
  call: Omit<RecordCallOptions, 'pages'>;
  channels: 'stereo' | 'mono';
  encoding: SampleEncoding;
  mode: RegExp;
  frames: string[];
  /** Noise on the line: SNR in dB against a −13 dBm0 signal. */
  snrDb?: number;
  /** Each channel also carries the other one, this many dB down and 20 ms late (a hybrid's echo). */
  echoDb?: number;
}

const NON_ECM = ['<CSI', '<DIS', '>TSI', '>DCS', '<CFR', '>MPS', '<MCF', '>EOP', '<MCF', '>DCN'];
const ECM = ['<CSI', '<DIS', '>TSI', '>DCS', '<CFR', '>PPS', '<MCF', '>PPS', '<MCF', '>DCN'];

const CASES: Case[] = [
  { name: 'non-ECM V.17 14400 MR, stereo µ-law', call: { ecm: false }, channels: 'stereo', encoding: 'ulaw', mode: /^V\.17 14400, MR, R8×7\.7, A4/, frames: NON_ECM },
  { name: 'ECM V.17 14400 MMR, stereo 16-bit', call: { ecm: true }, channels: 'stereo', encoding: 's16le', mode: /^V\.17 14400, ECM, MMR, R8×7\.7, A4/, frames: ECM },
  { name: 'ECM V.17 14400 MMR, mono A-law (directions from content)', call: { ecm: true }, channels: 'mono', encoding: 'alaw', mode: /^V\.17 14400, ECM, MMR/, frames: ECM },
  { name: 'non-ECM V.29 9600 MH, mono 16-bit', call: { ecm: false, caller: { maxBitRate: 9600, codings: ['mh'] } }, channels: 'mono', encoding: 's16le', mode: /^V\.29 9600, MH, R8×7\.7/, frames: NON_ECM },
  { name: 'ECM V.27ter 4800 MR, stereo A-law', call: { ecm: true, caller: { maxBitRate: 4800, codings: ['mh', 'mr'] } }, channels: 'stereo', encoding: 'alaw', mode: /^V\.27ter 4800, ECM, MR/, frames: ECM },
  { name: 'non-ECM V.17 14400 MR at 28 dB SNR, stereo µ-law', call: { ecm: false }, channels: 'stereo', encoding: 'ulaw', mode: /^V\.17 14400, MR/, frames: NON_ECM, snrDb: 28 },
  { name: 'ECM V.17 14400 MMR, stereo with 15 dB echo of the other side on each channel', call: { ecm: true }, channels: 'stereo', encoding: 's16le', mode: /^V\.17 14400, ECM, MMR/, frames: ECM, echoDb: 15 },
];

function withEcho(channels: Int16Array[], db: number): Int16Array[] {
  const g = 10 ** (-db / 20);
  const delay = 160;
  return channels.map((ch, c) => {
    const other = channels[1 - c]!;
    return Int16Array.from(ch, (v, i) => Math.max(-32768, Math.min(32767, Math.round(v + (i >= delay ? g * other[i - delay]! : 0)))));
  });
}

describe('analyzeAudio over calls made by our own T.30 and modems', () => {
  it.each(CASES)('$name', async (c) => {
    const pages = [textPage(1728, 260, 3), textPage(1728, 180, 4)];
    const call = await recordCall({ pages, ...c.call });
    expect(call.caller.completion).toBe('T30_ERR_OK');
    let channels: Int16Array[] = renderCall(call.commands);
    if (c.snrDb !== undefined) {
      channels = channels.map((ch, i) => {
        const out = new Int16Array(ch.length);
        new LineModel({ snrDb: c.snrDb, signalDbm0: -13, seed: 7 + i }).process(ch, out);
        return out;
      });
    }
    if (c.echoDb !== undefined) channels = withEcho(channels, c.echoDb);
    if (c.channels === 'mono') channels = [mixDown(channels)];
    const wav = writeWav(channels, c.encoding);
    const started = performance.now();
    const a = analyzeCapture(wav, { name: 'call.wav' });
    const elapsedMs = performance.now() - started;
    expect(a.format).toBe('wav');
    expect(a.description).toMatch(c.channels === 'stereo' ? /^stereo WAV/ : /^mono WAV/);
    expect(frameNames(a.call)).toEqual(c.frames);
    expect(a.call.frames.bad).toBe(0);
    expect(a.call.mode?.text).toMatch(c.mode);
    expect(a.call.mode?.confirmed).toBe(true);
    expect(a.call.idents).toEqual({ caller: '+1 555 0100', answerer: '+1 555 0199' });
    const [tcf] = tcfs(a.call);
    expect(tcf).toMatchObject({ from: 'caller', trained: true, measured: { ok: true, errors: 0 } });
    expect(tcf!.measured!.durationMs).toBeGreaterThan(1350);
    expect(tcf!.measured!.durationMs).toBeLessThan(1650);
    const tones = a.call.entries.filter((e) => e.kind === 'tone').map((e) => `${e.from}:${(e as { tone: string }).tone}`);
    expect(tones).toEqual(['caller:CNG', 'answerer:CED']);
    expectPages(a.call, pages);
    a.call.pages.forEach((p) => expect(p.ecm).toBe(c.call.ecm));
    // Passive decoding runs far faster than the call lasted (real time would be elapsed = duration).
    expect(elapsedMs).toBeLessThan(a.durationMs / 5);
  });
});

// ------------------------------------------------------------------------- a scripted call

const frame = (name: FcfName, info: ArrayLike<number> = [], final = true) => buildFrame(fcfByte(name, 1), info, final);

function dcs(modem: ModemSpec): Uint8Array {
  const d: Dcs = { receive: true, modem, resolution: 'R8_FINE', coding: 'mh', width: 'a4', length: 'a4', scanLineMs: 0, ecm: false, ecmFrameSize: 256, subaddress: false, senderId: false };
  return frame('DCS', encodeDcs(d));
}

describe('a scripted call: TCF fails at 14400, FTT, V.29 9600 trains, one page', () => {
  it('reports the failed TCF, the fallback mode and the page', () => {
    const page = textPage(1728, 120, 9);
    const v17: ModemSpec = { modulation: 'v17', bitRate: 14400 };
    const v29: ModemSpec = { modulation: 'v29', bitRate: 9600 };
    // 1.5 s of zeros at 14400 with a one every 0.5 s: no run of zeros lasts the second T.30 asks for.
    const badTcf = new Uint8Array(2700);
    for (let i = 0; i < badTcf.length; i += 900) badTcf[i] = 0x10;
    const dis = encodeDis({ ...DIS_DEFAULTS, modems: { v27ter: true, v29: true, v17: true }, resolutions: ['R8_STANDARD', 'R8_FINE'] });
    const script: Array<[RecordedCommand['side'], RecordedCommand['cmd']]> = [
      ['answerer', { kind: 'send-hdlc', modem: 'v21', frames: [frame('CSI', encodeIdent('+44 20 7946 0000'), false), buildFrame(0x80, dis)] }],
      ['caller', { kind: 'send-hdlc', modem: 'v21', frames: [frame('TSI', encodeIdent('+1 555 0100'), false), dcs(v17)] }],
      ['caller', { kind: 'send-silence', durationMs: 75 }],
      ['caller', { kind: 'send-image', modem: v17, data: badTcf }],
      ['answerer', { kind: 'send-hdlc', modem: 'v21', frames: [frame('FTT')] }],
      ['caller', { kind: 'send-hdlc', modem: 'v21', frames: [dcs(v29)] }],
      ['caller', { kind: 'send-silence', durationMs: 75 }],
      ['caller', { kind: 'send-tcf', modem: v29, durationMs: 1500 }],
      ['answerer', { kind: 'send-hdlc', modem: 'v21', frames: [frame('CFR')] }],
      ['caller', { kind: 'send-silence', durationMs: 75 }],
      ['caller', { kind: 'send-image', modem: v29, data: encodeMH(page) }],
      ['caller', { kind: 'send-hdlc', modem: 'v21', frames: [frame('EOP')] }],
      ['answerer', { kind: 'send-hdlc', modem: 'v21', frames: [frame('MCF')] }],
      ['caller', { kind: 'send-hdlc', modem: 'v21', frames: [frame('DCN')] }],
    ];
    const audio = renderCall(script.map(([side, cmd]) => ({ side, atMs: 0, cmd })));
    const a = analyzeCapture(writeWav(audio), {});
    expect(frameNames(a.call)).toEqual(['<CSI', '<DIS', '>TSI', '>DCS', '<FTT', '>DCS', '<CFR', '>EOP', '<MCF', '>DCN']);
    const [first, second] = tcfs(a.call);
    expect(first).toMatchObject({ modem: v17, training: 'long', trained: true, measured: { ok: false, errors: 3 } });
    expect(first!.measured!.longestZeroRunMs).toBeLessThan(1000);
    expect(second).toMatchObject({ modem: v29, trained: true, measured: { ok: true, errors: 0 } });
    expect(a.call.mode?.text).toBe('V.29 9600, MH, R8×7.7, A4');
    expect(a.call.idents.answerer).toBe('+44 20 7946 0000');
    expectPages(a.call, [page]);
  });
});
