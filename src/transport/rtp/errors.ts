// Typed errors of the audio transports (RTP, G.711 framing, raw PCM, their URLs). The packet
// decoders return these instead of throwing, so a hostile datagram is counted and dropped and
// never reaches the socket handler as an exception (docs/architecture.md, house rules: peer behaviour is not an exception).

type RtpErrorKind =
  | 'truncated' // the datagram ended inside a field (header, CSRC list, extension, padding)
  | 'bad_version' // RTP version other than 2 (RFC 3550 5.1)
  | 'invalid' // structurally impossible (zero padding count, odd PCM length, empty payload)
  | 'too_large' // a frame longer than the receiver accepts
  | 'bad_parameter' // an option outside its range
  | 'bad_url'; // a pcm:// or rtp:// address that does not parse

export class RtpError extends Error {
  constructor(
    readonly kind: RtpErrorKind,
    detail: string,
    /** Byte offset in the datagram where decoding failed, when decoding. */
    readonly offset?: number,
  ) {
    super(offset === undefined ? detail : `${detail} (at byte ${offset})`);
    this.name = 'RtpError';
  }
}
