// UDPTL packets (T.38 9.1 and the UDPTLPacket ASN.1 of Annex A; basic aligned PER):
// a 16-bit sequence number, the primary IFP packet as an open type, and error recovery
// information: either the previous IFP packets again (redundancy, newest first) or parity
// (FEC) over earlier packets. UdptlSender numbers IFP packets and adds the recovery data;
// the receiving side is udptl-receiver.ts.
import { ByteSlab } from '../../shared/byte-slab.js';
import { T38Error } from './errors.js';
import { FRAGMENT, PerReader, PerWriter, readLengthAndOctets, writeLengthAndOctets } from './per.js';

/** error-recovery CHOICE of UDPTLPacket. */
type ErrorRecovery =
  /** The IFP packets of seq-1, seq-2, ... (newest first). */
  | { type: 'secondary-ifp-packets'; packets: Uint8Array[] }
  /**
   * fec-npackets and fec-data. Entry m (0-based) is the XOR of the `npackets` packets
   * seq+m-k·E for k = 1..npackets, E being the number of entries (the scheme spandsp and
   * Asterisk use): together the entries cover the npackets·E packets before seq.
   */
  | { type: 'fec-info'; npackets: number; data: Uint8Array[] };

export interface UdptlPacket {
  /** seq-number, 0..65535. */
  seq: number;
  /** primary-ifp-packet: an encoded IFP packet. */
  primary: Uint8Array;
  errorRecovery: ErrorRecovery;
}

/** How a sender protects its packets (T38FaxUdpEC). */
export type ErrorCorrection =
  | { scheme: 'none' }
  | { scheme: 'redundancy'; depth: number }
  | { scheme: 'fec'; span: number; entries: number };

/** Largest IFP (or FEC entry) a datagram can hold: UDP's own limit. */
export const MAX_UDPTL_PAYLOAD = 65507;

export function encodeUdptl(packet: UdptlPacket): Uint8Array {
  const { seq, primary } = packet;
  if (!Number.isInteger(seq) || seq < 0 || seq > 0xffff) throw new T38Error('bad_parameter', `seq-number ${seq} outside 0..65535`);
  if (primary.length === 0) throw new T38Error('invalid', 'empty primary IFP packet');
  return encodeOctets(packet) ?? encodePerUdptl(packet);
}

const lengthOctets = (n: number) => (n < 0x80 ? 1 : 2);

/**
 * Every UDPTL field but the CHOICE bit is octet-aligned, so without 16K fragments the packet is
 * plain octets: written directly. undefined when a length needs fragments (the general path).
 */
function encodeOctets({ seq, primary, errorRecovery }: UdptlPacket): Uint8Array | undefined {
  const items = errorRecovery.type === 'secondary-ifp-packets' ? errorRecovery.packets : errorRecovery.data;
  if (primary.length >= FRAGMENT || items.length >= 0x80) return undefined;
  let size = 2 + lengthOctets(primary.length) + primary.length + 1 + 1;
  for (const p of items) {
    if (p.length >= FRAGMENT || (p.length === 0 && errorRecovery.type === 'secondary-ifp-packets')) return undefined;
    size += lengthOctets(p.length) + p.length;
  }
  let np: Uint8Array | undefined;
  if (errorRecovery.type === 'fec-info') {
    const n = errorRecovery.npackets;
    if (!Number.isInteger(n) || n < 0 || n > 0x7fffffff) return undefined;
    np = integerOctets(n);
    size += 1 + np.length;
  }
  const out = new Uint8Array(size);
  out[0] = seq >>> 8;
  out[1] = seq & 0xff;
  let at = putLengthAndOctets(out, 2, primary);
  if (np) {
    out[at++] = 0x80; // CHOICE fec-info, padded
    at = putLengthAndOctets(out, at, np);
  } else out[at++] = 0x00; // CHOICE secondary-ifp-packets, padded
  out[at++] = items.length;
  for (const p of items) at = putLengthAndOctets(out, at, p);
  return out;
}

/** A length below 16K and the octets, at `at`; returns the offset after them. */
function putLengthAndOctets(out: Uint8Array, at: number, bytes: Uint8Array): number {
  const n = bytes.length;
  if (n < 0x80) out[at++] = n;
  else {
    out[at++] = 0x80 | (n >>> 8);
    out[at++] = n & 0xff;
  }
  out.set(bytes, at);
  return at + n;
}

/** The general encoder (X.691, with 16K fragments); encodeUdptl writes plain octets when it can. */
export function encodePerUdptl({ seq, primary, errorRecovery }: UdptlPacket): Uint8Array {
  let size = 8 + primary.length;
  const parts = errorRecovery.type === 'secondary-ifp-packets' ? errorRecovery.packets : errorRecovery.data;
  for (const p of parts) size += 3 + p.length;
  const w = new PerWriter(size);
  w.octet(seq >>> 8);
  w.octet(seq & 0xff);
  writeLengthAndOctets(w, primary);
  if (errorRecovery.type === 'secondary-ifp-packets') {
    w.bits(0, 1);
    writeSequenceOf(w, errorRecovery.packets, (p) => {
      if (p.length === 0) throw new T38Error('invalid', 'empty secondary IFP packet');
      writeLengthAndOctets(w, p);
    });
  } else {
    const n = errorRecovery.npackets;
    if (!Number.isInteger(n) || n < 0 || n > 0x7fffffff) throw new T38Error('bad_parameter', `fec-npackets ${n} outside 0..2^31-1`);
    w.bits(1, 1);
    // fec-npackets INTEGER (unconstrained): length, then the minimal two's-complement octets.
    const octets = integerOctets(n);
    w.length(octets.length);
    w.octets(octets);
    writeSequenceOf(w, errorRecovery.data, (d) => writeLengthAndOctets(w, d));
  }
  return w.finish();
}

function writeSequenceOf<T>(w: PerWriter, items: readonly T[], write: (item: T) => void): void {
  let at = 0;
  for (;;) {
    const n = w.length(items.length - at);
    for (let i = at; i < at + n; i++) write(items[i]!);
    at += n;
    if (n < FRAGMENT) return;
  }
}

function integerOctets(n: number): Uint8Array {
  const out: number[] = [];
  let v = n;
  do {
    out.unshift(v & 0xff);
    v = Math.floor(v / 256);
  } while (v > 0);
  if (out[0]! & 0x80) out.unshift(0); // keep it positive in two's complement
  return Uint8Array.from(out);
}

interface UdptlDecodeLimits {
  /** Largest primary/secondary IFP or FEC entry accepted (default MAX_UDPTL_PAYLOAD). */
  maxIfp?: number;
  /** Most secondary packets or FEC entries accepted (default 64). */
  maxEntries?: number;
}

/** Decodes one datagram; the packets are views of `bytes`. Throws T38Error on anything malformed. */
export function decodeUdptl(bytes: Uint8Array, limits: UdptlDecodeLimits = {}): UdptlPacket {
  const maxIfp = limits.maxIfp ?? MAX_UDPTL_PAYLOAD;
  const maxEntries = limits.maxEntries ?? 64;
  return decodeOctets(bytes, maxIfp, maxEntries) ?? decodePerUdptl(bytes, maxIfp, maxEntries);
}

/**
 * Length determinant at `at` as (count × 4 + octets it took), or -1 when it is a 16K fragment
 * or runs past the end (the general decoder then deals with it).
 */
function lengthAt(bytes: Uint8Array, at: number): number {
  if (at >= bytes.length) return -1;
  const b = bytes[at]!;
  if ((b & 0x80) === 0) return b * 4 + 1;
  if ((b & 0x40) !== 0 || at + 1 >= bytes.length) return -1;
  return (((b & 0x3f) << 8) | bytes[at + 1]!) * 4 + 2;
}

/**
 * Where the parts of an unfragmented datagram lie, as scanOctets finds them: the primary and
 * each secondary packet or FEC entry as (offset, length) pairs in `spans`. Reused from datagram
 * to datagram, so a receiver can take the primary without making views of the copies.
 */
export class UdptlLayout {
  seq = 0;
  /** fec-npackets, or -1 for secondary-ifp-packets. */
  npackets = -1;
  /** Secondary packets or FEC entries. */
  count = 0;
  /** [primary offset, primary length, entry 0 offset, entry 0 length, ...]; grows as needed. */
  spans = new Int32Array(2 + 2 * 16);

  /** The primary IFP packet of `bytes` (the datagram scanned). */
  primary(bytes: Uint8Array): Uint8Array {
    return bytes.subarray(this.spans[0]!, this.spans[0]! + this.spans[1]!);
  }

  /** The packet, its parts as views of `bytes` (the datagram scanned). */
  packet(bytes: Uint8Array): UdptlPacket {
    const items: Uint8Array[] = [];
    const spans = this.spans;
    for (let i = 0; i < this.count; i++) items.push(bytes.subarray(spans[2 + 2 * i]!, spans[2 + 2 * i]! + spans[3 + 2 * i]!));
    return {
      seq: this.seq,
      primary: this.primary(bytes),
      errorRecovery: this.npackets < 0 ? { type: 'secondary-ifp-packets', packets: items } : { type: 'fec-info', npackets: this.npackets, data: items },
    };
  }
}

/**
 * The byte-wise reading of an unfragmented packet into `out`; false for anything else, errors
 * included (the general decoder then deals with it).
 */
export function scanOctets(bytes: Uint8Array, maxIfp: number, maxEntries: number, out: UdptlLayout): boolean {
  const end = bytes.length;
  if (end < 4) return false;
  out.seq = (bytes[0]! << 8) | bytes[1]!;
  let l = lengthAt(bytes, 2);
  if (l < 0) return false;
  let at = 2 + (l & 3);
  let n = l >>> 2;
  if (n > maxIfp || at + n >= end) return false;
  const primaryAt = at;
  const primaryLength = n;
  at += n;
  const choice = bytes[at++]!;
  let npackets = -1;
  if (choice === 0x80) {
    l = lengthAt(bytes, at);
    n = l >>> 2;
    if (l < 0 || n < 1 || n > 4) return false;
    at += l & 3;
    if (at + n > end || bytes[at]! & 0x80) return false;
    npackets = 0;
    for (let i = 0; i < n; i++) npackets = npackets * 256 + bytes[at++]!;
  } else if (choice !== 0) return false; // padding bits set: let the general decoder judge
  l = lengthAt(bytes, at);
  const count = l >>> 2;
  if (l < 0 || count > maxEntries) return false;
  at += l & 3;
  if (out.spans.length < 2 + 2 * count) out.spans = new Int32Array(2 + 2 * count);
  const spans = out.spans;
  spans[0] = primaryAt;
  spans[1] = primaryLength;
  for (let i = 0; i < count; i++) {
    l = lengthAt(bytes, at);
    n = l >>> 2;
    if (l < 0 || n > maxIfp) return false;
    at += l & 3;
    if (at + n > end) return false;
    spans[2 + 2 * i] = at;
    spans[3 + 2 * i] = n;
    at += n;
  }
  out.npackets = npackets;
  out.count = count;
  return at === end;
}

/** decodeOctets' scratch layout (it is read out before the call returns). */
const scratch = new UdptlLayout();

/** The byte-wise decoder for unfragmented packets; undefined for anything else, errors included. */
function decodeOctets(bytes: Uint8Array, maxIfp: number, maxEntries: number): UdptlPacket | undefined {
  return scanOctets(bytes, maxIfp, maxEntries, scratch) ? scratch.packet(bytes) : undefined;
}

/** The general decoder (X.691 bit by bit, 16K fragments): also the one that reports errors. */
export function decodePerUdptl(bytes: Uint8Array, maxIfp: number, maxEntries: number): UdptlPacket {
  const r = new PerReader(bytes);
  const seq = (r.octet() << 8) | r.octet();
  const primary = readLengthAndOctets(r, maxIfp);
  let errorRecovery: ErrorRecovery;
  if (r.bits(1) === 0) {
    const packets = readSequenceOf(r, maxEntries, () => readLengthAndOctets(r, maxIfp));
    errorRecovery = { type: 'secondary-ifp-packets', packets };
  } else {
    const at = r.byteOffset;
    const { count, more } = r.length();
    if (more || count < 1 || count > 4) throw new T38Error('invalid', `fec-npackets of ${count} octet(s)`, at);
    const octets = r.octets(count);
    if (octets[0]! & 0x80) throw new T38Error('invalid', 'negative fec-npackets', at);
    let npackets = 0;
    for (const b of octets) npackets = npackets * 256 + b;
    const data = readSequenceOf(r, maxEntries, () => readLengthAndOctets(r, maxIfp));
    errorRecovery = { type: 'fec-info', npackets, data };
  }
  r.align();
  if (r.bytesUsed !== bytes.length) throw new T38Error('trailing_bytes', `${bytes.length - r.bytesUsed} byte(s) after the UDPTL packet`, r.bytesUsed);
  return { seq, primary, errorRecovery };
}

function readSequenceOf<T>(r: PerReader, maxItems: number, read: () => T): T[] {
  const out: T[] = [];
  for (let more = true; more; ) {
    const at = r.byteOffset;
    const len = r.length();
    if (out.length + len.count > maxItems) throw new T38Error('too_large', `more than ${maxItems} recovery entries`, at);
    for (let i = 0; i < len.count; i++) out.push(read());
    more = len.more;
  }
  return out;
}

interface UdptlSenderOptions {
  errorCorrection: ErrorCorrection;
  /** The far end's T38FaxMaxDatagram: recovery data that would exceed it is left out. */
  maxDatagram?: number;
  /** First sequence number (default 0). */
  initialSeq?: number;
}

/** Numbers IFP packets and wraps each in a UDPTL datagram with its recovery information. */
export class UdptlSender {
  private seq: number;
  private sent = 0;
  private readonly ec: ErrorCorrection;
  private readonly maxDatagram: number;
  /** The last IFP packets sent, by seq & mask. */
  private readonly history: Uint8Array[];
  private readonly mask: number;
  private readonly slab = new ByteSlab();

  constructor(opts: UdptlSenderOptions) {
    this.ec = validateErrorCorrection(opts.errorCorrection);
    this.maxDatagram = opts.maxDatagram ?? MAX_UDPTL_PAYLOAD;
    if (!Number.isInteger(this.maxDatagram) || this.maxDatagram < 8) throw new T38Error('bad_parameter', `maxDatagram ${this.maxDatagram} below 8`);
    const start = opts.initialSeq ?? 0;
    if (!Number.isInteger(start) || start < 0 || start > 0xffff) throw new T38Error('bad_parameter', `initialSeq ${start} outside 0..65535`);
    this.seq = start;
    const keep = this.ec.scheme === 'redundancy' ? this.ec.depth : this.ec.scheme === 'fec' ? this.ec.span * this.ec.entries : 0;
    let size = 1;
    while (size < keep + 1) size *= 2;
    this.history = new Array<Uint8Array>(size);
    this.mask = size - 1;
  }

  /** The sequence number the next packet gets. */
  get nextSeq(): number {
    return this.seq;
  }

  /** Builds the datagram for the next IFP packet. */
  packetize(ifp: Uint8Array): Uint8Array {
    const seq = this.seq;
    const ec = this.ec;
    let errorRecovery: ErrorRecovery;
    // Octets left after seq-number, the primary and the error-recovery header (CHOICE octet,
    // entry count; for FEC also the one-octet fec-npackets with its length).
    const base = 2 + lengthOctets(ifp.length) + ifp.length;
    if (ec.scheme === 'fec') {
      // Wind up at the start of the stream: cover only packets that exist (as spandsp does).
      const entries = Math.min(ec.entries, Math.floor(this.sent / ec.span));
      const span = entries > 0 ? ec.span : 0;
      const data: Uint8Array[] = [];
      for (let m = 0; m < entries; m++) data.push(this.parity(seq, m, span, entries));
      let size = base + 4;
      for (const d of data) size += lengthOctets(d.length) + d.length;
      // Dropping some entries would change the stride the receiver assumes: all or none.
      errorRecovery = size <= this.maxDatagram ? { type: 'fec-info', npackets: span, data } : { type: 'fec-info', npackets: 0, data: [] };
    } else {
      const depth = ec.scheme === 'redundancy' ? Math.min(ec.depth, this.sent) : 0;
      let size = base + 2;
      let copies = 0;
      let plain = ifp.length > 0 && ifp.length < FRAGMENT;
      for (let i = 1; i <= depth; i++) {
        const n = this.history[(seq - i) & this.mask]!.length;
        if (size + lengthOctets(n) + n > this.maxDatagram) break; // the oldest copies go first
        size += lengthOctets(n) + n;
        copies = i;
        if (n >= FRAGMENT) plain = false;
      }
      if (plain) {
        // The usual datagram, written straight out (encodeOctets' layout).
        const out = this.slab.take(size);
        out[0] = seq >>> 8;
        out[1] = seq & 0xff;
        let at = putLengthAndOctets(out, 2, ifp);
        out[at++] = 0x00; // CHOICE secondary-ifp-packets, padded
        out[at++] = copies;
        for (let i = 1; i <= copies; i++) at = putLengthAndOctets(out, at, this.history[(seq - i) & this.mask]!);
        this.remember(ifp);
        return out;
      }
      const packets: Uint8Array[] = [];
      for (let i = 1; i <= copies; i++) packets.push(this.history[(seq - i) & this.mask]!);
      errorRecovery = { type: 'secondary-ifp-packets', packets };
    }
    this.remember(ifp);
    return encodeUdptl({ seq, primary: ifp, errorRecovery });
  }

  /** Keeps the packet just sent for later recovery data, and moves on to the next number. */
  private remember(ifp: Uint8Array): void {
    this.history[this.seq & this.mask] = ifp;
    this.seq = (this.seq + 1) & 0xffff;
    this.sent++;
  }

  /** XOR of packets seq+m-k·entries, k = 1..span, zero-padded to the longest. */
  private parity(seq: number, m: number, span: number, entries: number): Uint8Array {
    let len = 0;
    for (let k = 1; k <= span; k++) len = Math.max(len, this.history[(seq + m - k * entries) & this.mask]!.length);
    const out = new Uint8Array(len);
    for (let k = 1; k <= span; k++) {
      const p = this.history[(seq + m - k * entries) & this.mask]!;
      for (let j = 0; j < p.length; j++) out[j]! ^= p[j]!;
    }
    return out;
  }
}

/** Checks an ErrorCorrection's numbers (depth 0..15; FEC span 1..32 × entries 1..32, at most 128 packets covered). */
export function validateErrorCorrection(ec: ErrorCorrection): ErrorCorrection {
  const int = (v: number, lo: number, hi: number, what: string) => {
    if (!Number.isInteger(v) || v < lo || v > hi) throw new T38Error('bad_parameter', `${what} ${v} outside ${lo}..${hi}`);
  };
  if (ec.scheme === 'redundancy') int(ec.depth, 0, 15, 'redundancy depth');
  else if (ec.scheme === 'fec') {
    int(ec.span, 1, 32, 'FEC span');
    int(ec.entries, 1, 32, 'FEC entries');
    if (ec.span * ec.entries > 128) throw new T38Error('bad_parameter', `FEC span × entries ${ec.span * ec.entries} over 128`);
  } else if (ec.scheme !== 'none') throw new T38Error('bad_parameter', `unknown error correction ${String((ec as { scheme: unknown }).scheme)}`);
  return ec;
}
