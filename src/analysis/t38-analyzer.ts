// Passive reading of a T.38 call from its UDP datagrams (T.38 9.1 UDPTL, Annex A IFP): each
// direction's packets are put back in sequence order with the redundancy of later packets
// filling gaps (UdptlReceiver), then indicators become tones and the starts of signals, HDLC
// fields become frames (octets bit-reversed into T.30's order; the FCS verdict is the
// fcs-OK/fcs-BAD the sending gateway gave) and t4-non-ecm fields become burst data. Datagrams
// that are not UDPTL (SIP, RTP, anything else) are counted and skipped. The side that sends the
// first UDPTL packet is the caller unless told otherwise. T.38 version 0 and 1+ encode field
// types differently, so both readings are tried and the one that makes sense is kept.
import { reverseBits } from '../codecs/index.js';
import { parseFrame, type ModemSpec } from '../t30/index.js';
import {
  decodeIfp,
  decodeIfpPrefix,
  decodeUdptl,
  modemOfIndicator,
  T38Error,
  UdptlReceiver,
  type IfpPacket,
  type T38DataType,
  type T38Indicator,
  type T38Version,
  type UdptlDelivery,
} from '../transport/t38/index.js';
import { BitCollector, type BurstEvent, type HeardFrame, type LineEvent, type Side } from './line-events.js';
import { endpointText, type Endpoint, type UdpDatagram } from './pcap.js';

interface T38AnalysisOptions {
  /** The caller's endpoint (default: whoever sends the first UDPTL packet). */
  caller?: Endpoint;
  /** T.38 version of the IFP encoding (default: tried both ways, the better reading kept). */
  version?: T38Version;
  /** Time zero, µs (default: the first datagram). */
  startUs?: number;
}

export interface T38AnalysisStats {
  datagrams: number;
  udptl: number;
  /** Datagrams that were not UDPTL: SIP, and everything else (RTP, DNS …). */
  sip: number;
  other: number;
  /** UDPTL datagrams between other endpoints than the call's two. */
  otherFlows: number;
  caller?: string;
  answerer?: string;
  version: T38Version;
  /** IFP packets rebuilt from redundancy/FEC, and given up as lost. */
  recovered: number;
  lost: number;
  badIfp: number;
}

interface T38Analysis {
  events: LineEvent[];
  stats: T38AnalysisStats;
}

export function analyzeT38(datagrams: readonly UdpDatagram[], opts: T38AnalysisOptions = {}): T38Analysis {
  const classified = datagrams.map((d) => ({ d, udptl: looksUdptl(d.payload) }));
  const udptl = classified.filter((c) => c.udptl).map((c) => c.d);
  const base = {
    datagrams: datagrams.length,
    udptl: udptl.length,
    sip: classified.filter((c) => !c.udptl && isSip(c.d.payload)).length,
    other: 0,
    otherFlows: 0,
  };
  base.other = datagrams.length - base.udptl - base.sip;
  const t0 = opts.startUs ?? datagrams[0]?.timeUs ?? 0;
  const callerKey = opts.caller ? endpointText(opts.caller) : udptl[0] ? endpointText(udptl[0].src) : undefined;
  const answererKey = udptl.map((d) => endpointText(d.src)).find((k) => k !== callerKey);
  const flows: Array<{ side: Side; datagrams: UdpDatagram[] }> = [
    { side: 'caller', datagrams: [] },
    { side: 'answerer', datagrams: [] },
  ];
  for (const d of udptl) {
    const k = endpointText(d.src);
    if (k === callerKey) flows[0]!.datagrams.push(d);
    else if (k === answererKey) flows[1]!.datagrams.push(d);
    else base.otherFlows++;
  }
  const read = (version: T38Version) => {
    const events: LineEvent[] = [];
    const counts = { recovered: 0, lost: 0, badIfp: 0, score: 0 };
    for (const f of flows) new DirectionReader(f.side, version, t0, events, counts).run(f.datagrams);
    return { events, counts };
  };
  let version: T38Version;
  let result: ReturnType<typeof read>;
  if (opts.version !== undefined) (version = opts.version), (result = read(version));
  else {
    // Version 0 first: it wins ties (a version 0 stream read as 1+ keeps its V.21 frames).
    const v0 = read(0);
    const v3 = read(3);
    [version, result] = v3.counts.score > v0.counts.score ? [3, v3] : [0, v0];
  }
  result.events.sort((a, b) => a.atMs - b.atMs);
  const { score: _score, ...counts } = result.counts;
  return {
    events: result.events,
    stats: { ...base, ...(callerKey ? { caller: callerKey } : {}), ...(answererKey ? { answerer: answererKey } : {}), version, ...counts },
  };
}

/** A UDPTL packet whose primary IFP decodes in some T.38 version. */
function looksUdptl(payload: Uint8Array): boolean {
  try {
    const p = decodeUdptl(payload);
    for (const v of [0, 3] as const) {
      try {
        decodeIfp(p.primary, v);
        return true;
      } catch {
        // try the other version
      }
    }
  } catch {
    // not UDPTL
  }
  return false;
}

function isSip(payload: Uint8Array): boolean {
  const head = String.fromCharCode(...payload.subarray(0, 16));
  return /^(SIP\/2\.0 |[A-Z]{3,9} sips?:)/.test(head);
}

const sameModem = (a: ModemSpec, b: ModemSpec) => a.modulation === b.modulation && a.bitRate === b.bitRate;

function modemOfDataType(t: T38DataType): ModemSpec | undefined {
  const m = /^v(27|29|17)-(\d+)$/.exec(t);
  if (!m) return undefined;
  return { modulation: m[1] === '27' ? 'v27ter' : m[1] === '29' ? 'v29' : 'v17', bitRate: Number(m[2]) as ModemSpec['bitRate'] };
}

interface OpenBurst {
  atMs: number;
  modem: ModemSpec;
  training?: 'long' | 'short';
  data: BitCollector;
  frames: HeardFrame[];
  lost: number;
}

/** One direction: UDPTL → IFP packets in order → line events. */
class DirectionReader {
  private nowMs = 0;
  private signal: 'v21' | OpenBurst | undefined;
  private lastIndicator: T38Indicator | undefined;
  private lastEnd: Uint8Array | undefined;
  private frame: number[] = [];
  private frameBad = false;
  /** A signal ended; data for it afterwards would be a repeat or a peer that does not say. */
  private ended = false;

  constructor(
    private readonly side: Side,
    private readonly version: T38Version,
    private readonly t0: number,
    private readonly out: LineEvent[],
    private readonly counts: { recovered: number; lost: number; badIfp: number; score: number },
  ) {}

  run(datagrams: readonly UdpDatagram[]): void {
    const rx = new UdptlReceiver({ onIfp: (d) => this.ifp(d), window: 256, reorderLimit: 32 });
    for (const d of datagrams) {
      this.nowMs = (d.timeUs - this.t0) / 1000;
      rx.receive(d.payload);
    }
    rx.flush();
    this.endSignal();
    this.counts.recovered += rx.stats.recoveredRedundancy + rx.stats.recoveredFec;
    this.counts.lost += rx.stats.lost;
  }

  private ifp(d: UdptlDelivery): void {
    let p: IfpPacket;
    try {
      p = d.via === 'fec' ? decodeIfpPrefix(d.ifp, this.version).packet : decodeIfp(d.ifp, this.version);
    } catch (err) {
      if (!(err instanceof T38Error)) throw err;
      this.counts.badIfp++;
      this.counts.score -= 4;
      this.frameBad = true;
      return;
    }
    if (d.lostBefore > 0) {
      this.frameBad = true;
      if (this.signal && this.signal !== 'v21') this.signal.lost += d.lostBefore;
    }
    if (this.isRepeat(p, d.ifp)) return;
    if (p.type === 't30-indicator') this.indicator(p.indicator);
    else this.data(p);
  }

  /** A copy of the packet that ended the last signal, sent again under a new sequence number. */
  private isRepeat(p: IfpPacket, bytes: Uint8Array): boolean {
    if (p.type === 't30-indicator') {
      if (p.indicator !== 'no-signal') this.lastEnd = undefined;
      return false;
    }
    const ends = p.fields.some((f) => f.type.endsWith('sig-end'));
    const last = this.lastEnd;
    if (ends && last && last.length === bytes.length && last.every((b, i) => b === bytes[i])) return true;
    this.lastEnd = ends ? bytes : undefined;
    return false;
  }

  private indicator(ind: T38Indicator): void {
    if (ind === this.lastIndicator) return; // indicators are repeated on purpose
    this.lastIndicator = ind;
    this.endSignal();
    this.ended = false;
    if (ind === 'cng' || ind === 'ced') {
      this.out.push({ kind: 'tone', atMs: this.nowMs, source: this.side, tone: ind === 'cng' ? 'CNG' : 'CED' });
    } else if (ind === 'v21-preamble') this.signal = 'v21';
    else {
      const modem = modemOfIndicator(ind);
      if (modem) this.signal = this.open(modem, modem.modulation === 'v17' ? (modem.shortTrain ? 'short' : 'long') : undefined);
    }
  }

  private open(modem: ModemSpec, training?: 'long' | 'short'): OpenBurst {
    return { atMs: this.nowMs, modem: { modulation: modem.modulation, bitRate: modem.bitRate }, ...(training ? { training } : {}), data: new BitCollector(), frames: [], lost: 0 };
  }

  private data(p: Extract<IfpPacket, { type: 't30-data' }>): void {
    this.lastIndicator = undefined;
    const modem = p.dataType === 'v21' ? 'v21' : modemOfDataType(p.dataType);
    if (!modem) return; // V.8/V.34/V.33: not a T.30 fax modem here
    const hasData = p.fields.some((f) => f.data && f.data.length > 0);
    // Signal-end markers with nothing else, once the signal is over: repeats of its end.
    if (this.ended && !hasData) return;
    const s = this.signal;
    if (modem === 'v21') {
      if (s !== 'v21') {
        this.endSignal();
        this.signal = 'v21';
      }
    } else if (s === undefined || s === 'v21' || !sameModem(s.modem, modem)) {
      this.endSignal();
      this.signal = this.open(modem);
    }
    this.ended = false;
    for (const f of p.fields) {
      switch (f.type) {
        case 'hdlc-data':
          if (f.data) for (const b of reverseBits(f.data)) this.frame.push(b);
          break;
        case 'hdlc-fcs-OK':
        case 'hdlc-fcs-BAD':
        case 'hdlc-fcs-OK-sig-end':
        case 'hdlc-fcs-BAD-sig-end':
          if (f.data) for (const b of reverseBits(f.data)) this.frame.push(b);
          this.endFrame(f.type.startsWith('hdlc-fcs-OK'));
          if (f.type.endsWith('sig-end')) this.endSignal();
          break;
        case 'hdlc-sig-end':
          this.endSignal();
          break;
        case 't4-non-ecm-data':
        case 't4-non-ecm-sig-end': {
          const sig = this.signal;
          if (f.data && sig && sig !== 'v21') {
            sig.data.append(f.data);
            this.counts.score += 1 / 8;
          }
          if (f.type === 't4-non-ecm-sig-end') this.endSignal();
          break;
        }
        default:
          this.counts.score -= 4; // V.8/V.34 field types: not in a fax call (or the wrong version)
      }
    }
  }

  private endFrame(fcsOk: boolean): void {
    if (this.frame.length === 0) {
      this.frameBad = false;
      return;
    }
    const frame = Uint8Array.from(this.frame);
    const crcOk = fcsOk && !this.frameBad;
    this.frame = [];
    this.frameBad = false;
    const heard: HeardFrame = { atMs: this.nowMs, frame, crcOk };
    if (crcOk && parseFrame(frame)?.name !== undefined) this.counts.score += 1;
    const s = this.signal;
    if (s && s !== 'v21') s.frames.push(heard);
    else this.out.push({ kind: 'frame', source: this.side, ...heard });
  }

  private endSignal(): void {
    const s = this.signal;
    this.signal = undefined;
    this.frame = [];
    this.frameBad = false;
    if (s === undefined) return;
    this.ended = true;
    if (s === 'v21') return;
    const burst: BurstEvent = {
      kind: 'burst',
      atMs: s.atMs,
      endMs: this.nowMs,
      source: this.side,
      modem: s.modem,
      ...(s.training ? { training: s.training } : {}),
      trained: true,
      data: s.data.take(),
      bits: s.data.bits,
      frames: s.frames,
      ...(s.lost ? { lostPackets: s.lost } : {}),
    };
    this.out.push(burst);
  }
}
