// What a T.38 terminal sends for each T.30 front-end command, as a list of steps: an IFP
// packet (repeated, for the packets whose loss would hurt most) and the line time that passes
// after it. The sequences are those of T.38 terminals (spandsp's among them): an indicator
// announces each signal, HDLC frames travel as hdlc-data chunks closed by hdlc-fcs-OK (the FCS
// itself is not carried), the last frame by hdlc-fcs-OK-sig-end; TCF and non-ECM pages as
// t4-non-ecm-data closed by t4-non-ecm-sig-end; every signal ends with a no-signal indicator.
// HDLC octets are bit-reversed on the way into IFP; image data goes as it is (both are first
// bit in bit 7 in IFP, as the front-end contract spells out).
import { reverseBitsInto } from '../../codecs/index.js';
import { ByteSlab } from '../../shared/byte-slab.js';
import type { FrontEndCommand, ModemSpec } from '../../t30/index.js';
import type { IfpField, IfpPacket, T38DataType, T38Indicator } from './ifp.js';
import { CED_MS, CNG_MS, dataTypeFor, HS_HDLC_FLAGS_MS, trainingIndicator, trainingMs, V21_PREAMBLE_MS } from './modems.js';

export interface TxStep {
  ifp?: IfpPacket;
  /** Times the datagram is sent (same UDPTL sequence number: duplicates to the receiver). */
  repeats: number;
  /** Line time after this step before the next one (ms; ignored when not pacing). */
  ms: number;
  /** The command ends the call. */
  hangup?: boolean;
}

export interface TxPlanContext {
  /** Largest field-data per IFP packet that keeps a datagram within the far end's limit. */
  maxChunk: number;
  /** Data per packet when pacing, in ms of line time; 0 means as large as maxChunk allows. */
  packetMs: number;
  indicatorRepeats: number;
  endRepeats: number;
  rateManagement: 'transferredTCF' | 'localTCF';
}

/** Where the bit-reversed copies of HDLC frames are cut from. */
const slab = new ByteSlab();

/** HDLC framing around each frame on the line: 2 FCS octets and a closing flag. */
const HDLC_OVERHEAD = 3;

const indicator = (ind: T38Indicator): IfpPacket => ({ type: 't30-indicator', indicator: ind });
const data = (dataType: T38DataType, fields: IfpField[]): IfpPacket => ({ type: 't30-data', dataType, fields });

function chunkBytes(ctx: TxPlanContext, bitRate: number): number {
  if (ctx.packetMs <= 0) return ctx.maxChunk;
  return Math.max(1, Math.min(ctx.maxChunk, Math.floor((bitRate * ctx.packetMs) / 8000)));
}

const airMs = (bytes: number, bitRate: number) => (bytes * 8000) / bitRate;

/** The steps of one command (none for set-rx, which the front end applies itself). */
export function* planCommand(cmd: FrontEndCommand, ctx: TxPlanContext): Generator<TxStep, void, undefined> {
  switch (cmd.kind) {
    case 'set-rx':
      return;
    case 'send-tone':
      // CNG keeps its cadence until another signal replaces it; CED is one tone, then silence.
      yield { ifp: indicator(cmd.tone), repeats: ctx.indicatorRepeats, ms: cmd.tone === 'ced' ? CED_MS : CNG_MS };
      if (cmd.tone === 'ced') yield { ifp: indicator('no-signal'), repeats: ctx.indicatorRepeats, ms: 0 };
      return;
    case 'send-silence':
      yield { repeats: 0, ms: Math.max(0, cmd.durationMs) };
      return;
    case 'send-hdlc':
      yield* hdlc(cmd.frames, cmd.modem, ctx);
      return;
    case 'send-tcf': {
      const ind = trainingIndicator(cmd.modem);
      if (ctx.rateManagement === 'localTCF') {
        // The receiving gateway makes TCF itself: only the training goes across (T.38 Annex D, T38FaxRateManagement).
        yield { ifp: indicator(ind), repeats: ctx.indicatorRepeats, ms: trainingMs(ind) + Math.max(0, cmd.durationMs) };
        yield { ifp: indicator('no-signal'), repeats: ctx.indicatorRepeats, ms: 0 };
        return;
      }
      const bytes = Math.round((cmd.modem.bitRate * Math.max(0, cmd.durationMs)) / 8000);
      yield* nonEcm(cmd.modem, new Uint8Array(bytes), ctx);
      return;
    }
    case 'send-image':
      yield* nonEcm(cmd.modem, cmd.data, ctx);
      return;
    case 'hangup':
      yield { repeats: 0, ms: 0, hangup: true };
      return;
  }
}

function* hdlc(frames: Uint8Array[], modem: 'v21' | ModemSpec, ctx: TxPlanContext): Generator<TxStep, void, undefined> {
  const v21 = modem === 'v21';
  const ind = v21 ? 'v21-preamble' : trainingIndicator(modem);
  const dataType = dataTypeFor(modem);
  const bitRate = v21 ? 300 : modem.bitRate;
  const size = chunkBytes(ctx, bitRate);
  yield { ifp: indicator(ind), repeats: ctx.indicatorRepeats, ms: v21 ? V21_PREAMBLE_MS : trainingMs(ind) + HS_HDLC_FLAGS_MS };
  const sent = frames.filter((f) => f.length > 0);
  for (let i = 0; i < sent.length; i++) {
    // T.30 writes frame octets first bit in bit 0; IFP carries the first bit in bit 7 (src/t30/front-end.ts).
    const frame = reverseBitsInto(sent[i]!, slab.take(sent[i]!.length), 0);
    const final = i === sent.length - 1;
    for (let at = 0; at < frame.length; at += size) {
      const chunk = frame.subarray(at, Math.min(frame.length, at + size));
      const fields: IfpField[] = [{ type: 'hdlc-data', data: chunk }];
      const last = at + size >= frame.length;
      // The frame's end goes with its last octets, so one lost packet cannot split them.
      if (last) fields.push({ type: final ? 'hdlc-fcs-OK-sig-end' : 'hdlc-fcs-OK' });
      yield { ifp: data(dataType, fields), repeats: last && final ? ctx.endRepeats : 1, ms: airMs(chunk.length + (last ? HDLC_OVERHEAD : 0), bitRate) };
    }
  }
  if (sent.length === 0) yield { ifp: data(dataType, [{ type: 'hdlc-sig-end' }]), repeats: ctx.endRepeats, ms: 0 };
  yield { ifp: indicator('no-signal'), repeats: ctx.indicatorRepeats, ms: 0 };
}

function* nonEcm(modem: ModemSpec, bytes: Uint8Array, ctx: TxPlanContext): Generator<TxStep, void, undefined> {
  const ind = trainingIndicator(modem);
  const dataType = dataTypeFor(modem);
  const size = chunkBytes(ctx, modem.bitRate);
  yield { ifp: indicator(ind), repeats: ctx.indicatorRepeats, ms: trainingMs(ind) };
  if (bytes.length === 0) {
    yield { ifp: data(dataType, [{ type: 't4-non-ecm-sig-end' }]), repeats: ctx.endRepeats, ms: 0 };
  }
  for (let at = 0; at < bytes.length; at += size) {
    const chunk = bytes.subarray(at, Math.min(bytes.length, at + size));
    const last = at + size >= bytes.length;
    yield {
      ifp: data(dataType, [{ type: last ? 't4-non-ecm-sig-end' : 't4-non-ecm-data', data: chunk }]),
      repeats: last ? ctx.endRepeats : 1,
      ms: airMs(chunk.length, modem.bitRate),
    };
  }
  yield { ifp: indicator('no-signal'), repeats: ctx.indicatorRepeats, ms: 0 };
}

/**
 * Largest field-data per IFP packet so that a datagram with `copies` IFP packets (the primary
 * and its redundant copies or FEC entries) stays within maxDatagram octets. An IFP data packet
 * carries at most 6 octets besides the data (type, count, field header, 2-octet length, a
 * trailing field without data); each open type adds a length of up to 2 octets; the UDPTL
 * packet adds 2 octets of seq-number and up to 4 of error-recovery header.
 */
export function maxChunkFor(maxDatagram: number, copies: number): number {
  return Math.floor((maxDatagram - 6) / copies) - 2 - 6;
}
