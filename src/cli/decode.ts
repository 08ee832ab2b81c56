// `faxstack decode CAPTURE`: a passive analyzer of a recorded fax call — a WAV or raw audio
// recording (demodulated: both directions, one per channel, or mixed in one) or a pcap of the
// T.38 (UDPTL) packets — printing the T.30 frames with timestamps, the negotiated mode, the
// training checks and each page, and writing the pages as TIFF class F. The analysis lives in
// src/analysis; this is the command around it.
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { FaxError } from '../shared/errors.js';
import {
  analyzeCapture,
  pagesTiff,
  parseEndpoint,
  reportJson,
  reportLines,
  type AnalyzeCaptureOptions,
  type SampleEncoding,
} from '../analysis/index.js';
import { args, str, UsageError } from './args.js';

const DECODE_USAGE = `usage: faxstack decode CAPTURE [--format wav|raw|pcap|auto] [--pages-out OUT.tif | --out DIR] [--json]
                       [--channels 1|2] [--law ulaw|alaw|s16le] [--caller HOST:PORT]
  CAPTURE      a WAV file (8000 Hz; 16-bit PCM, µ-law or A-law; stereo: channel 0 the caller,
               channel 1 the answerer; mono: both sides mixed), raw audio (8000 Hz), or a pcap of
               the call's T.38 (UDPTL) packets
  --format     auto (default): by the file's header, then its extension (.raw .pcm .sln: s16le,
               .ul .ulaw: µ-law, .al .alaw: A-law); ulaw, alaw, s16le: raw audio in that encoding
  --law        raw audio sample encoding (default s16le, or as the extension says)
  --channels   raw audio: 2 for interleaved caller/answerer samples (default 1)
  --caller     pcap: the caller's HOST:PORT (default: whoever sends the first T.38 packet)
  --pages-out  write the decoded pages as one TIFF class F file
  --out        the same, as DIR/NAME.tif (NAME: the capture's file name without its extension)
  --json       print the analysis as one JSON object
`;

/** Largest capture read (a one-hour stereo 16-bit WAV is 115 MB). */
const MAX_FILE_BYTES = 1 << 30;

const FORMATS = ['wav', 'raw', 'pcap', 'auto', 'ulaw', 'alaw', 's16le'] as const;
const LAWS: readonly SampleEncoding[] = ['ulaw', 'alaw', 's16le'];

interface DecodeIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
}

export async function decodeCommand(argv: string[], io: DecodeIo = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const started = performance.now();
  const { values, positionals } = args(
    argv,
    {
      format: { type: 'string', default: 'auto' },
      'pages-out': { type: 'string' },
      out: { type: 'string' },
      json: { type: 'boolean', default: false },
      channels: { type: 'string' },
      law: { type: 'string' },
      caller: { type: 'string' },
    },
    true,
  );
  if (positionals.length !== 1) throw new UsageError(`${positionals.length === 0 ? 'no capture file' : 'one capture file at a time'}\n${DECODE_USAGE}`);
  const file = positionals[0]!;
  const format = FORMATS.find((f) => f === str(values.format).toLowerCase());
  if (!format) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, got ${JSON.stringify(values.format)}`);
  const opts: AnalyzeCaptureOptions = { name: file };
  if (format === 'ulaw' || format === 'alaw' || format === 's16le') {
    opts.format = 'raw';
    opts.encoding = format;
  } else opts.format = format;
  if (values.law !== undefined) {
    const law = LAWS.find((l) => l === str(values.law).toLowerCase());
    if (!law) throw new UsageError(`--law must be ulaw, alaw or s16le, got ${JSON.stringify(values.law)}`);
    opts.encoding = law;
  }
  if (values.channels !== undefined) {
    const ch = str(values.channels);
    if (ch !== '1' && ch !== '2') throw new UsageError(`--channels must be 1 or 2, got ${JSON.stringify(ch)}`);
    opts.channels = ch === '2' ? 2 : 1;
  }
  if (values.caller !== undefined) {
    const caller = parseEndpoint(str(values.caller));
    if (!caller) throw new UsageError(`--caller must be HOST:PORT or [IPv6]:PORT, got ${JSON.stringify(values.caller)}`);
    opts.caller = caller;
  }
  if (values['pages-out'] !== undefined && values.out !== undefined) throw new UsageError('--pages-out and --out name the same file: give one');
  const outDir = str(values.out);
  if (outDir) await mkdir(outDir, { recursive: true });
  const pagesOut = outDir ? join(outDir, `${basename(file, extname(file))}.tif`) : str(values['pages-out']);
  const json = values.json === true;

  const fail = (code: number, message: string, status: number): number => {
    if (json) io.stdout.write(`${JSON.stringify({ success: false, code, message, pages: 0, pagesTotal: 0, durationMs: Math.round(performance.now() - started) })}\n`);
    else io.stderr.write(`faxstack decode: ${message}\n`);
    return status;
  };

  let bytes: Uint8Array;
  try {
    const st = await stat(file);
    if (!st.isFile()) return fail(-3006, `${file} is not a file`, 2);
    if (st.size > MAX_FILE_BYTES) return fail(-3005, `${file} is ${st.size} bytes, over the limit of ${MAX_FILE_BYTES}`, 2);
    bytes = await readFile(file);
  } catch (err) {
    return fail(-3003, `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 2);
  }

  let analysis;
  try {
    analysis = analyzeCapture(bytes, opts);
  } catch (err) {
    if (err instanceof FaxError) return fail(err.code, `${file}: ${err.message}`, 2);
    throw err;
  }
  const { call } = analysis;
  const found = call.frames.ok + call.frames.bad > 0;
  let written: { out: string; pages: number; bytes: number } | undefined;
  let status = found ? 0 : 1;
  let message = found
    ? `${call.pages.length} ${call.pages.length === 1 ? 'page' : 'pages'}${call.mode ? `, ${call.mode.text}` : ''}`
    : 'no fax call found in the capture (no T.30 frames)';
  if (pagesOut) {
    const tiff = pagesTiff(call.pages);
    if (tiff) {
      await writeFile(pagesOut, tiff);
      written = { out: pagesOut, pages: call.pages.filter((p) => p.bitmap).length, bytes: tiff.length };
      message += `; ${written.pages} written to ${pagesOut}`;
    } else {
      status = 1;
      message += `; no decoded pages to write to ${pagesOut}`;
    }
  }
  if (json) {
    io.stdout.write(
      `${JSON.stringify({
        success: status === 0,
        code: status === 0 ? 0 : found ? -3107 : -3103,
        message,
        ...reportJson(analysis),
        format: analysis.format,
        captureMs: Math.round(analysis.durationMs),
        ...(written ? { pagesOut: written } : {}),
        durationMs: Math.round(performance.now() - started),
      })}\n`,
    );
  } else {
    io.stdout.write(`${reportLines(analysis).join('\n')}\n`);
    if (written) io.stdout.write(`${written.pages} ${written.pages === 1 ? 'page' : 'pages'} written to ${written.out} (${written.bytes} bytes)\n`);
    if (status !== 0) io.stderr.write(`faxstack decode: ${message}\n`);
  }
  return status;
}
