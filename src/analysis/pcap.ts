// Classic libpcap files (the tcpdump/Wireshark format: microsecond magic A1B2C3D4 and the
// nanosecond A1B23C4D, either byte order) reduced to the UDP datagrams they hold, for the T.38
// analyzer. Link types: Ethernet (1, with 802.1Q/802.1ad tags), raw IP (101, 12, 14, 228, 229),
// Linux cooked v1/v2 (113, 276) and BSD loopback (0, 108); IPv4 and IPv6 (extension headers
// skipped). Fragments and truncated datagrams are counted, not reassembled. Hostile input:
// every length is checked against the bytes present and the record count is capped.
import { CaptureError } from './errors.js';

export interface Endpoint {
  /** Dotted IPv4 or RFC 5952 IPv6 text. */
  host: string;
  port: number;
}

export interface UdpDatagram {
  /** 0-based record number in the file. */
  record: number;
  /** Capture time, microseconds since the epoch (fractional with the nanosecond format). */
  timeUs: number;
  src: Endpoint;
  dst: Endpoint;
  payload: Uint8Array;
}

interface PcapStats {
  records: number;
  udp: number;
  /** Records that are not UDP over IP (TCP, ARP, ICMP …). */
  other: number;
  /** IP fragments (not reassembled). */
  fragments: number;
  /** UDP datagrams cut short by the capture's snap length, or malformed IP/UDP headers. */
  damaged: number;
}

interface PcapCapture {
  linkType: number;
  nanoseconds: boolean;
  datagrams: UdpDatagram[];
  stats: PcapStats;
  warnings: string[];
}

interface PcapLimits {
  /** Most records read (default 2 000 000). */
  maxRecords?: number;
}

/** libpcap's own ceiling on a record (MAXIMUM_SNAPLEN). */
const MAX_RECORD = 262_144;

const LINKTYPE = { NULL: 0, ETHERNET: 1, RAW_OPENBSD: 12, RAW_BSDOS: 14, RAW: 101, LOOP: 108, LINUX_SLL: 113, IPV4: 228, IPV6: 229, LINUX_SLL2: 276 } as const;

/** Where the IP packet starts in a record of this link type; -1 when it carries no IP. */
function ipOffset(link: number, b: Uint8Array): number {
  switch (link) {
    case LINKTYPE.ETHERNET: {
      let at = 12;
      let type = b.length >= 14 ? (b[12]! << 8) | b[13]! : -1;
      // 802.1Q / 802.1ad tags (possibly stacked)
      while ((type === 0x8100 || type === 0x88a8 || type === 0x9100) && b.length >= at + 6) {
        at += 4;
        type = (b[at]! << 8) | b[at + 1]!;
      }
      return type === 0x0800 || type === 0x86dd ? at + 2 : -1;
    }
    case LINKTYPE.RAW:
    case LINKTYPE.RAW_OPENBSD:
    case LINKTYPE.RAW_BSDOS:
    case LINKTYPE.IPV4:
    case LINKTYPE.IPV6:
      return 0;
    case LINKTYPE.LINUX_SLL: {
      if (b.length < 16) return -1;
      const p = (b[14]! << 8) | b[15]!;
      return p === 0x0800 || p === 0x86dd ? 16 : -1;
    }
    case LINKTYPE.LINUX_SLL2: {
      if (b.length < 20) return -1;
      const p = (b[0]! << 8) | b[1]!;
      return p === 0x0800 || p === 0x86dd ? 20 : -1;
    }
    case LINKTYPE.NULL:
    case LINKTYPE.LOOP:
      // A 4-byte address family in the capturing host's byte order: the IP version tells more.
      return 4;
    default:
      return -1;
  }
}

const SUPPORTED_LINKS = new Set<number>(Object.values(LINKTYPE));

/** Reads a pcap file's UDP datagrams. Throws CaptureError when the file is no pcap or is corrupt before its first record. */
export function readPcap(bytes: Uint8Array, limits: PcapLimits = {}): PcapCapture {
  if (bytes.length < 24) throw new CaptureError('truncated', `pcap: ${bytes.length} bytes, not even a file header`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magicLe = view.getUint32(0, true);
  let le: boolean;
  let nanoseconds: boolean;
  if (magicLe === 0xa1b2c3d4 || magicLe === 0xa1b23c4d) (le = true), (nanoseconds = magicLe === 0xa1b23c4d);
  else if (magicLe === 0xd4c3b2a1 || magicLe === 0x4d3cb2a1) (le = false), (nanoseconds = magicLe === 0x4d3cb2a1);
  else if (magicLe === 0x0a0d0d0a) throw new CaptureError('unsupported', 'pcapng is not supported; convert it with: editcap -F pcap in.pcapng out.pcap');
  else throw new CaptureError('unknown_format', 'pcap: bad magic number');
  const major = view.getUint16(4, le);
  if (major !== 2) throw new CaptureError('unsupported', `pcap: format version ${major} (2 expected)`);
  // The top bits may carry FCS information (pcap "LinkType and additional information").
  const linkType = view.getUint32(20, le) & 0xffff;
  if (!SUPPORTED_LINKS.has(linkType)) throw new CaptureError('unsupported', `pcap: link type ${linkType} (Ethernet, raw IP, Linux cooked or loopback)`);
  const maxRecords = limits.maxRecords ?? 2_000_000;
  const stats: PcapStats = { records: 0, udp: 0, other: 0, fragments: 0, damaged: 0 };
  const warnings: string[] = [];
  const datagrams: UdpDatagram[] = [];
  let at = 24;
  while (at < bytes.length) {
    if (stats.records >= maxRecords) {
      warnings.push(`stopped after ${maxRecords} records`);
      break;
    }
    if (at + 16 > bytes.length) {
      warnings.push(`the file ends inside the header of record ${stats.records + 1}`);
      break;
    }
    const sec = view.getUint32(at, le);
    const frac = view.getUint32(at + 4, le);
    const incl = view.getUint32(at + 8, le);
    if (incl > MAX_RECORD) throw new CaptureError('corrupt', `pcap: record ${stats.records + 1} claims ${incl} bytes (at most ${MAX_RECORD})`);
    if (at + 16 + incl > bytes.length) {
      warnings.push(`the file ends inside record ${stats.records + 1}`);
      break;
    }
    const record = bytes.subarray(at + 16, at + 16 + incl);
    const timeUs = sec * 1e6 + (nanoseconds ? frac / 1000 : frac);
    const index = stats.records++;
    at += 16 + incl;
    const off = ipOffset(linkType, record);
    if (off < 0 || off >= record.length) {
      stats.other++;
      continue;
    }
    const udp = udpOf(record.subarray(off), stats);
    if (!udp) continue;
    stats.udp++;
    datagrams.push({ record: index, timeUs, ...udp });
  }
  return { linkType, nanoseconds, datagrams, stats, warnings };
}

/** The UDP datagram in an IP packet, or undefined (counted in stats) when there is none. */
function udpOf(ip: Uint8Array, stats: PcapStats): Omit<UdpDatagram, 'record' | 'timeUs'> | undefined {
  const version = ip[0]! >>> 4;
  let src: string;
  let dst: string;
  let at: number;
  let end: number;
  if (version === 4) {
    const ihl = (ip[0]! & 0x0f) * 4;
    if (ihl < 20 || ip.length < ihl) return damaged(stats);
    const total = (ip[2]! << 8) | ip[3]!;
    if (total < ihl) return damaged(stats);
    if (ip[9] !== 17) return other(stats);
    const flagsFrag = (ip[6]! << 8) | ip[7]!;
    if ((flagsFrag & 0x2000) !== 0 || (flagsFrag & 0x1fff) !== 0) {
      stats.fragments++;
      return undefined;
    }
    src = `${ip[12]}.${ip[13]}.${ip[14]}.${ip[15]}`;
    dst = `${ip[16]}.${ip[17]}.${ip[18]}.${ip[19]}`;
    at = ihl;
    end = Math.min(ip.length, total); // Ethernet pads short frames
  } else if (version === 6) {
    if (ip.length < 40) return damaged(stats);
    end = Math.min(ip.length, 40 + ((ip[4]! << 8) | ip[5]!));
    src = ipv6Text(ip.subarray(8, 24));
    dst = ipv6Text(ip.subarray(24, 40));
    let next = ip[6]!;
    at = 40;
    // Extension headers: hop-by-hop, routing, destination options, AH; a fragment header ends it.
    for (let hops = 0; next !== 17; hops++) {
      if (hops > 8 || at + 8 > end) return next === 0 || next === 43 || next === 60 || next === 51 ? damaged(stats) : other(stats);
      if (next === 44) {
        stats.fragments++;
        return undefined;
      }
      if (next === 0 || next === 43 || next === 60) {
        const len = (ip[at + 1]! + 1) * 8;
        next = ip[at]!;
        at += len;
      } else if (next === 51) {
        const len = (ip[at + 1]! + 2) * 4;
        next = ip[at]!;
        at += len;
      } else return other(stats);
    }
  } else return other(stats);
  if (at + 8 > end) return damaged(stats);
  const udpLen = (ip[at + 4]! << 8) | ip[at + 5]!;
  // A length below 8 is corrupt; UDP over IPv6 jumbograms (length 0) do not occur in fax captures.
  if (udpLen < 8 || at + udpLen > end) return damaged(stats);
  return {
    src: { host: src, port: (ip[at]! << 8) | ip[at + 1]! },
    dst: { host: dst, port: (ip[at + 2]! << 8) | ip[at + 3]! },
    payload: ip.subarray(at + 8, at + udpLen),
  };
}

function damaged(stats: PcapStats): undefined {
  stats.damaged++;
  return undefined;
}

function other(stats: PcapStats): undefined {
  stats.other++;
  return undefined;
}

/** RFC 5952 text: lower case, the longest run (≥ 2) of zero groups as "::". */
export function ipv6Text(a: Uint8Array): string {
  const g: number[] = [];
  for (let i = 0; i < 16; i += 2) g.push((a[i]! << 8) | a[i + 1]!);
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) (best = i), (bestLen = j - i);
    i = j;
  }
  const hex = (from: number, to: number) => g.slice(from, to).map((x) => x.toString(16)).join(':');
  if (best < 0) return hex(0, 8);
  return `${hex(0, best)}::${hex(best + bestLen, 8)}`;
}

export function endpointText(e: Endpoint): string {
  return e.host.includes(':') ? `[${e.host}]:${e.port}` : `${e.host}:${e.port}`;
}

/** Parses HOST:PORT or [V6HOST]:PORT (as --caller takes it); undefined when malformed. */
export function parseEndpoint(text: string): Endpoint | undefined {
  const m = /^\[([0-9a-fA-F:.]+)\]:(\d{1,5})$/.exec(text) ?? /^([^:[\]]+):(\d{1,5})$/.exec(text);
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port > 65535) return undefined;
  let host = m[1]!;
  if (host.includes(':')) {
    const bytes = parseIpv6(host);
    if (!bytes) return undefined;
    host = ipv6Text(bytes);
  }
  return { host, port };
}

function parseIpv6(text: string): Uint8Array | undefined {
  const halves = text.toLowerCase().split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const fill = 8 - head.length - tail.length;
  if (halves.length === 1 ? fill !== 0 : fill < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? fill : 0).fill('0'), ...tail];
  const out = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    if (!/^[0-9a-f]{1,4}$/.test(all[i]!)) return undefined;
    const v = parseInt(all[i]!, 16);
    out[2 * i] = v >>> 8;
    out[2 * i + 1] = v & 0xff;
  }
  return out;
}

// ------------------------------------------------------------------------------ writing (tests, tools)

export interface PcapRecordInput {
  timeUs: number;
  src: Endpoint;
  dst: Endpoint;
  payload: Uint8Array;
}

export interface WritePcapOptions {
  /** Ethernet (default), raw IP or Linux cooked. */
  linkType?: 1 | 101 | 113;
  nanoseconds?: boolean;
  bigEndian?: boolean;
}

/** Writes UDP datagrams as a pcap file (IPv4 or IPv6 by the hosts' form; checksums left 0). */
export function writePcap(records: readonly PcapRecordInput[], opts: WritePcapOptions = {}): Uint8Array {
  const link = opts.linkType ?? LINKTYPE.ETHERNET;
  const le = !opts.bigEndian;
  const frames = records.map((r) => ipFrame(r, link));
  const out = new Uint8Array(24 + frames.reduce((n, f) => n + 16 + f.length, 0));
  const v = new DataView(out.buffer);
  v.setUint32(0, opts.nanoseconds ? 0xa1b23c4d : 0xa1b2c3d4, le);
  v.setUint16(4, 2, le);
  v.setUint16(6, 4, le);
  v.setUint32(16, 65535, le);
  v.setUint32(20, link, le);
  let at = 24;
  records.forEach((r, i) => {
    const f = frames[i]!;
    const sec = Math.floor(r.timeUs / 1e6);
    const frac = opts.nanoseconds ? Math.round((r.timeUs - sec * 1e6) * 1000) : Math.round(r.timeUs - sec * 1e6);
    v.setUint32(at, sec, le);
    v.setUint32(at + 4, frac, le);
    v.setUint32(at + 8, f.length, le);
    v.setUint32(at + 12, f.length, le);
    out.set(f, at + 16);
    at += 16 + f.length;
  });
  return out;
}

function ipFrame(r: PcapRecordInput, link: number): Uint8Array {
  const v6 = r.src.host.includes(':');
  const ipHeader = v6 ? 40 : 20;
  const udpLen = 8 + r.payload.length;
  const linkHeader = link === LINKTYPE.ETHERNET ? 14 : link === LINKTYPE.LINUX_SLL ? 16 : 0;
  const f = new Uint8Array(linkHeader + ipHeader + udpLen);
  const ethertype = v6 ? 0x86dd : 0x0800;
  if (link === LINKTYPE.ETHERNET) {
    f.set([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, ethertype >>> 8, ethertype & 0xff]);
  } else if (link === LINKTYPE.LINUX_SLL) {
    f.set([0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, ethertype >>> 8, ethertype & 0xff]);
  }
  const ip = f.subarray(linkHeader);
  if (v6) {
    ip[0] = 0x60;
    ip[4] = udpLen >>> 8;
    ip[5] = udpLen & 0xff;
    ip[6] = 17;
    ip[7] = 64;
    ip.set(parseIpv6(r.src.host) ?? new Uint8Array(16), 8);
    ip.set(parseIpv6(r.dst.host) ?? new Uint8Array(16), 24);
  } else {
    const total = 20 + udpLen;
    ip.set([0x45, 0, total >>> 8, total & 0xff, 0, 0, 0x40, 0, 64, 17, 0, 0]);
    ip.set(r.src.host.split('.').map(Number), 12);
    ip.set(r.dst.host.split('.').map(Number), 16);
  }
  const u = ip.subarray(ipHeader);
  u.set([r.src.port >>> 8, r.src.port & 0xff, r.dst.port >>> 8, r.dst.port & 0xff, udpLen >>> 8, udpLen & 0xff, 0, 0]);
  u.set(r.payload, 8);
  return f;
}
