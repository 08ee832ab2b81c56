// The receiving side of UDPTL (T.38 9.1): turns datagrams, which may arrive lost,
// duplicated or out of order, into the IFP packets in sequence order, each exactly once.
// Missing packets are rebuilt from the redundancy (secondary IFP packets) or FEC parity of
// later datagrams; a packet that cannot be rebuilt is given up once enough later packets have
// arrived, or on flush(). Memory is bounded: a fixed ring of recent packets, a fixed number
// of FEC records, datagrams over a size limit dropped. Malformed input is counted, never thrown.
import { T38Error } from './errors.js';
import { decodeUdptl, MAX_UDPTL_PAYLOAD, scanOctets, UdptlLayout, type UdptlPacket } from './udptl.js';

export interface UdptlDelivery {
  seq: number;
  /** The IFP packet (a view of the datagram it came in, or a fresh buffer when rebuilt by FEC). */
  ifp: Uint8Array;
  /** As its own primary, from a later packet's secondary copies, or rebuilt from FEC parity. */
  via: 'primary' | 'redundancy' | 'fec';
  /** Packets given up as lost right before this one. */
  lostBefore: number;
}

interface UdptlReceiverOptions {
  onIfp: (delivery: UdptlDelivery) => void;
  /** Packets buffered ahead of the next one due (power of two, 8..1024; default 64). */
  window?: number;
  /** A missing packet is given up once a packet this many later has arrived (default 8; more while FEC may still rebuild it). */
  reorderLimit?: number;
  /** Larger datagrams are dropped unread (default 65507). */
  maxDatagram?: number;
  /**
   * Length of the IFP packet at the start of FEC-rebuilt bytes (they come zero-padded to the
   * longest packet of their parity group); undefined keeps them whole.
   */
  trimRecovered?: (bytes: Uint8Array) => number | undefined;
  /** Told of each datagram dropped as malformed. */
  onMalformed?: (error: T38Error) => void;
}

export interface UdptlReceiverStats {
  datagrams: number;
  malformed: number;
  /** Datagrams (or secondary copies) of packets already held or delivered. */
  duplicates: number;
  /** Datagrams of packets already given up. */
  late: number;
  recoveredRedundancy: number;
  recoveredFec: number;
  /** Packets given up. */
  lost: number;
  /** Jumps in the sequence too large to be loss (peer restarted its numbering). */
  resyncs: number;
  delivered: number;
}

interface FecRecord {
  /** Extended seq of the packet that carried it. */
  at: number;
  span: number;
  data: Uint8Array[];
}

const FEC_RECORDS = 32;
/** Most secondary packets or FEC entries read from one datagram. */
const MAX_ENTRIES = 64;
const MAX_FEC_COVER = 128;
/** A jump this large (packets, either way) restarts the sequence instead of counting losses. */
const RESYNC_JUMP = 1024;

export class UdptlReceiver {
  readonly stats: UdptlReceiverStats = {
    datagrams: 0, malformed: 0, duplicates: 0, late: 0, recoveredRedundancy: 0, recoveredFec: 0, lost: 0, resyncs: 0, delivered: 0,
  };
  private readonly window: number;
  private readonly reorderLimit: number;
  private readonly maxDatagram: number;
  private readonly onIfp: (d: UdptlDelivery) => void;
  private readonly trim: ((bytes: Uint8Array) => number | undefined) | undefined;
  private readonly onMalformed: ((e: T38Error) => void) | undefined;
  // Sequence numbers are kept "extended" (not wrapped at 65536) so ring tags never alias.
  private started = false;
  private next = 0;
  private highest = -1;
  private readonly mask: number;
  private readonly tags: Float64Array;
  private readonly data: (Uint8Array | undefined)[];
  private readonly via: Uint8Array;
  private fec: FecRecord[] = [];
  private fecCover = 0;
  private pendingLost = 0;
  /** Where the parts of the datagram in hand lie. */
  private readonly layout = new UdptlLayout();

  constructor(opts: UdptlReceiverOptions) {
    this.onIfp = opts.onIfp;
    this.window = opts.window ?? 64;
    if (!Number.isInteger(this.window) || this.window < 8 || this.window > 1024 || (this.window & (this.window - 1)) !== 0) {
      throw new T38Error('bad_parameter', `window ${this.window} is not a power of two in 8..1024`);
    }
    this.reorderLimit = opts.reorderLimit ?? 8;
    if (!Number.isInteger(this.reorderLimit) || this.reorderLimit < 1 || this.reorderLimit >= this.window) {
      throw new T38Error('bad_parameter', `reorderLimit ${this.reorderLimit} outside 1..${this.window - 1}`);
    }
    this.maxDatagram = opts.maxDatagram ?? MAX_UDPTL_PAYLOAD;
    this.trim = opts.trimRecovered;
    this.onMalformed = opts.onMalformed;
    let size = 1;
    while (size < this.window + MAX_FEC_COVER + 1) size *= 2;
    this.mask = size - 1;
    this.tags = new Float64Array(size).fill(-1);
    this.data = new Array<Uint8Array | undefined>(size);
    this.via = new Uint8Array(size);
  }

  /** Takes one datagram. Never throws for any input (the onIfp handler's own errors pass through). */
  receive(datagram: Uint8Array): void {
    this.stats.datagrams++;
    const lay = this.layout;
    const plain = datagram.length <= this.maxDatagram && scanOctets(datagram, this.maxDatagram, MAX_ENTRIES, lay);
    if (plain && this.started && lay.npackets < 0 && this.fec.length === 0 && this.next > this.highest && this.extend(lay.seq) === this.next) {
      // The packet due, with nothing held: its secondary copies are of packets already delivered.
      this.store(this.next, lay.primary(datagram), 0);
      this.deliver();
      return;
    }
    let pkt: UdptlPacket;
    try {
      if (datagram.length > this.maxDatagram) throw new T38Error('too_large', `datagram of ${datagram.length} bytes over ${this.maxDatagram}`);
      pkt = plain ? lay.packet(datagram) : decodeUdptl(datagram, { maxIfp: this.maxDatagram, maxEntries: MAX_ENTRIES });
    } catch (err) {
      this.stats.malformed++;
      if (err instanceof T38Error) this.onMalformed?.(err);
      else throw err;
      return;
    }
    const secondaries = pkt.errorRecovery.type === 'secondary-ifp-packets' ? pkt.errorRecovery.packets : [];
    if (!this.started) {
      this.started = true;
      this.next = 0x10000 * 16 + ((pkt.seq - secondaries.length) & 0xffff);
      this.highest = this.next - 1;
    }
    const ext = this.extend(pkt.seq);
    const d = ext - this.next;
    if (d < 0 && d > -RESYNC_JUMP) {
      if (this.known(ext)) this.stats.duplicates++;
      else this.stats.late++;
      return;
    }
    if (d >= RESYNC_JUMP || d < 0) {
      this.flush();
      this.stats.resyncs++;
      this.tags.fill(-1);
      this.data.fill(undefined);
      this.fec = [];
      this.next = ext - Math.min(secondaries.length, this.window - 1);
      this.highest = this.next - 1;
    } else if (d >= this.window) {
      this.advanceTo(ext - this.window + 1);
    }
    if (this.known(ext)) this.stats.duplicates++;
    else this.store(ext, pkt.primary, 0);
    for (let i = 0; i < secondaries.length; i++) {
      const s = ext - 1 - i;
      if (s < this.next) break;
      if (this.known(s)) continue;
      this.store(s, secondaries[i]!, 1);
      this.stats.recoveredRedundancy++;
    }
    if (pkt.errorRecovery.type === 'fec-info') this.addFec(ext, pkt.errorRecovery.npackets, pkt.errorRecovery.data);
    this.deliver();
    if (this.fec.length > 0 && this.next <= this.highest) {
      this.rebuild();
      this.deliver();
    }
  }

  /** Gives up every missing packet now and delivers all that is held. */
  flush(): void {
    if (this.started) this.advanceTo(this.highest + 1);
  }

  /** True while packets are held behind a missing one. */
  get pending(): boolean {
    return this.started && this.next <= this.highest;
  }

  /** What is held in memory: packets in the ring, FEC records, and the bytes of the buffers they keep alive. */
  get held(): { packets: number; fecRecords: number; bytes: number } {
    const buffers = new Set<ArrayBufferLike>();
    let packets = 0;
    for (let i = 0; i <= this.mask; i++) {
      const d = this.data[i];
      if (this.tags[i]! >= 0 && d) (packets++, buffers.add(d.buffer));
    }
    for (const r of this.fec) for (const d of r.data) buffers.add(d.buffer);
    let bytes = 0;
    for (const b of buffers) bytes += b.byteLength;
    return { packets, fecRecords: this.fec.length, bytes };
  }

  /** Ring size: the most packets ever held. */
  get capacity(): number {
    return this.mask + 1;
  }

  /** The 16-bit seq of the next packet due, or undefined before the first datagram. */
  get nextSeq(): number | undefined {
    return this.started ? this.next & 0xffff : undefined;
  }

  private extend(seq: number): number {
    let d = (seq - this.next) & 0xffff;
    if (d >= 0x8000) d -= 0x10000;
    return this.next + d;
  }

  private known(ext: number): boolean {
    return this.tags[ext & this.mask] === ext;
  }

  private store(ext: number, ifp: Uint8Array, via: 0 | 1 | 2): void {
    const i = ext & this.mask;
    this.tags[i] = ext;
    this.data[i] = ifp;
    this.via[i] = via;
    if (ext > this.highest) this.highest = ext;
  }

  private addFec(at: number, span: number, data: Uint8Array[]): void {
    const entries = data.length;
    if (span < 1 || entries < 1 || span * entries > MAX_FEC_COVER) return;
    this.fecCover = span * entries;
    this.fec.push({ at, span, data });
    if (this.fec.length > FEC_RECORDS) this.fec.shift();
  }

  /** Delivers what is due; gives up a missing packet once it cannot come any more. */
  private deliver(): void {
    const limit = Math.min(this.window - 1, Math.max(this.reorderLimit, this.fec.length > 0 ? this.fecCover + 1 : 0));
    while (this.next <= this.highest) {
      if (this.known(this.next)) this.emit(this.next);
      else if (this.highest - this.next >= limit) this.lose();
      else break;
    }
  }

  private advanceTo(target: number): void {
    while (this.next < target) {
      if (this.next > this.highest) {
        // Nothing is held past here: the rest of the gap is lost at once.
        const n = target - this.next;
        this.stats.lost += n;
        this.pendingLost += n;
        this.next = target;
        break;
      }
      if (this.known(this.next)) this.emit(this.next);
      else this.lose();
    }
    if (this.highest < this.next - 1) this.highest = this.next - 1;
  }

  private lose(): void {
    this.stats.lost++;
    this.pendingLost++;
    this.next++;
  }

  private emit(ext: number): void {
    const i = ext & this.mask;
    const via = this.via[i] === 0 ? 'primary' : this.via[i] === 1 ? 'redundancy' : 'fec';
    const lostBefore = this.pendingLost;
    this.pendingLost = 0;
    this.next = ext + 1;
    this.stats.delivered++;
    this.onIfp({ seq: ext & 0xffff, ifp: this.data[i]!, via, lostBefore });
  }

  /** Rebuilds missing packets from FEC parity, repeating while one rebuild enables another. */
  private rebuild(): void {
    this.fec = this.fec.filter((r) => r.at - 1 >= this.next);
    for (let round = 0; round < 4; round++) {
      let progress = false;
      for (let r = this.fec.length - 1; r >= 0; r--) {
        const rec = this.fec[r]!;
        const entries = rec.data.length;
        for (let m = 0; m < entries; m++) {
          let missing = -1;
          let count = 0;
          for (let k = 1; k <= rec.span && count < 2; k++) {
            const s = rec.at + m - k * entries;
            if (!this.known(s)) (count++, (missing = s));
          }
          if (count !== 1 || missing < this.next) continue;
          const out = Uint8Array.from(rec.data[m]!);
          for (let k = 1; k <= rec.span; k++) {
            const s = rec.at + m - k * entries;
            if (s === missing) continue;
            const p = this.data[s & this.mask]!;
            const n = Math.min(p.length, out.length);
            for (let j = 0; j < n; j++) out[j]! ^= p[j]!;
          }
          this.store(missing, this.trimmed(out), 2);
          this.stats.recoveredFec++;
          progress = true;
        }
      }
      if (!progress) return;
    }
  }

  private trimmed(bytes: Uint8Array): Uint8Array {
    if (!this.trim) return bytes;
    let n: number | undefined;
    try {
      n = this.trim(bytes);
    } catch {
      return bytes;
    }
    if (n === undefined || n < 1 || n >= bytes.length) return bytes;
    for (let j = n; j < bytes.length; j++) if (bytes[j] !== 0) return bytes; // not padding: keep it all
    return bytes.subarray(0, n);
  }
}
