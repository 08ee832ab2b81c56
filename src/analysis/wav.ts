// Audio captures of a fax call: RIFF/WAVE files (PCM 16-bit, G.711 µ-law or A-law; mono or
// stereo; 8000 samples/s) and headerless raw audio, decoded to linear Int16Arrays, one per
// channel. Built for hostile input: nothing is allocated from a declared size, only from the
// bytes actually present (a data chunk that claims 4 GiB in a 1 kB file yields 1 kB of audio and
// a warning), every structure is bounds-checked, and each failure is a CaptureError.
import { ALAW_TO_LINEAR, alawEncode, ULAW_TO_LINEAR, ulawEncode } from '../../native-free-dsp/index.js';
import { CaptureError } from './errors.js';

/** How samples are stored: 16-bit little-endian linear, or 8-bit G.711. */
export type SampleEncoding = 's16le' | 'ulaw' | 'alaw';

/** The only sample rate fax modems run at. */
export const CAPTURE_SAMPLE_RATE = 8000;

export interface AudioCapture {
  sampleRate: typeof CAPTURE_SAMPLE_RATE;
  encoding: SampleEncoding;
  /** One buffer of linear samples per channel (1 or 2). Stereo: 0 = caller, 1 = answerer. */
  channels: Int16Array[];
  /** Samples per channel. */
  frames: number;
  /** Oddities that did not stop the reading (declared sizes past the end, a partial last frame). */
  warnings: string[];
}

interface AudioLimits {
  /** Longest capture accepted, seconds (default 3600: 57.6 MB of samples per channel). */
  maxSeconds?: number;
}

const DEFAULT_MAX_SECONDS = 3600;

const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_ALAW = 6;
const WAVE_FORMAT_MULAW = 7;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;

const tag = (b: Uint8Array, at: number): string => String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);

/** 'wav', 'pcap' or 'pcapng' by the file's first bytes; undefined when they say nothing. */
export function sniffCapture(bytes: Uint8Array): 'wav' | 'pcap' | 'pcapng' | undefined {
  if (bytes.length < 4) return undefined;
  const t = tag(bytes, 0);
  if (t === 'RIFF' || t === 'RIFX' || t === 'RF64') return 'wav';
  const le = (bytes[0]! | (bytes[1]! << 8) | (bytes[2]! << 16) | (bytes[3]! << 24)) >>> 0;
  if (le === 0xa1b2c3d4 || le === 0xd4c3b2a1 || le === 0xa1b23c4d || le === 0x4d3cb2a1) return 'pcap';
  if (le === 0x0a0d0d0a) return 'pcapng';
  return undefined;
}

function maxFrames(limits: AudioLimits): number {
  const s = limits.maxSeconds ?? DEFAULT_MAX_SECONDS;
  if (!(s > 0)) throw new RangeError(`maxSeconds must be positive, got ${s}`);
  return Math.floor(s * CAPTURE_SAMPLE_RATE);
}

/** Reads a RIFF/WAVE file. Throws CaptureError for anything it cannot read. */
export function readWav(bytes: Uint8Array, limits: AudioLimits = {}): AudioCapture {
  if (bytes.length < 12) throw new CaptureError('truncated', `WAV: ${bytes.length} bytes, not even a RIFF header`);
  const riff = tag(bytes, 0);
  if (riff === 'RIFX') throw new CaptureError('unsupported', 'WAV: big-endian RIFX files are not supported');
  if (riff === 'RF64') throw new CaptureError('unsupported', 'WAV: RF64 (64-bit sizes) is not supported; a fax capture fits a plain WAV');
  if (riff !== 'RIFF' || tag(bytes, 8) !== 'WAVE') throw new CaptureError('unknown_format', 'WAV: no RIFF/WAVE header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const warnings: string[] = [];
  const riffSize = view.getUint32(4, true);
  if (riffSize + 8 > bytes.length) warnings.push(`RIFF header declares ${riffSize + 8} bytes, the file has ${bytes.length}`);

  let fmt: { format: number; channels: number; rate: number; blockAlign: number; bits: number } | undefined;
  let data: { at: number; size: number } | undefined;
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = tag(bytes, at);
    const size = view.getUint32(at + 4, true);
    const body = at + 8;
    if (id === 'fmt ') {
      if (size < 16) throw new CaptureError('corrupt', `WAV: fmt chunk of ${size} bytes (at least 16)`);
      if (body + size > bytes.length) throw new CaptureError('truncated', 'WAV: the file ends inside the fmt chunk');
      let format = view.getUint16(body, true);
      if (format === WAVE_FORMAT_EXTENSIBLE) {
        // WAVEFORMATEXTENSIBLE: the real format is the first two bytes of the SubFormat GUID.
        if (size < 40) throw new CaptureError('corrupt', `WAV: extensible fmt chunk of ${size} bytes (at least 40)`);
        format = view.getUint16(body + 24, true);
      }
      fmt = {
        format,
        channels: view.getUint16(body + 2, true),
        rate: view.getUint32(body + 4, true),
        blockAlign: view.getUint16(body + 12, true),
        bits: view.getUint16(body + 14, true),
      };
    } else if (id === 'data') {
      if (!fmt) throw new CaptureError('corrupt', 'WAV: data chunk before the fmt chunk');
      const available = bytes.length - body;
      // Streaming writers leave 0 or 0xFFFFFFFF here; others get cut short. Read what is there.
      if (size > available) warnings.push(`data chunk declares ${size} bytes, the file has ${available} after its header`);
      data = { at: body, size: Math.min(size, available) };
      break;
    }
    at = body + size + (size & 1); // chunks are padded to even sizes
  }
  // Walking off the end (rather than landing on it) means the last chunk was cut short.
  const cut = at !== bytes.length;
  if (!fmt) throw new CaptureError(cut ? 'truncated' : 'corrupt', `WAV: no fmt chunk${cut ? ' (the file ends inside a chunk)' : ''}`);
  if (!data) throw new CaptureError(cut ? 'truncated' : 'corrupt', `WAV: no data chunk${cut ? ' (the file ends inside a chunk)' : ''}`);

  const encoding = wavEncoding(fmt.format, fmt.bits);
  if (fmt.channels !== 1 && fmt.channels !== 2) throw new CaptureError('unsupported', `WAV: ${fmt.channels} channels (1 or 2: mono, or caller and answerer)`);
  if (fmt.rate !== CAPTURE_SAMPLE_RATE) {
    throw new CaptureError('unsupported', `WAV: ${fmt.rate} samples/s; fax audio is 8000 (resample first, e.g. sox in.wav -r 8000 out.wav)`);
  }
  const expectedAlign = fmt.channels * (encoding === 's16le' ? 2 : 1);
  if (fmt.blockAlign !== expectedAlign) throw new CaptureError('corrupt', `WAV: block align ${fmt.blockAlign}, ${expectedAlign} expected for ${fmt.channels} × ${fmt.bits}-bit`);
  return decodeInterleaved(bytes.subarray(data.at, data.at + data.size), encoding, fmt.channels, limits, warnings);
}

function wavEncoding(format: number, bits: number): SampleEncoding {
  if (format === WAVE_FORMAT_PCM) {
    if (bits !== 16) throw new CaptureError('unsupported', `WAV: ${bits}-bit PCM (16-bit PCM, µ-law or A-law)`);
    return 's16le';
  }
  if (format === WAVE_FORMAT_MULAW || format === WAVE_FORMAT_ALAW) {
    if (bits !== 8) throw new CaptureError('corrupt', `WAV: G.711 with ${bits} bits per sample (8)`);
    return format === WAVE_FORMAT_MULAW ? 'ulaw' : 'alaw';
  }
  throw new CaptureError('unsupported', `WAV: format tag ${format} (1 PCM, 6 A-law or 7 µ-law)`);
}

/** Reads headerless audio at 8000 samples/s: s16le, µ-law or A-law, channels interleaved. */
export function readRaw(bytes: Uint8Array, opts: { encoding?: SampleEncoding; channels?: 1 | 2 } & AudioLimits = {}): AudioCapture {
  const encoding = opts.encoding ?? 's16le';
  const channels = opts.channels ?? 1;
  if (channels !== 1 && channels !== 2) throw new CaptureError('unsupported', `raw audio: ${String(channels)} channels (1 or 2)`);
  return decodeInterleaved(bytes, encoding, channels, opts, []);
}

function decodeInterleaved(bytes: Uint8Array, encoding: SampleEncoding, nch: number, limits: AudioLimits, warnings: string[]): AudioCapture {
  const width = encoding === 's16le' ? 2 : 1;
  const frameBytes = width * nch;
  const frames = Math.floor(bytes.length / frameBytes);
  if (bytes.length % frameBytes !== 0) warnings.push(`${bytes.length % frameBytes} byte(s) of a partial last sample frame ignored`);
  const max = maxFrames(limits);
  if (frames > max) {
    throw new CaptureError('too_large', `${(frames / CAPTURE_SAMPLE_RATE).toFixed(0)} s of audio, over the limit of ${(max / CAPTURE_SAMPLE_RATE).toFixed(0)} s`);
  }
  if (frames === 0) throw new CaptureError('empty', 'no audio samples');
  const channels = Array.from({ length: nch }, () => new Int16Array(frames));
  if (encoding === 's16le') {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let c = 0; c < nch; c++) {
      const out = channels[c]!;
      for (let i = 0, at = 2 * c; i < frames; i++, at += frameBytes) out[i] = view.getInt16(at, true);
    }
  } else {
    const table = encoding === 'ulaw' ? ULAW_TO_LINEAR : ALAW_TO_LINEAR;
    for (let c = 0; c < nch; c++) {
      const out = channels[c]!;
      for (let i = 0, at = c; i < frames; i++, at += nch) out[i] = table[bytes[at]!]!;
    }
  }
  return { sampleRate: CAPTURE_SAMPLE_RATE, encoding, channels, frames, warnings };
}

/** Writes a WAV file at 8000 samples/s (for tests and tools); channels must be equally long. */
export function writeWav(channels: readonly Int16Array[], encoding: SampleEncoding = 's16le'): Uint8Array {
  const nch = channels.length;
  if (nch < 1 || nch > 2) throw new RangeError(`writeWav: 1 or 2 channels, got ${nch}`);
  const frames = channels[0]!.length;
  if (channels.some((c) => c.length !== frames)) throw new RangeError('writeWav: channels of different lengths');
  const width = encoding === 's16le' ? 2 : 1;
  const dataSize = frames * nch * width;
  const out = new Uint8Array(44 + dataSize + (dataSize & 1));
  const v = new DataView(out.buffer);
  const put = (at: number, s: string) => {
    for (let i = 0; i < 4; i++) out[at + i] = s.charCodeAt(i);
  };
  put(0, 'RIFF');
  v.setUint32(4, out.length - 8, true);
  put(8, 'WAVE');
  put(12, 'fmt ');
  v.setUint32(16, 16, true);
  v.setUint16(20, encoding === 's16le' ? WAVE_FORMAT_PCM : encoding === 'ulaw' ? WAVE_FORMAT_MULAW : WAVE_FORMAT_ALAW, true);
  v.setUint16(22, nch, true);
  v.setUint32(24, CAPTURE_SAMPLE_RATE, true);
  v.setUint32(28, CAPTURE_SAMPLE_RATE * nch * width, true);
  v.setUint16(32, nch * width, true);
  v.setUint16(34, width * 8, true);
  put(36, 'data');
  v.setUint32(40, dataSize, true);
  if (encoding === 's16le') {
    for (let i = 0; i < frames; i++) for (let c = 0; c < nch; c++) v.setInt16(44 + 2 * (i * nch + c), channels[c]![i]!, true);
  } else {
    const codes = new Uint8Array(frames);
    for (let c = 0; c < nch; c++) {
      if (encoding === 'ulaw') ulawEncode(channels[c]!, codes);
      else alawEncode(channels[c]!, codes);
      for (let i = 0; i < frames; i++) out[44 + i * nch + c] = codes[i]!;
    }
  }
  return out;
}
