// What a received IFP packet means to T.30: indicators become tones and carrier changes, HDLC
// fields are put back together into frames (crcOk from the fcs-OK/fcs-BAD field, as T.38
// carries the FCS verdict, not the FCS), t4-non-ecm fields become image data. Loss reported
// by UDPTL marks the frame in progress bad, so no frame is ever passed on with a hole in it.
import type { FrontEndEvent } from '../../t30/index.js';
import type { IfpPacket, T38DataType, T38Indicator } from './ifp.js';
import { bitRateOf, modemOfIndicator } from './modems.js';

export interface RxEventsOptions {
  emit: (event: FrontEndEvent) => void;
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
}

export class RxEvents {
  readonly stats: RxEventsStats = { framesOk: 0, framesBad: 0, imageBytes: 0 };
  /** A signal (V.21 flags or a trained high-speed modem) is on. */
  private carrier = false;
  private signalType: T38DataType | undefined;
  private lastIndicator: T38Indicator | undefined;
  /** High-speed training seen and no data since (for localTCF). */
  private trainedRate = 0;
  private sawData = false;
  private imageOpen = false;
  private frame: Uint8Array;
  private frameLen = 0;
  private frameBad = false;

  constructor(private readonly opts: RxEventsOptions) {
    this.frame = new Uint8Array(Math.min(opts.maxFrame, 512));
  }

  /** True while a signal is on (for the caller's signal timeout). */
  get signalOn(): boolean {
    return this.carrier || this.imageOpen;
  }

  /** UDPTL gave up packets: whatever frame is being put together has a hole. */
  gap(): void {
    this.frameBad = true;
  }

  handle(p: IfpPacket): void {
    if (p.type === 't30-indicator') this.indicator(p.indicator);
    else this.data(p);
  }

  /** The signal ended without its end marker arriving (indicator lost, timeout). */
  endSignal(): void {
    const e = this.opts.emit;
    if (this.imageOpen) {
      this.imageOpen = false;
      e({ kind: 'image-end' });
    } else if (this.opts.localTcf && this.trainedRate > 0 && !this.sawData) {
      // T.38 Annex D localTCF: no TCF crosses the network; the receiving side stands in for it.
      const n = Math.round((this.trainedRate * this.opts.tcfMs) / 8000);
      this.stats.imageBytes += n;
      e({ kind: 'image-data', data: new Uint8Array(n) });
      e({ kind: 'image-end' });
    }
    this.trainedRate = 0;
    this.sawData = false;
    this.frameLen = 0;
    this.frameBad = false;
    this.signalType = undefined;
    if (this.carrier) {
      this.carrier = false;
      e({ kind: 'carrier', on: false });
    }
  }

  private indicator(ind: T38Indicator): void {
    // Peers repeat indicators on purpose (T.38 leaves their number to the sender): the first counts.
    if (ind === this.lastIndicator) return;
    this.lastIndicator = ind;
    this.endSignal();
    if (ind === 'cng' || ind === 'ced') {
      this.opts.emit({ kind: 'tone', tone: ind });
      return;
    }
    if (ind === 'v21-preamble') this.carrierOn('v21');
    else {
      const modem = modemOfIndicator(ind);
      if (!modem) return; // no-signal, or V.8/V.33/V.34 signals T.30 here does not use
      this.trainedRate = modem.bitRate;
      this.carrierOn(undefined);
    }
  }

  private carrierOn(type: T38DataType | undefined): void {
    this.signalType = type;
    this.carrier = true;
    this.opts.emit({ kind: 'carrier', on: true });
  }

  private data(p: Extract<IfpPacket, { type: 't30-data' }>): void {
    if (bitRateOf(p.dataType) === undefined) return; // V.8/V.34 data: not a T.30 signal we use
    this.lastIndicator = undefined;
    if (this.carrier && this.signalType !== undefined && this.signalType !== p.dataType) this.endSignal();
    if (!this.carrier) this.carrierOn(p.dataType);
    this.signalType = p.dataType;
    this.sawData = true;
    const e = this.opts.emit;
    for (const f of p.fields) {
      switch (f.type) {
        case 'hdlc-data':
          if (f.data) this.append(f.data);
          break;
        case 'hdlc-fcs-OK':
        case 'hdlc-fcs-BAD':
        case 'hdlc-fcs-OK-sig-end':
        case 'hdlc-fcs-BAD-sig-end':
          if (f.data) this.append(f.data);
          this.endFrame(f.type === 'hdlc-fcs-OK' || f.type === 'hdlc-fcs-OK-sig-end');
          if (f.type.endsWith('sig-end')) this.endSignal();
          break;
        case 'hdlc-sig-end':
          this.endSignal();
          break;
        case 't4-non-ecm-data':
        case 't4-non-ecm-sig-end':
          this.imageOpen = true;
          if (f.data) {
            this.stats.imageBytes += f.data.length;
            e({ kind: 'image-data', data: f.data });
          }
          if (f.type === 't4-non-ecm-sig-end') this.endSignal();
          break;
        default:
          break; // cm/jm/ci/v34rate: V.8/V.34 only
      }
    }
  }

  private append(bytes: Uint8Array): void {
    const room = this.opts.maxFrame - this.frameLen;
    if (bytes.length > room) this.frameBad = true;
    const n = Math.min(room, bytes.length);
    if (this.frameLen + n > this.frame.length) {
      const next = new Uint8Array(Math.min(this.opts.maxFrame, Math.max(this.frame.length * 2, this.frameLen + n)));
      next.set(this.frame.subarray(0, this.frameLen));
      this.frame = next;
    }
    this.frame.set(bytes.subarray(0, n), this.frameLen);
    this.frameLen += n;
  }

  private endFrame(fcsOk: boolean): void {
    if (this.frameLen === 0) {
      this.frameBad = false;
      return;
    }
    const crcOk = fcsOk && !this.frameBad;
    const frame = this.frame.slice(0, this.frameLen);
    this.frameLen = 0;
    this.frameBad = false;
    if (crcOk) this.stats.framesOk++;
    else this.stats.framesBad++;
    this.opts.emit({ kind: 'hdlc', frame, crcOk });
  }
}
