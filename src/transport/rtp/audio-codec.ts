// The wire formats of audio frames: 'pcm' (raw signed 16-bit little-endian samples, one frame per
// datagram, no header: pcm://) and 'pcmu' / 'pcma' (RTP, RFC 3550, with a G.711 µ-law / A-law
// payload, RFC 3551 4.5.14: one octet per sample at 8000 Hz). 20 ms frames are sent; frames of
// other lengths are accepted. RFC 4733 events, comfort noise and multiplexed RTCP are counted and ignored.
import { randomBytes } from 'node:crypto';
import { g711Decode, g711Encode, type G711Law } from '../../../native-free-dsp/index.js';
import { RtpError } from './errors.js';
import { decodeRtp, encodeRtp, looksLikeRtcp, PT_CN, PT_PCMA, PT_PCMU, PT_TELEPHONE_EVENT_DEFAULT } from './rtp.js';

export type AudioCodecName = 'pcm' | 'pcmu' | 'pcma';
export const AUDIO_CODECS: readonly AudioCodecName[] = ['pcm', 'pcmu', 'pcma'];

const SAMPLE_RATE_HZ = 8000;
/** Samples of one 20 ms frame. */
export const FRAME_SAMPLES = 160;
/** Longest frame a decoder takes by default (60 ms: RFC 3551's longest usual ptime for G.711). */
export const MAX_FRAME_SAMPLES = 480;

/** Milliseconds of audio in `samples` samples at 8000 Hz. */
export const samplesToMs = (samples: number): number => (samples * 1000) / SAMPLE_RATE_HZ;

/** One received frame of audio. */
export interface AudioFrame {
  samples: Int16Array;
  /** RTP sequence number; absent for raw PCM (taken in arrival order). */
  seq?: number;
  /** RTP timestamp; absent for raw PCM. */
  timestamp?: number;
  /** RTP synchronization source; absent for raw PCM. */
  ssrc?: number;
}

type IgnoredKind = 'telephone-event' | 'comfort-noise' | 'rtcp' | 'payload-type' | 'empty';

type DecodedDatagram =
  | { kind: 'audio'; frame: AudioFrame }
  | { kind: 'ignored'; why: IgnoredKind }
  | { kind: 'error'; error: RtpError };

const lawOf = (codec: 'pcmu' | 'pcma'): G711Law => (codec === 'pcmu' ? 'ulaw' : 'alaw');
const ptOf = (codec: 'pcmu' | 'pcma'): number => (codec === 'pcmu' ? PT_PCMU : PT_PCMA);

function checkCodec(codec: unknown): asserts codec is AudioCodecName {
  if (!AUDIO_CODECS.includes(codec as AudioCodecName)) throw new RtpError('bad_parameter', `codec ${String(codec)} is not one of ${AUDIO_CODECS.join(', ')}`);
}

const randomU32 = (): number => randomBytes(4).readUInt32BE(0);

export interface AudioEncoderOptions {
  codec: AudioCodecName;
  /** RTP SSRC (default random, RFC 3550 8.1). */
  ssrc?: number;
  /** First RTP sequence number (default random, RFC 3550 5.1). */
  initialSeq?: number;
  /** First RTP timestamp (default random, RFC 3550 5.1). */
  initialTimestamp?: number;
  /** Source of the random defaults: uniform integers in 0..2^32-1 (default node:crypto). */
  randomU32?: () => number;
}

/** Turns blocks of samples into datagrams of one codec, keeping the RTP sequence, timestamp and SSRC. */
export class AudioEncoder {
  readonly codec: AudioCodecName;
  readonly ssrc: number;
  private nextSeq: number;
  private nextTimestamp: number;
  /** The next packet sent carries the marker: the first of the stream, or the first after silence left out. */
  private marker = true;
  private readonly codes = new Uint8Array(MAX_FRAME_SAMPLES);

  constructor(opts: AudioEncoderOptions) {
    checkCodec(opts.codec);
    this.codec = opts.codec;
    const rnd = opts.randomU32 ?? randomU32;
    const field = (v: number | undefined, max: number, name: string): number => {
      const x = v ?? rnd() % (max + 1);
      if (!(Number.isInteger(x) && x >= 0 && x <= max)) throw new RtpError('bad_parameter', `${name} ${x} outside 0..${max}`);
      return x;
    };
    this.ssrc = field(opts.ssrc, 0xffffffff, 'ssrc');
    this.nextSeq = field(opts.initialSeq, 0xffff, 'initialSeq');
    this.nextTimestamp = field(opts.initialTimestamp, 0xffffffff, 'initialTimestamp');
  }

  /** Sequence number of the next frame. */
  get seq(): number {
    return this.nextSeq;
  }

  /** RTP timestamp of the next frame. */
  get timestamp(): number {
    return this.nextTimestamp;
  }

  /** One datagram carrying `samples` (1..480 of them). */
  encode(samples: Int16Array): Uint8Array {
    const n = samples.length;
    if (n < 1 || n > MAX_FRAME_SAMPLES) throw new RtpError('bad_parameter', `frame of ${n} samples outside 1..${MAX_FRAME_SAMPLES}`);
    if (this.codec === 'pcm') {
      const out = new Uint8Array(2 * n);
      const view = new DataView(out.buffer);
      for (let i = 0; i < n; i++) view.setInt16(2 * i, samples[i]!, true);
      return out;
    }
    const codes = this.codes.subarray(0, n);
    g711Encode(lawOf(this.codec), samples, codes);
    // RFC 3551 4.1: the marker flags the first packet of the stream and the first after silence.
    const header = { marker: this.marker, payloadType: ptOf(this.codec), sequenceNumber: this.nextSeq, timestamp: this.nextTimestamp, ssrc: this.ssrc };
    this.marker = false;
    this.skip(n);
    return encodeRtp(header, codes);
  }

  /**
   * Leaves out a frame of `samples` of silence (RFC 3550 5.1, RFC 3551 4.1): its time passes, it
   * uses no sequence number, so the far end sees no loss, and the next frame sent carries the marker.
   */
  suppress(samples: number): void {
    if (this.codec === 'pcm') return;
    this.nextTimestamp = (this.nextTimestamp + samples) >>> 0;
    this.marker = true;
  }

  /** Accounts for a frame of `samples` that is not sent (it counts as sent and lost on the line). */
  skip(samples: number): void {
    if (this.codec === 'pcm') return;
    this.nextSeq = (this.nextSeq + 1) & 0xffff;
    this.nextTimestamp = (this.nextTimestamp + samples) >>> 0;
  }
}

export interface AudioDecoderOptions {
  codec: AudioCodecName;
  /** Payload type of RFC 4733 telephone-event, whose packets are ignored (default 101). */
  telephoneEventPayloadType?: number;
  /** Longest frame accepted, in samples (default and most 480 = 60 ms). */
  maxFrameSamples?: number;
}

export interface AudioDecoderStats {
  /** Audio frames decoded. */
  frames: number;
  samples: number;
  /** Malformed datagrams dropped. */
  errors: number;
  /** RFC 4733 event packets ignored. */
  events: number;
  /** RFC 3389 comfort-noise packets ignored. */
  comfortNoise: number;
  /** RTCP packets on the RTP port ignored. */
  rtcp: number;
  /** Packets of other payload types ignored. */
  otherPayload: number;
  /** Empty datagrams or payloads (keep-alives) ignored. */
  empty: number;
  /** Frames in the other G.711 law than the one sent (decoded by their payload type). */
  otherLaw: number;
}

/** Turns datagrams of one codec into frames of samples; never throws on what the peer sends. */
export class AudioDecoder {
  readonly codec: AudioCodecName;
  readonly stats: AudioDecoderStats = { frames: 0, samples: 0, errors: 0, events: 0, comfortNoise: 0, rtcp: 0, otherPayload: 0, empty: 0, otherLaw: 0 };
  private readonly eventPt: number;
  private readonly maxSamples: number;

  constructor(opts: AudioDecoderOptions) {
    checkCodec(opts.codec);
    this.codec = opts.codec;
    this.eventPt = opts.telephoneEventPayloadType ?? PT_TELEPHONE_EVENT_DEFAULT;
    if (!(Number.isInteger(this.eventPt) && this.eventPt >= 0 && this.eventPt <= 127)) throw new RtpError('bad_parameter', `telephoneEventPayloadType ${this.eventPt} outside 0..127`);
    this.maxSamples = opts.maxFrameSamples ?? MAX_FRAME_SAMPLES;
    if (!(Number.isInteger(this.maxSamples) && this.maxSamples >= 1 && this.maxSamples <= MAX_FRAME_SAMPLES)) throw new RtpError('bad_parameter', `maxFrameSamples ${this.maxSamples} outside 1..${MAX_FRAME_SAMPLES}`);
  }

  decode(datagram: Uint8Array): DecodedDatagram {
    return this.codec === 'pcm' ? this.decodePcm(datagram) : this.decodeG711(datagram, this.codec);
  }

  private ignore(why: IgnoredKind): DecodedDatagram {
    if (why === 'telephone-event') this.stats.events++;
    else if (why === 'comfort-noise') this.stats.comfortNoise++;
    else if (why === 'rtcp') this.stats.rtcp++;
    else if (why === 'empty') this.stats.empty++;
    else this.stats.otherPayload++;
    return { kind: 'ignored', why };
  }

  private error(error: RtpError): DecodedDatagram {
    this.stats.errors++;
    return { kind: 'error', error };
  }

  private audio(frame: AudioFrame): DecodedDatagram {
    this.stats.frames++;
    this.stats.samples += frame.samples.length;
    return { kind: 'audio', frame };
  }

  private tooLong(n: number): DecodedDatagram | undefined {
    return n > this.maxSamples ? this.error(new RtpError('too_large', `frame of ${n} samples, longest accepted ${this.maxSamples}`)) : undefined;
  }

  private decodePcm(datagram: Uint8Array): DecodedDatagram {
    const len = datagram.length;
    if (len === 0) return this.ignore('empty');
    if (len % 2 !== 0) return this.error(new RtpError('invalid', `raw PCM datagram of odd length ${len}`, len - 1));
    const n = len / 2;
    const long = this.tooLong(n);
    if (long) return long;
    const samples = new Int16Array(n);
    const view = new DataView(datagram.buffer, datagram.byteOffset, len);
    for (let i = 0; i < n; i++) samples[i] = view.getInt16(2 * i, true);
    return this.audio({ samples });
  }

  private decodeG711(datagram: Uint8Array, codec: 'pcmu' | 'pcma'): DecodedDatagram {
    if (datagram.length === 0) return this.ignore('empty');
    if (looksLikeRtcp(datagram)) return this.ignore('rtcp');
    const r = decodeRtp(datagram);
    if (!r.ok) return this.error(r.error);
    const p = r.packet;
    if (p.payloadType === this.eventPt) return this.ignore('telephone-event');
    if (p.payloadType === PT_CN) return this.ignore('comfort-noise');
    // Either law is decoded by its payload type: an SDP answer may list both.
    if (p.payloadType !== PT_PCMU && p.payloadType !== PT_PCMA) return this.ignore('payload-type');
    const n = p.payload.length;
    if (n === 0) return this.ignore('empty');
    const long = this.tooLong(n);
    if (long) return long;
    if (p.payloadType !== ptOf(codec)) this.stats.otherLaw++;
    const samples = new Int16Array(n);
    g711Decode(p.payloadType === PT_PCMU ? 'ulaw' : 'alaw', p.payload, samples);
    return this.audio({ samples, seq: p.sequenceNumber, timestamp: p.timestamp, ssrc: p.ssrc });
  }
}
