// Typed T.38 errors. The wire codecs (IFP, UDPTL) and the session-parameter parser report
// what is wrong and where; receivers count and drop bad input, so peer behaviour never
// becomes an exception above this layer (docs/architecture.md, house rules: "Peer behaviour is a completion code").

type T38ErrorKind =
  | 'truncated' // the input ended inside a field
  | 'trailing_bytes' // bytes left after a complete message
  | 'unknown_value' // an enumeration index no version of T.38 defines
  | 'not_in_version' // a value defined by T.38, but not in the negotiated version
  | 'invalid' // structurally impossible (indicator with a data field, bad length, ...)
  | 'too_large' // over a limit of the standard or of the caller (field size, datagram size)
  | 'bad_parameter'; // an option or SDP attribute outside its range

export class T38Error extends Error {
  constructor(
    readonly kind: T38ErrorKind,
    detail: string,
    /** Byte offset in the input where decoding failed, when decoding. */
    readonly offset?: number,
  ) {
    super(offset === undefined ? detail : `${detail} (at byte ${offset})`);
    this.name = 'T38Error';
  }
}
