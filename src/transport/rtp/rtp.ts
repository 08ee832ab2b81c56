// RTP packets (RFC 3550 5.1): the 12-byte fixed header, CSRC list and header extension skipped
// on receipt, padding removed. Payload types of the audio/video profile (RFC 3551 6): PCMU = 0,
// PCMA = 8. decodeRtp() returns a typed error for malformed input instead of throwing.
import { RtpError } from './errors.js';

const RTP_VERSION = 2;
const RTP_HEADER_BYTES = 12;
/** RFC 3551 Table 4: G.711 µ-law. */
export const PT_PCMU = 0;
/** RFC 3551 Table 4: G.711 A-law. */
export const PT_PCMA = 8;
/** RFC 3389 comfort noise (sent by gateways with silence suppression on). */
export const PT_CN = 13;
/** A common dynamic payload type for RFC 4733 telephone-event, when SDP says nothing else. */
export const PT_TELEPHONE_EVENT_DEFAULT = 101;

export interface RtpHeader {
  marker: boolean;
  /** 0..127 */
  payloadType: number;
  /** 0..65535, wraps */
  sequenceNumber: number;
  /** 0..2^32-1, in samples of the payload's clock (8000 Hz for G.711) */
  timestamp: number;
  /** 0..2^32-1 */
  ssrc: number;
}

interface RtpPacket extends RtpHeader {
  /** The payload without padding (a view into the datagram). */
  payload: Uint8Array;
  /** CSRC identifiers present (skipped). */
  csrcCount: number;
  /** A header extension was present (skipped). */
  extension: boolean;
  /** Padding octets removed from the end, including the count octet (0: none). */
  paddingBytes: number;
}

type RtpDecodeResult = { ok: true; packet: RtpPacket } | { ok: false; error: RtpError };

interface RtpEncodeOptions {
  /** Padding octets to append (1..255, the last one holds the count); default none. */
  paddingBytes?: number;
}

const u16 = (v: number) => Number.isInteger(v) && v >= 0 && v <= 0xffff;
const u32 = (v: number) => Number.isInteger(v) && v >= 0 && v <= 0xffffffff;

/** Builds one RTP datagram. Throws RtpError('bad_parameter') for header fields out of range. */
export function encodeRtp(header: RtpHeader, payload: Uint8Array, opts: RtpEncodeOptions = {}): Uint8Array {
  const { payloadType: pt, sequenceNumber: seq, timestamp: ts, ssrc } = header;
  if (!(Number.isInteger(pt) && pt >= 0 && pt <= 127)) throw new RtpError('bad_parameter', `payloadType ${pt} outside 0..127`);
  if (!u16(seq)) throw new RtpError('bad_parameter', `sequenceNumber ${seq} outside 0..65535`);
  if (!u32(ts)) throw new RtpError('bad_parameter', `timestamp ${ts} outside 0..2^32-1`);
  if (!u32(ssrc)) throw new RtpError('bad_parameter', `ssrc ${ssrc} outside 0..2^32-1`);
  const pad = opts.paddingBytes ?? 0;
  if (!(Number.isInteger(pad) && pad >= 0 && pad <= 255)) throw new RtpError('bad_parameter', `paddingBytes ${pad} outside 0..255`);
  const out = new Uint8Array(RTP_HEADER_BYTES + payload.length + pad);
  const view = new DataView(out.buffer);
  // RFC 3550 5.1: V=2 | P | X=0 | CC=0, then M | PT.
  out[0] = (RTP_VERSION << 6) | (pad > 0 ? 0x20 : 0);
  out[1] = (header.marker ? 0x80 : 0) | pt;
  view.setUint16(2, seq);
  view.setUint32(4, ts);
  view.setUint32(8, ssrc);
  out.set(payload, RTP_HEADER_BYTES);
  if (pad > 0) out[out.length - 1] = pad;
  return out;
}

const fail = (kind: 'truncated' | 'bad_version' | 'invalid', detail: string, offset?: number): RtpDecodeResult => ({
  ok: false,
  error: new RtpError(kind, detail, offset),
});

/** Parses one RTP datagram; never throws. The payload is a view into `datagram`. */
export function decodeRtp(datagram: Uint8Array): RtpDecodeResult {
  const len = datagram.length;
  if (len < RTP_HEADER_BYTES) return fail('truncated', `RTP header needs ${RTP_HEADER_BYTES} bytes, got ${len}`, len);
  const b0 = datagram[0]!;
  const version = b0 >> 6;
  if (version !== RTP_VERSION) return fail('bad_version', `RTP version ${version}, expected 2`, 0);
  const view = new DataView(datagram.buffer, datagram.byteOffset, len);
  const csrcCount = b0 & 0x0f;
  let offset = RTP_HEADER_BYTES + 4 * csrcCount;
  if (offset > len) return fail('truncated', `CSRC list of ${csrcCount} runs past the end`, len);
  const extension = (b0 & 0x10) !== 0;
  if (extension) {
    // RFC 3550 5.3.1: 16-bit profile, 16-bit length in 32-bit words, then the words.
    if (offset + 4 > len) return fail('truncated', 'header extension header runs past the end', len);
    const words = view.getUint16(offset + 2);
    offset += 4 + 4 * words;
    if (offset > len) return fail('truncated', `header extension of ${words} words runs past the end`, len);
  }
  let end = len;
  let paddingBytes = 0;
  if (b0 & 0x20) {
    // RFC 3550 5.1: the last octet counts the padding, itself included.
    paddingBytes = datagram[len - 1]!;
    if (paddingBytes === 0) return fail('invalid', 'padding count 0', len - 1);
    if (paddingBytes > len - offset) return fail('invalid', `padding of ${paddingBytes} bytes is longer than the ${len - offset} after the header`, len - 1);
    end = len - paddingBytes;
  }
  const b1 = datagram[1]!;
  return {
    ok: true,
    packet: {
      marker: (b1 & 0x80) !== 0,
      payloadType: b1 & 0x7f,
      sequenceNumber: view.getUint16(2),
      timestamp: view.getUint32(4),
      ssrc: view.getUint32(8),
      payload: datagram.subarray(offset, end),
      csrcCount,
      extension,
      paddingBytes,
    },
  };
}

/** Signed distance from sequence number `from` to `to` modulo 2^16 (-32768..32767). */
export function seqDelta(to: number, from: number): number {
  return ((((to - from) & 0xffff) + 0x8000) & 0xffff) - 0x8000;
}

/**
 * RTCP multiplexed onto the RTP port (RFC 5761 4): its packet types 192..223 read as marker +
 * payload type 64..95, which RTP must not use (200..204 are the ones in use).
 */
export function looksLikeRtcp(datagram: Uint8Array): boolean {
  const b1 = datagram[1];
  return datagram.length >= 2 && b1 !== undefined && b1 >= 192 && b1 <= 223 && datagram[0]! >> 6 === RTP_VERSION;
}
