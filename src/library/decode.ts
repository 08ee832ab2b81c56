// The library's call analyser: a recorded fax call (WAV or raw audio, or a pcap of T.38) read back
// into its T.30 frames, the negotiated mode and the pages, as `faxstack decode` prints them.
// Wraps analyzeCapture of src/analysis.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { analyzeCapture, pagesTiff, reportJson, type AnalyzeCaptureOptions, type ReportEntry } from '../analysis/index.js';

/** How to read the recording; everything is guessed from the bytes (and the file name) when left out. */
export interface DecodeCallOptions {
  /** `wav`, `raw` (headerless samples) or `pcap`; default: from the first bytes, then the name. */
  format?: 'wav' | 'raw' | 'pcap';
  /** Raw audio: the sample encoding (default by extension, else 16-bit little-endian) and channel count. */
  encoding?: 'ulaw' | 'alaw' | 's16le';
  channels?: 1 | 2;
  /** pcap: the calling side's `HOST:PORT`, when the capture holds more than one flow. */
  caller?: string;
  /** The file's name when bytes are given (its extension can name the raw encoding). */
  name?: string;
}

/** A decoded recording. */
export interface DecodedCall {
  format: 'wav' | 'raw' | 'pcap';
  /** What was read, in words (`stereo WAV, µ-law, 62.3 s`). */
  description: string;
  durationMs: number;
  /** Tones, T.30 frames (with their CRC verdict), training checks and pages, in time order. */
  entries: ReportEntry[];
  /** The last DCS in words and whether a CFR confirmed it; null when no DCS was seen. */
  mode: { text: string; confirmed: boolean } | null;
  bitRate: number | null;
  ecm: boolean | null;
  compression: string | null;
  /** `204x196`, from the first page. */
  resolution: string | null;
  idents: { caller?: string; answerer?: string };
  frames: { ok: number; bad: number };
  /** Pages seen, and how many of them decoded into images. */
  pagesTotal: number;
  pagesDecoded: number;
  /** The decoded pages as one TIFF class F file; undefined when none decoded. */
  tiff: Buffer | undefined;
  warnings: string[];
}

/**
 * Decodes a recorded fax call from a file path or its bytes. A file that is not a recording
 * throws a FaxError (INVALID_FILE_FORMAT); a recording without a fax call gives `frames` 0/0.
 */
export async function decodeCall(source: string | Uint8Array, options: DecodeCallOptions = {}): Promise<DecodedCall> {
  const bytes = typeof source === 'string' ? await readFile(source) : source;
  const name = options.name ?? (typeof source === 'string' ? basename(source) : undefined);
  const opts: AnalyzeCaptureOptions = {
    ...(options.format ? { format: options.format } : {}),
    ...(name ? { name } : {}),
    ...(options.encoding ? { encoding: options.encoding } : {}),
    ...(options.channels ? { channels: options.channels } : {}),
  };
  if (options.caller) {
    const m = /^(.+):(\d+)$/.exec(options.caller);
    if (m) opts.caller = { host: m[1]!, port: Number(m[2]) };
  }
  const analysis = analyzeCapture(bytes, opts);
  const report = reportJson(analysis) as { bitRate: number | null; ecm: boolean | null; compression: string | null; resolution: string | null };
  const { call } = analysis;
  return {
    format: analysis.format as DecodedCall['format'],
    description: analysis.description,
    durationMs: analysis.durationMs,
    entries: call.entries,
    mode: call.mode ? { text: call.mode.text, confirmed: call.mode.confirmed } : null,
    bitRate: report.bitRate,
    ecm: report.ecm,
    compression: report.compression,
    resolution: report.resolution,
    idents: call.idents,
    frames: call.frames,
    pagesTotal: call.pages.length,
    pagesDecoded: call.pages.filter((p) => p.bitmap).length,
    tiff: pagesTiff(call.pages),
    warnings: analysis.warnings,
  };
}
