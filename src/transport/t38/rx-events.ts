// What a received IFP packet means to T.30: indicators become tones and carrier changes, HDLC
// fields are put back together into frames (crcOk from the fcs-OK/fcs-BAD field, as T.38
// carries the FCS verdict, not the FCS; octets bit-reversed into T.30's order), t4-non-ecm
// fields become image data (as they are; the packets of one delivery — a run of datagrams that
// came in together — handed over as one chunk on a microtask, since each event is a step of
// T.30 and a page is thousands of packets). Loss reported
// by UDPTL marks the frame in progress bad, so no frame is ever passed on with a hole in it.
//
// Like a modem, the terminal hears what T.30 listens for (set-rx): high-speed signals only in
// the image mode of their modulation and rate, carrier events only for the mode listened to;
// V.21 frames are heard in every mode but 'none' (front-end.ts, test/helpers/t30-loopback.ts).
import { reverseBitsInto } from '../../codecs/index.js';
import { ByteSlab } from '../../shared/byte-slab.js';
import type { FrontEndEvent, ModemSpec, RxMode } from '../../t30/index.js';
import type { IfpPacket, T38DataType, T38Indicator } from './ifp.js';
import { bitRateOf, dataTypeFor, modemOfIndicator } from './modems.js';

interface RxEventsOptions {
  emit: (event: FrontEndEvent) => void;
  /** What T.30 listens for now. */
  listening: () => RxMode;
  /** Longest HDLC frame kept; longer ones are reported bad, cut at this length. */
  maxFrame: number;
  /** localTCF: a training indicator with no data after it stands for a good TCF of `tcfMs`. */
  localTcf: boolean;
  tcfMs: number;
}

export interface RxEventsStats {
  framesOk: number;
  framesBad: number;
  imageBytes: number;
  /** Packets of signals T.30 was not listening for. */
  unheard: number;
}

/** The signal in progress: V.21 or one high-speed modulation and rate. */
interface Signal {
  dataType: T38DataType | undefined; // undefined: announced by a training indicator, no data yet
  modem: ModemSpec | undefined;
  /** carrier on was reported for it. */
  carrier: boolean;
  sawData: boolean;
}

/** Largest chunk of image data gathered from several packets. */
const IMAGE_CHUNK = 16384;

const sameModem = (a: ModemSpec, b: ModemSpec) => a.modulation === b.modulation && a.bitRate === b.bitRate;

export class RxEvents {
  readonly stats: RxEventsStats = { framesOk: 0, framesBad: 0, imageBytes: 0, unheard: 0 };
  private signal: Signal | undefined;
  private lastIndicator: T38Indicator | undefined;
  private imageOpen = false;
  private frame: Uint8Array;
  private frameLen = 0;
  private frameBad = false;
  /** Where the frames handed to T.30 are cut from (T.30 keeps them). */
  private readonly slab = new ByteSlab();
  /**
   * Image data not yet handed over, `imageLen` octets: the first packet's data as it came, or a
   * chunk buffer with a copy of it and of what followed (T.30 keeps what it is given: never reused).
   */
  private image: Uint8Array | null = null;
  private imageLen = 0;
  /** `image` is our own chunk buffer (not the first packet's data). */
  private imageCopied = false;
  private flushQueued = false;
  private readonly flushLater = () => {
    this.flushQueued = false;
    this.flushImage();
  };

  constructor(private readonly opts: RxEventsOptions) {
    this.frame = new Uint8Array(Math.min(opts.maxFrame, 512));
  }

  /** True while a signal is on (for the caller's signal timeout). */
  get signalOn(): boolean {
    return this.signal !== undefined;
  }

  /** UDPTL gave up packets: whatever frame is being put together has a hole. */
  gap(): void {
    this.frameBad = true;
  }

  handle(p: IfpPacket): void {
    if (p.type === 't30-indicator') this.indicator(p.indicator);
    else this.data(p);
  }

  /** The signal ended (its end marker, a new signal, or a timeout when the marker was lost). */
  endSignal(): void {
    const s = this.signal;
    if (!s) return;
    this.signal = undefined;
    const e = (event: FrontEndEvent) => this.emit(event);
    if (this.imageOpen) {
      this.imageOpen = false;
      e({ kind: 'image-end' });
    } else if (this.opts.localTcf && s.modem && !s.sawData && this.heard(s.modem, 'image')) {
      // T.38 Annex D localTCF: no TCF crosses the network; the receiving side stands in for it.
      const n = Math.round((s.modem.bitRate * this.opts.tcfMs) / 8000);
      this.stats.imageBytes += n;
      if (!s.carrier) e({ kind: 'carrier', on: true });
      s.carrier = true;
      e({ kind: 'image-data', data: new Uint8Array(n) });
      e({ kind: 'image-end' });
    }
    this.frameLen = 0;
    this.frameBad = false;
    if (s.carrier) e({ kind: 'carrier', on: false });
  }

  /** Whether T.30 listens for this high-speed modem in this mode ('v21' for V.21). */
  private heard(modem: ModemSpec | 'v21', as: 'image' | 'image-hdlc' | 'carrier'): boolean {
    const rx = this.opts.listening();
    if (modem === 'v21') return as === 'carrier' ? rx.kind === 'v21' : rx.kind !== 'none';
    if (rx.kind !== 'image' && rx.kind !== 'image-hdlc') return false;
    return (as === 'carrier' || rx.kind === as) && sameModem(rx.modem, modem);
  }

  private indicator(ind: T38Indicator): void {
    // Peers repeat indicators on purpose (T.38 leaves their number to the sender): the first counts.
    if (ind === this.lastIndicator) return;
    this.lastIndicator = ind;
    this.endSignal();
    if (ind === 'cng' || ind === 'ced') {
      this.emit({ kind: 'tone', tone: ind });
      return;
    }
    if (ind === 'v21-preamble') this.start({ dataType: 'v21', modem: undefined, carrier: false, sawData: false });
    else {
      const modem = modemOfIndicator(ind);
      // no-signal, or V.8/V.33/V.34 signals that T.30 here does not use
      if (modem) this.start({ dataType: undefined, modem, carrier: false, sawData: false });
    }
  }

  private start(s: Signal): void {
    this.signal = s;
    this.carrierIfHeard(s);
  }

  private carrierIfHeard(s: Signal): void {
    if (s.carrier) return;
    const modem = s.dataType === 'v21' ? 'v21' : s.modem;
    if (modem && this.heard(modem, 'carrier')) {
      s.carrier = true;
      this.emit({ kind: 'carrier', on: true });
    }
  }

  private data(p: Extract<IfpPacket, { type: 't30-data' }>): void {
    const rate = bitRateOf(p.dataType);
    if (rate === undefined || p.dataType.startsWith('v33')) return; // V.8/V.33/V.34: not a T.30 modem here
    this.lastIndicator = undefined;
    const modem: ModemSpec | 'v21' = p.dataType === 'v21' ? 'v21' : modemOfDataType(p.dataType);
    let s = this.signal;
    if (s && ((s.dataType !== undefined && s.dataType !== p.dataType) || (s.dataType === undefined && dataTypeFor(s.modem!) !== p.dataType))) {
      this.endSignal(); // a different modulation: the old signal is over, its end lost
      s = undefined;
    }
    if (!s) {
      s = { dataType: p.dataType, modem: modem === 'v21' ? undefined : modem, carrier: false, sawData: false };
      this.signal = s;
    }
    s.dataType = p.dataType;
    s.sawData = true;
    this.carrierIfHeard(s);
    const hdlcHeard = this.heard(modem, 'image-hdlc');
    const imageHeard = modem !== 'v21' && this.heard(modem, 'image');
    for (const f of p.fields) {
      switch (f.type) {
        case 'hdlc-data':
          if (!hdlcHeard) break;
          if (f.data) this.append(f.data);
          break;
        case 'hdlc-fcs-OK':
        case 'hdlc-fcs-BAD':
        case 'hdlc-fcs-OK-sig-end':
        case 'hdlc-fcs-BAD-sig-end':
          if (hdlcHeard) {
            if (f.data) this.append(f.data);
            this.endFrame(f.type === 'hdlc-fcs-OK' || f.type === 'hdlc-fcs-OK-sig-end');
          } else this.stats.unheard++;
          if (f.type.endsWith('sig-end')) this.endSignal();
          break;
        case 'hdlc-sig-end':
          this.endSignal();
          break;
        case 't4-non-ecm-data':
        case 't4-non-ecm-sig-end':
          if (imageHeard) {
            this.imageOpen = true;
            if (f.data) {
              this.stats.imageBytes += f.data.length;
              this.gatherImage(f.data);
            }
          } else this.stats.unheard++;
          if (f.type === 't4-non-ecm-sig-end') this.endSignal();
          break;
        default:
          break; // cm/jm/ci/v34rate: V.8/V.34 only
      }
    }
  }

  /** Every event but gathered image data: what was gathered goes first, so the order holds. */
  private emit(event: FrontEndEvent): void {
    this.flushImage();
    this.opts.emit(event);
  }

  /** Adds a packet's image data to what is handed over at the end of this delivery. */
  private gatherImage(data: Uint8Array): void {
    if (data.length === 0) return;
    if (this.imageLen + data.length > IMAGE_CHUNK) this.flushImage();
    if (this.imageLen === 0) {
      this.image = data; // alone, it goes as it came
      this.imageCopied = false;
    } else {
      if (!this.imageCopied) {
        const first = this.image!;
        this.image = new Uint8Array(IMAGE_CHUNK);
        this.image.set(first);
        this.imageCopied = true;
      }
      this.image!.set(data, this.imageLen);
    }
    this.imageLen += data.length;
    if (!this.flushQueued) {
      this.flushQueued = true;
      queueMicrotask(this.flushLater);
    }
  }

  /** Hands over the image data gathered so far. */
  private flushImage(): void {
    if (this.imageLen === 0) return;
    const data = this.imageCopied ? this.image!.subarray(0, this.imageLen) : this.image!;
    this.image = null;
    this.imageLen = 0;
    this.opts.emit({ kind: 'image-data', data });
  }

  /** Adds IFP octets to the frame, bit-reversed into T.30's order (first bit in bit 0). */
  private append(wire: Uint8Array): void {
    const room = this.opts.maxFrame - this.frameLen;
    const bytes = wire.length > room ? wire.subarray(0, room) : wire;
    if (wire.length > room) this.frameBad = true;
    const n = bytes.length;
    if (this.frameLen + n > this.frame.length) {
      const next = new Uint8Array(Math.min(this.opts.maxFrame, Math.max(this.frame.length * 2, this.frameLen + n)));
      next.set(this.frame.subarray(0, this.frameLen));
      this.frame = next;
    }
    reverseBitsInto(bytes, this.frame, this.frameLen);
    this.frameLen += n;
  }

  private endFrame(fcsOk: boolean): void {
    if (this.frameLen === 0) {
      this.frameBad = false;
      return;
    }
    const crcOk = fcsOk && !this.frameBad;
    const frame = this.slab.take(this.frameLen);
    frame.set(this.frame.subarray(0, this.frameLen));
    this.frameLen = 0;
    this.frameBad = false;
    if (crcOk) this.stats.framesOk++;
    else this.stats.framesBad++;
    this.emit({ kind: 'hdlc', frame, crcOk });
  }
}

/** Each data type's modem, worked out once (every image packet asks). */
const MODEM_OF_DATA_TYPE = new Map<T38DataType, Readonly<ModemSpec>>();

function modemOfDataType(t: T38DataType): Readonly<ModemSpec> {
  let modem = MODEM_OF_DATA_TYPE.get(t);
  if (!modem) {
    const m = /^v(27|29|17)-(\d+)$/.exec(t)!;
    // Not frozen: a frozen object has a map of its own, and the code comparing modems would see two.
    modem = { modulation: m[1] === '27' ? 'v27ter' : m[1] === '29' ? 'v29' : 'v17', bitRate: Number(m[2]) as ModemSpec['bitRate'] };
    MODEM_OF_DATA_TYPE.set(t, modem);
  }
  return modem;
}
