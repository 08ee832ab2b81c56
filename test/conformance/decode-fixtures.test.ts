// `faxstack decode` against the recorded spandsp sessions of fixtures/sessions/ (README.md
// there: NAME.wav or NAME.pcap, the page the caller sent as NAME.tif, and NAME.json saying what
// a receiver must make of them). Each capture is decoded passively; the mode must be the
// sidecar's, the T.30 frames the ones spandsp exchanged (same octets, same sender, about the
// same time), the idents and T.38 endpoints as recorded, and the page equal to the document
// pixel for pixel.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { firstDifference } from '../../src/codecs/index.js';
import { readTiff } from '../../src/documents/tiff-read.js';
import { RESOLUTIONS } from '../../src/t30/index.js';
import { analyzeCapture, readWav, writeWav, type ReportEntry } from '../../src/analysis/index.js';
import { mixDown } from '../kit/call-synth.js';
import { MODULATION, readSidecar, SESSIONS_DIR, sidecarFiles, type Sidecar } from './sessions.js';

const DIR = SESSIONS_DIR;
const sidecars = sidecarFiles();

/** A frame's time as we read it (closing flag on the sender's channel, or its packet) against spandsp's (delivered to the receiver). */
const FRAME_MS_TOLERANCE = 30;

describe('faxstack decode on the recorded spandsp sessions', () => {
  if (sidecars.length === 0) {
    it.skip('no sessions in fixtures/sessions', () => undefined);
    return;
  }

  it.each(sidecars)('%s', (file) => {
    const name = file.replace(/\.json$/, '');
    const s = readSidecar(file);
    const capture = `${name}.${s.format === 'pcap' ? 'pcap' : 'wav'}`;
    const started = performance.now();
    const a = analyzeCapture(readFileSync(join(DIR, capture)), { name: capture });
    const elapsedMs = performance.now() - started;

    // The medium, read as the README describes it.
    if (s.format === 'pcap') {
      expect(a.format).toBe('pcap');
      expect(a.t38).toMatchObject({
        caller: `${s.endpoints!.caller.ip}:${s.endpoints!.caller.port}`,
        answerer: `${s.endpoints!.answerer.ip}:${s.endpoints!.answerer.port}`,
        version: s.udptl!.t38Version,
        lost: 0,
        sip: 0,
        other: 0,
      });
    } else {
      expect(a.format).toBe('wav');
      expect(a.audio).toMatchObject({ channels: 2, encoding: 'ulaw' });
      expect(Math.abs(a.durationMs - s.durationMs)).toBeLessThan(50);
    }
    expect(a.warnings).toEqual([]);

    // The mode of the DCS, accepted by a CFR.
    const mode = a.call.mode;
    expect(mode, `no DCS decoded from ${capture}`).toBeDefined();
    const dcs = mode!.dcs;
    const e = s.expected;
    expect(dcs.modem).toMatchObject({ modulation: MODULATION[e.modulation], bitRate: e.bitRate });
    expect(dcs.ecm).toBe(e.ecm);
    expect(dcs.coding).toBe(e.compression);
    expect({ x: RESOLUTIONS[dcs.resolution].xDpi, y: RESOLUTIONS[dcs.resolution].yDpi }).toEqual(e.resolution);
    expect(mode!.confirmed).toBe(true);
    expect(a.call.idents).toEqual(s.idents);

    // The control frames spandsp exchanged (ECM's FCD/RCP travel inside the page's bursts).
    const ours = a.call.entries.filter((x): x is Extract<ReportEntry, { kind: 'frame' }> => x.kind === 'frame');
    const theirs = s.frames.filter((f) => f.fcf !== 'FCD' && f.fcf !== 'RCP');
    expect(a.call.frames.bad).toBe(0);
    expect(ours.map((f) => `${f.from} ${f.name} ${f.hex.replace(/ /g, '')}`)).toEqual(theirs.map((f) => `${f.from} ${f.fcf} ${f.hex}`));
    ours.forEach((f, i) => expect(Math.abs(f.atMs - theirs[i]!.ms), `${f.name} at ${f.atMs} ms, spandsp ${theirs[i]!.ms} ms`).toBeLessThan(FRAME_MS_TOLERANCE));

    // The TCF (carried: audio, and T.38's transferred TCF) passed.
    const tcf = a.call.entries.find((x) => x.kind === 'tcf');
    expect(tcf).toMatchObject({ from: 'caller', trained: true, measured: { ok: true, errors: 0 } });

    // The page, pixel for pixel; in ECM from as many frames as spandsp sent.
    const source = readTiff(readFileSync(join(DIR, s.document)));
    expect(a.call.pages).toHaveLength(e.pages);
    expect(source).toHaveLength(e.pages);
    a.call.pages.forEach((p, i) => {
      expect(p.error, `page ${i + 1}`).toBeUndefined();
      expect(p.badRows, `page ${i + 1}`).toBe(0);
      expect(firstDifference(p.bitmap!, source[i]!.bitmap), `page ${i + 1} of ${s.document}`).toBeNull();
    });
    if (e.ecm) expect(a.call.pages.reduce((n, p) => n + (p.frames ?? 0), 0)).toBe(s.frames.filter((f) => f.fcf === 'FCD').length);

    // Passive decoding: far faster than the call took.
    expect(elapsedMs).toBeLessThan(s.durationMs / 5);
  });

  const audio = sidecars.filter((f) => (JSON.parse(readFileSync(join(DIR, f), 'utf8')) as Sidecar).format !== 'pcap');
  it.skipIf(audio.length === 0).each(audio.length ? audio : ['(none)'])('%s, both channels mixed into one (mono: who sent what from the frames themselves)', (file) => {
    const name = file.replace(/\.json$/, '');
    const s = readSidecar(file);
    const stereo = readWav(readFileSync(join(DIR, `${name}.wav`)));
    const a = analyzeCapture(writeWav([mixDown(stereo.channels)], 'ulaw'));
    expect(a.description).toMatch(/^mono WAV/);
    const ours = a.call.entries.filter((x): x is Extract<ReportEntry, { kind: 'frame' }> => x.kind === 'frame');
    expect(ours.map((f) => `${f.from} ${f.name} ${f.hex.replace(/ /g, '')}`)).toEqual(s.frames.filter((f) => f.fcf !== 'FCD' && f.fcf !== 'RCP').map((f) => `${f.from} ${f.fcf} ${f.hex}`));
    expect(a.call.mode?.dcs.modem.bitRate).toBe(s.expected.bitRate);
    const source = readTiff(readFileSync(join(DIR, s.document)));
    expect(a.call.pages).toHaveLength(source.length);
    a.call.pages.forEach((p, i) => expect(firstDifference(p.bitmap!, source[i]!.bitmap)).toBeNull());
  });
});
