// Records the reference sessions of fixtures/sessions/ (see its README): whole fax calls between
// two spandsp terminals back to back (fax-peer.c record-audio / record-t38), each with its
// source page (TIFF class F, written by our writer) and a sidecar JSON saying what it holds and
// what a receiver must make of it. Deterministic: the same spandsp gives the same bytes.
//
//   npx tsx test/interop/fax-audio/record-sessions.ts [--out DIR]     (default fixtures/sessions)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBitmap } from '../../../src/codecs/bitmap.js';
import { writeTiffF } from '../../../src/documents/tiff-f.js';
import { textPage } from '../../vectors/synthetic-pages.js';
import { compareFaxTiffs } from '../tiff-compare.js';
import { buildFaxPeer, record, type FaxPeerCompression, type RecordedFrame, type RecordOptions, type RecordingResult } from './fax-peer.js';

export const SESSIONS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'fixtures', 'sessions');

export type SessionModulation = 'V.17' | 'V.29' | 'V.27ter';

export interface SessionExpected {
  modulation: SessionModulation;
  bitRate: number;
  ecm: boolean;
  compression: FaxPeerCompression;
  resolution: { x: number; y: number };
  pages: number;
  completion: number;
}

export interface SessionSpec {
  name: string;
  description: string;
  kind: 'audio' | 't38';
  /** The source page: the top `rows` rows of an A4 text page at this vertical resolution. */
  page: { rows: number; yDpi: 98 | 196; seed: number; coding: FaxPeerCompression };
  /** Both terminals' settings (the same on each side), forcing the mode under test. */
  options: Pick<RecordOptions, 'ecm' | 'modems' | 'compression' | 'txLevelDbm0' | 'noiseDbm0' | 'seed' | 'redundancy'>;
  expected: SessionExpected;
}

const FINE = { x: 204, y: 196 };
const STANDARD = { x: 204, y: 98 };
const ok = { pages: 1, completion: 0 } as const;

export const SESSIONS: readonly SessionSpec[] = [
  {
    name: 'audio-v17-14400-ecm-mmr',
    description: 'V.17 14400 bit/s, ECM, T.6 (MMR), fine: what two capable terminals choose unforced',
    kind: 'audio',
    page: { rows: 400, yDpi: 196, seed: 101, coding: 'mmr' },
    options: {},
    expected: { modulation: 'V.17', bitRate: 14400, ecm: true, compression: 'mmr', resolution: FINE, ...ok },
  },
  {
    name: 'audio-v17-14400-mh',
    description: 'V.17 14400 bit/s without ECM, T.4 1-D (MH), fine',
    kind: 'audio',
    page: { rows: 400, yDpi: 196, seed: 102, coding: 'mh' },
    options: { ecm: false, compression: ['mh'] },
    expected: { modulation: 'V.17', bitRate: 14400, ecm: false, compression: 'mh', resolution: FINE, ...ok },
  },
  {
    name: 'audio-v29-9600-mr',
    description: 'V.29 9600 bit/s without ECM, T.4 2-D (MR), standard resolution (modems limited to V.27 ter + V.29)',
    kind: 'audio',
    page: { rows: 200, yDpi: 98, seed: 103, coding: 'mr' },
    options: { ecm: false, modems: ['v27ter', 'v29'], compression: ['mh', 'mr'] },
    expected: { modulation: 'V.29', bitRate: 9600, ecm: false, compression: 'mr', resolution: STANDARD, ...ok },
  },
  {
    name: 'audio-v27ter-4800-ecm-mr',
    description: 'V.27 ter 4800 bit/s, ECM, T.4 2-D (MR), standard resolution (modems limited to V.27 ter)',
    kind: 'audio',
    page: { rows: 200, yDpi: 98, seed: 104, coding: 'mr' },
    options: { modems: ['v27ter'], compression: ['mh', 'mr'] },
    expected: { modulation: 'V.27ter', bitRate: 4800, ecm: true, compression: 'mr', resolution: STANDARD, ...ok },
  },
  {
    name: 'audio-v17-14400-ecm-mmr-noise',
    description:
      'V.17 14400 bit/s, ECM, MMR, fine, on a weak noisy line: everything sent 6 dB quieter (modems at -20 dBm0, tones at -17) and white noise at -50 dBm0 added both ways (30 dB SNR)',
    kind: 'audio',
    page: { rows: 400, yDpi: 196, seed: 105, coding: 'mmr' },
    options: { txLevelDbm0: -20, noiseDbm0: -50, seed: 7 },
    expected: { modulation: 'V.17', bitRate: 14400, ecm: true, compression: 'mmr', resolution: FINE, ...ok },
  },
  {
    name: 't38-v17-14400-ecm-mmr',
    description: 'T.38 (UDPTL, redundancy 1), V.17 14400 bit/s, ECM, MMR, fine',
    kind: 't38',
    page: { rows: 400, yDpi: 196, seed: 106, coding: 'mmr' },
    options: { redundancy: 1 },
    expected: { modulation: 'V.17', bitRate: 14400, ecm: true, compression: 'mmr', resolution: FINE, ...ok },
  },
  {
    name: 't38-v17-14400-mr',
    description: 'T.38 (UDPTL, redundancy 1), V.17 14400 bit/s without ECM, T.4 2-D (MR), fine',
    kind: 't38',
    page: { rows: 400, yDpi: 196, seed: 107, coding: 'mr' },
    options: { ecm: false, compression: ['mh', 'mr'], redundancy: 1 },
    expected: { modulation: 'V.17', bitRate: 14400, ecm: false, compression: 'mr', resolution: FINE, ...ok },
  },
];

/** The caller's and answerer's addresses in the T.38 captures (fixed in fax-peer.c). */
export const T38_ENDPOINTS = {
  caller: { ip: '127.0.0.1', port: 40000 },
  answerer: { ip: '127.0.0.2', port: 40002 },
} as const;

export interface SessionSidecar {
  description: string;
  madeWith: string;
  spandspRelease: string;
  format: 'wav-ulaw-stereo' | 'pcap';
  /** WAV: which party sent each channel (index = channel). */
  channels?: ['caller', 'answerer'];
  /** pcap: the parties' IPv4 addresses and UDP ports. */
  endpoints?: typeof T38_ENDPOINTS;
  /** Audio: what was done to the line (both directions). */
  line?: { codec: 'ulaw'; txLevelDbm0: number; noiseDbm0: number | null };
  /** pcap: UDPTL framing. */
  udptl?: { redundancy: number; t38Version: 0 };
  expected: SessionExpected;
  document: string;
  durationMs: number;
  idents: { caller: string; answerer: string };
  /** Every T.30 frame, as and when the other side received it. */
  frames: RecordedFrame[];
}

/** A short page as TIFF-F: the top `rows` rows of a synthetic A4 text page, so the glyphs have their usual size. */
export function pageTop(page: SessionSpec['page']): Buffer {
  const full = textPage(1728, page.yDpi === 196 ? 2287 : 1143, page.seed);
  const bm = createBitmap(1728, page.rows);
  bm.data.set(full.data.subarray(0, bm.stride * page.rows));
  return writeTiffF([{ bitmap: bm, xDpi: 204, yDpi: page.yDpi }], { compression: page.coding, software: 'faxstack session fixture' });
}

/** The session's source page. */
export function sessionDocument(spec: SessionSpec): Buffer {
  return pageTop(spec.page);
}

function spandspVersion(): string {
  try {
    return execFileSync('pkg-config', ['--modversion', 'spandsp'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** What disagrees between a side's result and the expectation, in words ('' when nothing). */
export function mismatch(r: RecordingResult, e: SessionExpected): string {
  const out: string[] = [];
  for (const [who, s] of [['caller', r.caller], ['answerer', r.answerer]] as const) {
    const got = { modulation: s.modulation, bitRate: s.bitRate, ecm: s.ecm, compression: s.compression, resolution: s.resolution, pages: s.pages, completion: s.completion };
    if (JSON.stringify(got) !== JSON.stringify(e)) out.push(`${who}: ${JSON.stringify(got)}`);
  }
  return out.length ? `expected ${JSON.stringify(e)}, got ${out.join('; ')}` : '';
}

/**
 * Records one session into `outDir` (NAME.tif, NAME.wav|pcap, NAME.json), checking that the
 * call went as expected and the page arrived pixel for pixel. `workDir` takes the received page.
 */
export async function recordSession(binary: string, spec: SessionSpec, outDir: string, workDir: string): Promise<SessionSidecar> {
  const doc = join(outDir, `${spec.name}.tif`);
  const received = join(workDir, `${spec.name}-rx.tif`);
  const media = join(outDir, `${spec.name}.${spec.kind === 'audio' ? 'wav' : 'pcap'}`);
  writeFileSync(doc, sessionDocument(spec));
  const r = await record(binary, spec.kind, media, { ...spec.options, send: doc, receive: received });
  const wrong = mismatch(r, spec.expected);
  if (wrong) throw new Error(`${spec.name}: ${wrong}`);
  const cmp = compareFaxTiffs(doc, received, workDir, spec.name);
  if (!cmp.identical) throw new Error(`${spec.name}: the received page differs: ${cmp.detail}`);
  const audio = spec.kind === 'audio';
  const sidecar: SessionSidecar = {
    description: spec.description,
    madeWith: `spandsp ${spandspVersion()} ${audio ? 'fax_state_t' : 't38_terminal'}`,
    spandspRelease: r.spandsp,
    format: audio ? 'wav-ulaw-stereo' : 'pcap',
    ...(audio
      ? { channels: ['caller', 'answerer'] as ['caller', 'answerer'], line: { codec: 'ulaw' as const, txLevelDbm0: spec.options.txLevelDbm0 ?? -14, noiseDbm0: spec.options.noiseDbm0 ?? null } }
      : { endpoints: T38_ENDPOINTS, udptl: { redundancy: spec.options.redundancy ?? 1, t38Version: 0 as const } }),
    expected: spec.expected,
    document: `${spec.name}.tif`,
    durationMs: r.samples / 8,
    idents: { caller: r.answerer.remoteIdent, answerer: r.caller.remoteIdent },
    frames: r.frames,
  };
  writeFileSync(join(outDir, `${spec.name}.json`), formatSidecar(sidecar));
  return sidecar;
}

/** Pretty JSON, one line per T.30 frame (the frames would otherwise take six lines each). */
export function formatSidecar(s: SessionSidecar): string {
  const { frames, ...rest } = s;
  const head = JSON.stringify(rest, null, 2).replace(/\n\}$/, '');
  return `${head},\n  "frames": [\n${frames.map((f) => `    ${JSON.stringify(f)}`).join(',\n')}\n  ]\n}\n`;
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--out');
  const outDir = at > 0 ? resolve(process.argv[at + 1] ?? '') : SESSIONS_DIR;
  const build = buildFaxPeer();
  if (!build.ok) throw new Error(build.reason);
  mkdirSync(outDir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'faxstack-sessions-'));
  let total = 0;
  try {
    for (const spec of SESSIONS) {
      const s = await recordSession(build.binary, spec, outDir, work);
      const sizes = ['tif', spec.kind === 'audio' ? 'wav' : 'pcap', 'json'].map((ext) => statSync(join(outDir, `${spec.name}.${ext}`)).size);
      total += sizes.reduce((a, b) => a + b, 0);
      console.log(`${spec.name}: ${(s.durationMs / 1000).toFixed(1)} s, ${sizes.map((n) => `${(n / 1024).toFixed(1)} kB`).join(' + ')}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  console.log(`total ${(total / 1024 / 1024).toFixed(2)} MB in ${outDir}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}

/** Reads a sidecar back (for the tests). */
export function readSidecar(file: string): SessionSidecar {
  return JSON.parse(readFileSync(file, 'utf8')) as SessionSidecar;
}
