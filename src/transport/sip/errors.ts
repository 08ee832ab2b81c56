// Errors of the SIP layer: a small closed set of kinds (docs/architecture.md, house rules). Call outcomes are not
// errors — a failed INVITE is a status on the call's result (status.ts maps it to a code).
type SipErrorKind = 'bad_parameter' | 'bad_sdp' | 'transport' | 'state';

export class SipError extends Error {
  constructor(
    readonly kind: SipErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'SipError';
  }
}
