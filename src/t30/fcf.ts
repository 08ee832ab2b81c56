// T.30 5.3.6: the facsimile control field (FCF) of every HDLC frame we send or read, and
// the frames themselves (address 0xFF, control 0x03/0x13, FCF, FIF). Octet values are as
// they stand in the frame, first-transmitted bit in bit 0 (spandsp's convention); the
// bit patterns of the standard, written first bit first, are in the comments.

/** FCF values with the X bit (bit 0, T.30 5.3.6.1) clear. */
export const Fcf = {
  // Initial identification, called → calling (X is part of the code: always 0)
  DIS: 0x80, // 0000 0001
  CSI: 0x40, // 0000 0010
  NSF: 0x20, // 0000 0100
  // Commands to send (polling): bit 0 is part of the code, always 1
  DTC: 0x81, // 1000 0001
  CIG: 0x41, // 1000 0010
  NSC: 0x21, // 1000 0100
  PWD: 0xc1, // 1000 0011
  SEP: 0xa1, // 1000 0101
  PSA: 0x61, // 1000 0110
  CIA: 0xe1, // 1000 0111
  ISP: 0x11, // 1000 1000
  // Commands to receive
  DCS: 0x82, // X100 0001
  TSI: 0x42, // X100 0010
  NSS: 0x22, // X100 0100
  SUB: 0xc2, // X100 0011
  SID: 0xa2, // X100 0101
  CTC: 0x12, // X100 1000
  TSA: 0x62, // X100 0110
  IRA: 0xe2, // X100 0111
  // Pre-message responses
  CFR: 0x84, // X010 0001
  FTT: 0x44, // X010 0010
  CTR: 0xc4, // X010 0011
  CSA: 0x24, // X010 0100
  // Post-message commands
  EOM: 0x8e, // X111 0001
  MPS: 0x4e, // X111 0010
  EOP: 0x2e, // X111 0100
  EOS: 0x1e, // X111 1000
  PRI_EOM: 0x9e, // X111 1001
  PRI_MPS: 0x5e, // X111 1010
  PRI_EOP: 0x3e, // X111 1100
  PPS: 0xbe, // X111 1101
  EOR: 0xce, // X111 0011
  RR: 0x6e, // X111 0110
  // Post-message responses
  MCF: 0x8c, // X011 0001
  RTP: 0xcc, // X011 0011
  RTN: 0x4c, // X011 0010
  PIP: 0xac, // X011 0101
  PIN: 0x2c, // X011 0100
  PPR: 0xbc, // X011 1101
  RNR: 0xec, // X011 0111
  ERR: 0x1c, // X011 1000
  FDM: 0xfc, // X011 1111
  // Other line control
  DCN: 0xfa, // X101 1111
  CRP: 0x1a, // X101 1000
  FNV: 0xca, // X101 0011
  TNR: 0xea, // X101 0111
  TR: 0x6a, // X101 0110
  // The FCF2 of PPS/EOR between blocks of one page
  NULL: 0x00,
  // T.4 Annex A frames of the ECM message (high speed; no X bit)
  FCD: 0x06, // 0110 0000
  RCP: 0x86, // 0110 0001
} as const;

export type FcfName = keyof typeof Fcf;

/** Frames whose bit 0 is part of the code rather than the X bit. */
const FIXED: ReadonlySet<FcfName> = new Set<FcfName>([
  'DIS', 'CSI', 'NSF', 'DTC', 'CIG', 'NSC', 'PWD', 'SEP', 'PSA', 'CIA', 'ISP', 'NULL', 'FCD', 'RCP',
]);

const BY_VALUE = new Map<number, FcfName>();
const BY_X_VALUE = new Map<number, FcfName>();
for (const [name, value] of Object.entries(Fcf) as Array<[FcfName, number]>) {
  (FIXED.has(name) ? BY_VALUE : BY_X_VALUE).set(value, name);
}

/** The FCF octet of `name` as sent by a station whose X bit is `x` (1 once it has received a DIS). */
export function fcfByte(name: FcfName, x: 0 | 1): number {
  return FIXED.has(name) ? Fcf[name] : Fcf[name] | x;
}

/** Reads an FCF octet: the frame's name (undefined when unknown) and its X bit. */
export function decodeFcf(byte: number): { name: FcfName | undefined; x: 0 | 1 } {
  const fixed = BY_VALUE.get(byte);
  if (fixed) return { name: fixed, x: 0 };
  return { name: BY_X_VALUE.get(byte & 0xfe), x: (byte & 1) as 0 | 1 };
}

export function fcfName(byte: number): string {
  return decodeFcf(byte).name ?? `0x${byte.toString(16).padStart(2, '0')}`;
}

const ADDRESS_FIELD = 0xff;
/** Control field: 0x13 ends a sequence of frames (final bit), 0x03 otherwise (T.30 5.3). */
const CONTROL_FINAL = 0x13;
const CONTROL_NON_FINAL = 0x03;

/** An HDLC frame without its FCS: address, control, FCF, FIF. */
export function buildFrame(fcf: number, info: ArrayLike<number> = [], final = true): Uint8Array {
  const f = writeFrameHead(new Uint8Array(3 + info.length), fcf, final);
  f.set(info, 3);
  return f;
}

/** Writes address, control and FCF into the first three octets of `f` (its FIF follows at 3); returns `f`. */
export function writeFrameHead(f: Uint8Array, fcf: number, final: boolean): Uint8Array {
  f[0] = ADDRESS_FIELD;
  f[1] = final ? CONTROL_FINAL : CONTROL_NON_FINAL;
  f[2] = fcf;
  return f;
}

export interface ParsedFrame {
  name: FcfName | undefined;
  fcf: number;
  x: 0 | 1;
  final: boolean;
  /** The FIF (facsimile information field). */
  info: Uint8Array;
}

/** Reads a frame, or null when it is no T.30 frame (too short, wrong address or control field). */
export function parseFrame(frame: Uint8Array): ParsedFrame | null {
  if (frame.length < 3 || frame[0] !== ADDRESS_FIELD) return null;
  const control = frame[1];
  if (control !== CONTROL_FINAL && control !== CONTROL_NON_FINAL) return null;
  const fcf = frame[2]!;
  const { name, x } = decodeFcf(fcf);
  return { name, fcf, x, final: control === CONTROL_FINAL, info: frame.subarray(3) };
}

/** Post-message commands a PPS or EOR carries as its FCF2 (T.4 Annex A). */
export type PostMessage = 'NULL' | 'MPS' | 'EOP' | 'EOM' | 'PRI_MPS' | 'PRI_EOP' | 'PRI_EOM';

/** The plain post-message command of a procedure-interrupt variant (PRI-Q is Q without an operator). */
export function withoutInterrupt(q: PostMessage): 'NULL' | 'MPS' | 'EOP' | 'EOM' {
  return q === 'PRI_MPS' ? 'MPS' : q === 'PRI_EOP' ? 'EOP' : q === 'PRI_EOM' ? 'EOM' : q;
}

export function isPostMessage(name: FcfName | undefined): name is PostMessage {
  return name === 'NULL' || name === 'MPS' || name === 'EOP' || name === 'EOM' || name === 'PRI_MPS' || name === 'PRI_EOP' || name === 'PRI_EOM';
}
