// `faxstack decode` against recorded spandsp sessions (fixtures/sessions/: a capture — WAV, raw
// audio or a T.38 pcap — and a JSON sidecar naming it, the mode the call negotiated and the
// TIFF document that was sent). Each capture is decoded passively; the mode must be the one
// expected and every page must equal the document's, pixel for pixel.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { firstDifference } from '../../src/codecs/index.js';
import { readTiff } from '../../src/documents/tiff-read.js';
import { RESOLUTIONS } from '../../src/t30/index.js';
import { analyzeCapture, parseEndpoint, type AnalyzeCaptureOptions, type SampleEncoding } from '../../src/transport/capture/index.js';

// FAXSTACK_SESSIONS_DIR points the test at another directory of sessions in the same layout.
const DIR = process.env.FAXSTACK_SESSIONS_DIR ?? new URL('../../fixtures/sessions/', import.meta.url).pathname;
const sidecars = existsSync(DIR) ? readdirSync(DIR).filter((f) => f.endsWith('.json')).sort() : [];

type Json = Record<string, unknown>;

/** The first of several spellings a sidecar may use for a field. */
function pick(o: Json, ...keys: string[]): unknown {
  for (const k of keys) if (o[k] !== undefined && o[k] !== null) return o[k];
  return undefined;
}

const norm = (v: unknown) => String(v).toLowerCase().replace(/[\s._-]/g, '');

/** Modulation names as sidecars may write them: V.17, v17, V.27ter, v27 … */
const MODULATION: Record<string, string> = { v17: 'v17', v29: 'v29', v27: 'v27ter', v27ter: 'v27ter' };
const CODING: Record<string, string> = { mh: 'mh', t41d: 'mh', '1d': 'mh', mr: 'mr', t42d: 'mr', '2d': 'mr', mmr: 'mmr', t6: 'mmr' };

function loadSidecar(file: string): { sidecar: Json; capture: string; document: string | undefined; opts: AnalyzeCaptureOptions; expected: Json } {
  const sidecar = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Json;
  const capture = String(pick(sidecar, 'capture', 'file', 'audio', 'wav', 'pcap', 'recording') ?? file.replace(/\.json$/, ''));
  const document = pick(sidecar, 'document', 'tiff', 'source', 'sourceTiff', 'sent');
  const opts: AnalyzeCaptureOptions = { name: capture };
  const format = pick(sidecar, 'format');
  if (format === 'wav' || format === 'raw' || format === 'pcap') opts.format = format;
  const law = pick(sidecar, 'law', 'encoding');
  if (law === 'ulaw' || law === 'alaw' || law === 's16le') opts.encoding = law as SampleEncoding;
  const channels = pick(sidecar, 'channels');
  if (channels === 1 || channels === 2) opts.channels = channels;
  const caller = pick(sidecar, 'caller');
  if (typeof caller === 'string' && parseEndpoint(caller)) opts.caller = parseEndpoint(caller)!;
  const expected = (pick(sidecar, 'expected', 'mode') ?? {}) as Json;
  return { sidecar, capture, document: typeof document === 'string' ? document : undefined, opts, expected };
}

describe('faxstack decode on recorded spandsp sessions', () => {
  if (sidecars.length === 0) {
    it.skip('no sessions in fixtures/sessions yet', () => undefined);
    return;
  }

  it.each(sidecars)('%s', (file) => {
    const { capture, document, opts, expected } = loadSidecar(file);
    const bytes = readFileSync(join(DIR, capture));
    const started = performance.now();
    const a = analyzeCapture(bytes, opts);
    const elapsed = performance.now() - started;
    const mode = a.call.mode;
    expect(mode, `no DCS decoded from ${capture}`).toBeDefined();
    const dcs = mode!.dcs;

    const rate = pick(expected, 'bitRate', 'rate', 'bitrate', 'speed');
    if (rate !== undefined) expect(dcs.modem.bitRate).toBe(Number(rate));
    const modulation = pick(expected, 'modulation', 'modem');
    if (modulation !== undefined) expect(dcs.modem.modulation).toBe(MODULATION[norm(modulation)] ?? norm(modulation));
    const ecm = pick(expected, 'ecm');
    if (ecm !== undefined) expect(dcs.ecm).toBe(ecm === true || ecm === 'on' || ecm === 1);
    const coding = pick(expected, 'coding', 'compression', 'encoding');
    if (coding !== undefined) expect(dcs.coding).toBe(CODING[norm(coding)] ?? norm(coding));
    const resolution = pick(expected, 'resolution');
    if (resolution !== undefined) {
      const r = RESOLUTIONS[dcs.resolution];
      const names = [dcs.resolution, `${r.xDpi}x${r.yDpi}`, `${r.xDpi}×${r.yDpi}`, r.yClass].map(norm);
      expect(names, `resolution ${String(resolution)}`).toContain(norm(resolution));
    }
    const width = pick(expected, 'width', 'paperWidth');
    if (typeof width === 'number') expect(a.call.pages.every((p) => p.width === width)).toBe(true);
    else if (width !== undefined) expect(dcs.width).toBe(norm(width));

    // Every T.30 frame of a clean recording has a good FCS, and the TCF passed.
    expect(a.call.frames.bad).toBe(0);
    const tcf = a.call.entries.filter((e) => e.kind === 'tcf').at(-1);
    if (tcf && tcf.kind === 'tcf' && tcf.measured) expect(tcf.measured.ok).toBe(true);

    const pagesExpected = pick(expected, 'pages');
    if (typeof pagesExpected === 'number') expect(a.call.pages).toHaveLength(pagesExpected);
    if (document) {
      const source = readTiff(readFileSync(join(DIR, document)));
      expect(a.call.pages).toHaveLength(source.length);
      a.call.pages.forEach((p, i) => {
        expect(p.error, `page ${i + 1}`).toBeUndefined();
        expect(p.badRows, `page ${i + 1}`).toBe(0);
        expect(firstDifference(p.bitmap!, source[i]!.bitmap), `page ${i + 1} of ${document}`).toBeNull();
      });
    }
    // Passive decoding: far faster than the call took.
    if (a.durationMs > 10_000) expect(elapsed).toBeLessThan(a.durationMs / 5);
  });
});
