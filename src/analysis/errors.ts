// Why a capture could not be read. Every reader failure is a CaptureError: a FaxError with the
// code INVALID_FILE_FORMAT (-3006, kind 'invalid'), and a reason a test or a tool can match on.
import { FaxError } from '../shared/errors.js';

export type CaptureErrorReason =
  | 'unknown_format' // neither WAV nor pcap, and nothing says it is raw audio
  | 'truncated' // a header or record reaches past the end of the file
  | 'unsupported' // well formed, but not something we read (sample rate, codec, pcapng, link type)
  | 'corrupt' // structurally impossible (bad sizes, missing chunks)
  | 'too_large' // over a size limit (declared or actual)
  | 'empty'; // no audio, or no packets

export class CaptureError extends FaxError {
  constructor(
    readonly reason: CaptureErrorReason,
    detail: string,
  ) {
    super('INVALID_FILE_FORMAT', detail);
    this.name = 'CaptureError';
  }
}
