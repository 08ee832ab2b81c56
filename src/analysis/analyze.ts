// One entry point for a capture file: works out what it is (WAV, raw audio, pcap), reads it,
// runs the matching analyzer and reads the result as a T.30 call.
import type { T38Version } from '../transport/t38/index.js';
import { analyzeAudio, type AudioAnalysisStats } from './audio-analyzer.js';
import { analyzeCall, type CallAnalysis } from './call-analysis.js';
import { CaptureError } from './errors.js';
import { readPcap } from './pcap.js';
import type { Endpoint } from './pcap.js';
import { analyzeT38, type T38AnalysisStats } from './t38-analyzer.js';
import { CAPTURE_SAMPLE_RATE, readRaw, readWav, sniffCapture, type AudioCapture, type SampleEncoding } from './wav.js';

type CaptureFormat = 'wav' | 'raw' | 'pcap';

export interface AnalyzeCaptureOptions {
  /** Default 'auto': by the file's first bytes, then its name. */
  format?: CaptureFormat | 'auto';
  /** The file's name (its extension says raw audio and its encoding). */
  name?: string;
  /** Raw audio: sample encoding (default by extension, else s16le) and channels (default 1). */
  encoding?: SampleEncoding;
  channels?: 1 | 2;
  /** pcap: the caller's endpoint, and the T.38 version when the guess should not be trusted. */
  caller?: Endpoint;
  t38Version?: T38Version;
  /** Longest audio accepted, seconds. */
  maxSeconds?: number;
}

interface CaptureAnalysis {
  format: CaptureFormat;
  /** `stereo WAV, µ-law, 62.3 s` */
  description: string;
  durationMs: number;
  call: CallAnalysis;
  warnings: string[];
  audio?: { channels: number; encoding: SampleEncoding; stats: AudioAnalysisStats };
  t38?: T38AnalysisStats;
}

const RAW_EXTENSIONS: Record<string, SampleEncoding> = {
  raw: 's16le', pcm: 's16le', sln: 's16le', s16: 's16le', sw: 's16le',
  ul: 'ulaw', ulaw: 'ulaw', mulaw: 'ulaw', mu: 'ulaw', pcmu: 'ulaw',
  al: 'alaw', alaw: 'alaw', pcma: 'alaw',
};

const ENCODING_NAME: Record<SampleEncoding, string> = { s16le: '16-bit PCM', ulaw: 'µ-law', alaw: 'A-law' };

/** Which reader a file needs. Throws CaptureError when nothing tells. */
function captureFormat(bytes: Uint8Array, opts: Pick<AnalyzeCaptureOptions, 'format' | 'name' | 'encoding'> = {}): CaptureFormat {
  if (opts.format && opts.format !== 'auto') return opts.format;
  const sniffed = sniffCapture(bytes);
  if (sniffed === 'pcapng') throw new CaptureError('unsupported', 'pcapng is not supported; convert it with: editcap -F pcap in.pcapng out.pcap');
  if (sniffed) return sniffed;
  const ext = /\.([a-z0-9]+)$/i.exec(opts.name ?? '')?.[1]?.toLowerCase();
  if ((ext && ext in RAW_EXTENSIONS) || opts.encoding) return 'raw';
  throw new CaptureError('unknown_format', 'not a WAV or pcap file; for headerless audio say --format raw (and --law ulaw|alaw|s16le)');
}

export function analyzeCapture(bytes: Uint8Array, opts: AnalyzeCaptureOptions = {}): CaptureAnalysis {
  const format = captureFormat(bytes, opts);
  if (format === 'pcap') {
    const pcap = readPcap(bytes);
    if (pcap.datagrams.length === 0) throw new CaptureError('empty', `pcap: no UDP datagrams in ${pcap.stats.records} records`);
    const t38 = analyzeT38(pcap.datagrams, { ...(opts.caller ? { caller: opts.caller } : {}), ...(opts.t38Version !== undefined ? { version: opts.t38Version } : {}) });
    if (opts.caller && t38.stats.udptl > 0 && !pcap.datagrams.some((d) => d.src.host === opts.caller!.host && d.src.port === opts.caller!.port)) {
      throw new CaptureError('empty', `no datagrams from ${opts.caller.host}:${opts.caller.port} (--caller) in the capture`);
    }
    const first = pcap.datagrams[0]!.timeUs;
    const durationMs = (pcap.datagrams[pcap.datagrams.length - 1]!.timeUs - first) / 1000;
    const s = t38.stats;
    const skipped = [s.sip && `${s.sip} SIP`, s.other && `${s.other} other`, s.otherFlows && `${s.otherFlows} UDPTL of other calls`].filter(Boolean);
    const description =
      `pcap, ${s.udptl} UDPTL datagrams${skipped.length ? ` (skipped ${skipped.join(', ')})` : ''}, T.38 version ${s.version === 0 ? '0' : '1+'}` +
      `${s.caller ? `, caller ${s.caller}` : ''}${s.answerer ? `, answerer ${s.answerer}` : ''}, ${(durationMs / 1000).toFixed(1)} s` +
      `${s.recovered ? `, ${s.recovered} packets recovered` : ''}${s.lost ? `, ${s.lost} lost` : ''}`;
    const warnings = [...pcap.warnings];
    if (s.udptl === 0) warnings.push('no UDPTL (T.38) datagrams found');
    return { format, description, durationMs, call: analyzeCall(t38.events), warnings, t38: s };
  }
  let audio: AudioCapture;
  const limits = opts.maxSeconds === undefined ? {} : { maxSeconds: opts.maxSeconds };
  if (format === 'wav') audio = readWav(bytes, limits);
  else {
    const ext = /\.([a-z0-9]+)$/i.exec(opts.name ?? '')?.[1]?.toLowerCase();
    const encoding = opts.encoding ?? (ext ? RAW_EXTENSIONS[ext] : undefined) ?? 's16le';
    audio = readRaw(bytes, { encoding, channels: opts.channels ?? 1, ...limits });
  }
  const durationMs = (audio.frames * 1000) / CAPTURE_SAMPLE_RATE;
  const { events, stats } = analyzeAudio(audio);
  const nch = audio.channels.length;
  const description = `${nch === 2 ? 'stereo' : 'mono'} ${format === 'wav' ? 'WAV' : 'raw audio'}, ${ENCODING_NAME[audio.encoding]}, ${(durationMs / 1000).toFixed(1)} s`;
  return { format, description, durationMs, call: analyzeCall(events), warnings: audio.warnings, audio: { channels: nch, encoding: audio.encoding, stats } };
}
