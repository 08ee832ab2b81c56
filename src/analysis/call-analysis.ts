// Reads the line events of a capture as one T.30 call: names every frame and what it says,
// follows the mode the last DCS (or CTC) set, measures the TCF that follows a DCS the way the
// receiver does (T.30 5.3.6.2.4: the longest run of zeros must last a second), decodes each
// non-ECM page from its image data, and puts ECM pages back together from their FCD frames by
// page, block and frame number (ecm-pages.ts).
// Mono captures say nothing of who sent what: frames are attributed by their meaning.
import { CodecError, createMHDecoder, createMMRDecoder, createMRDecoder, type Bitmap, type DecodedPage } from '../codecs/index.js';
import {
  decodeCtc,
  decodeDcs,
  decodeFcf,
  decodeDis,
  decodeIdent,
  decodeNsf,
  parseFrame,
  RESOLUTIONS,
  widthPixels,
  type Coding,
  type Dcs,
  type ModemSpec,
  type PostMessage,
} from '../t30/index.js';
import { EcmPages, type EcmPageData } from './ecm-pages.js';
import { capabilitiesText, hex, modemText, modeText, pprCount } from './describe.js';
import type { BurstEvent, HeardFrame, LineEvent, Side, Source } from './line-events.js';

export type ReportEntry =
  | { kind: 'tone'; atMs: number; from: Side; tone: 'CNG' | 'CED' | 'ANSam'; durationMs?: number }
  | { kind: 'frame'; atMs: number; from: Side; name: string; crcOk: boolean; modem: 'v21' | ModemSpec; detail: string; hex: string }
  | {
      kind: 'tcf';
      atMs: number;
      from: Side;
      modem: ModemSpec;
      training?: 'long' | 'short';
      trained: boolean;
      /** Undefined when no TCF data crossed (T.38 local TCF). */
      measured?: { durationMs: number; longestZeroRunMs: number; errors: number; bits: number; ok: boolean };
    }
  | { kind: 'training-failed'; atMs: number; from: Side; modem: ModemSpec }
  | { kind: 'page'; atMs: number; from: Side; page: AnalyzedPage }
  | { kind: 'note'; atMs: number; from?: Side; text: string };

export interface AnalyzedPage {
  /** 1-based, in the order the pages ended. */
  index: number;
  modem: ModemSpec;
  training?: 'long' | 'short';
  ecm: boolean;
  coding: Coding;
  xDpi: number;
  yDpi: number;
  width: number;
  /** Undefined when nothing could be decoded. */
  bitmap?: Bitmap;
  height: number;
  badRows: number;
  /** ECM: frames never received (holes in the page). */
  missingFrames: number;
  /** ECM: frames received in all, bad FCS ones excluded. */
  frames?: number;
  /** Why decoding stopped early or failed, if it did. */
  error?: string;
}

export interface CallAnalysis {
  entries: ReportEntry[];
  pages: AnalyzedPage[];
  /** The last DCS, and whether a CFR accepted it. */
  mode?: { dcs: Dcs; text: string; confirmed: boolean };
  idents: { caller?: string; answerer?: string };
  frames: { ok: number; bad: number };
}

/** Fewer bits than this are no page (an EOL and RTC alone take 84). */
const MIN_PAGE_BITS = 256;

const other = (s: Side): Side => (s === 'caller' ? 'answerer' : 'caller');

/** Who sends each frame when the capture does not say: by the frame's place in T.30. */
const CALLED_FRAMES = new Set(['DIS', 'CSI', 'NSF']);
const CALLING_FRAMES = new Set(['DTC', 'CIG', 'NSC']);
const RECEIVER_FRAMES = new Set(['CFR', 'FTT', 'CTR', 'CSA', 'MCF', 'RTP', 'RTN', 'PIP', 'PIN', 'PPR', 'RNR', 'ERR', 'FDM']);

export function analyzeCall(events: readonly LineEvent[]): CallAnalysis {
  return new CallReader().read(events);
}

class CallReader {
  private readonly entries: ReportEntry[] = [];
  private readonly pages: AnalyzedPage[] = [];
  private readonly idents: CallAnalysis['idents'] = {};
  private readonly counts = { ok: 0, bad: 0 };
  private dcs: Dcs | undefined;
  /** Who sent the last DCS (known in stereo and T.38 captures). */
  private dcsFrom: Side | undefined;
  private echoNoted = false;
  private confirmed = false;
  private expectTcf = false;
  /** Mono: the last of DIS/DTC was a DTC (polling: the answerer transmits). */
  private polling = false;
  private lastFrom: Side = 'caller';
  private readonly ecm = new EcmPages();

  read(events: readonly LineEvent[]): CallAnalysis {
    const sorted = withoutEchoes([...events].sort((a, b) => a.atMs - b.atMs));
    for (const ev of sorted) {
      if (ev.kind === 'tone') this.tone(ev);
      else if (ev.kind === 'frame') this.frame(ev, this.sideOfFrame(ev), 'v21');
      else this.burst(ev);
    }
    this.flushEcm(sorted.length ? sorted[sorted.length - 1]!.atMs : 0);
    this.entries.sort((a, b) => a.atMs - b.atMs);
    return {
      entries: this.entries,
      pages: this.pages,
      ...(this.dcs ? { mode: { dcs: this.dcs, text: modeText(this.dcs), confirmed: this.confirmed } } : {}),
      idents: this.idents,
      frames: this.counts,
    };
  }

  private transmitter(): Side {
    return this.polling ? 'answerer' : 'caller';
  }

  private sideOf(source: Source, fallback: Side): Side {
    return source === 'mixed' ? fallback : source;
  }

  private sideOfFrame(ev: HeardFrame & { source: Source }): Side {
    if (ev.source !== 'mixed') return ev.source;
    const name = parseFrame(ev.frame)?.name;
    if (!name) return other(this.lastFrom);
    if (CALLED_FRAMES.has(name)) return 'answerer';
    if (CALLING_FRAMES.has(name)) return 'caller';
    if (RECEIVER_FRAMES.has(name)) return other(this.transmitter());
    if (name === 'CRP') return other(this.lastFrom);
    return this.transmitter();
  }

  private tone(ev: Extract<LineEvent, { kind: 'tone' }>): void {
    const from = this.sideOf(ev.source, ev.tone === 'CNG' ? 'caller' : 'answerer');
    this.entries.push({ kind: 'tone', atMs: ev.atMs, from, tone: ev.tone, ...(ev.durationMs === undefined ? {} : { durationMs: ev.durationMs }) });
  }

  private frame(ev: HeardFrame, from: Side, modem: 'v21' | ModemSpec): void {
    const f = parseFrame(ev.frame);
    const name = f ? (f.name ?? `FCF 0x${f.fcf.toString(16).padStart(2, '0')}`) : 'not a T.30 frame';
    if (ev.crcOk) this.counts.ok++;
    else this.counts.bad++;
    this.lastFrom = from;
    let detail = '';
    if (f && ev.crcOk) detail = this.understand(f.name, f.info, ev.atMs, from);
    else if (!ev.crcOk) detail = 'bad FCS';
    this.entries.push({ kind: 'frame', atMs: ev.atMs, from, name, crcOk: ev.crcOk, modem, detail, hex: hex(ev.frame) });
  }

  /** Follows the call through one good frame; returns what the frame says. */
  private understand(name: string | undefined, info: Uint8Array, atMs: number, from: Side): string {
    switch (name) {
      case 'DIS':
      case 'DTC':
        this.polling = name === 'DTC';
        return info.length >= 2 ? capabilitiesText(decodeDis(info)) : 'FIF too short';
      case 'CSI':
      case 'TSI':
      case 'CIG': {
        const id = decodeIdent(info);
        if (name === 'CSI') this.idents.answerer = id;
        else if (name === 'TSI') this.idents.caller = id;
        else this.idents.caller ??= id;
        return JSON.stringify(id);
      }
      case 'SUB':
      case 'SID':
      case 'PWD':
        return JSON.stringify(decodeIdent(info));
      case 'NSF':
      case 'NSS':
      case 'NSC': {
        const nsf = decodeNsf(info);
        return nsf ? `country code 0x${nsf.countryCode.toString(16).padStart(2, '0')}, ${nsf.data.length} octets` : 'empty';
      }
      case 'DCS': {
        const d = decodeDcs(info);
        if (!d.ok) return `unreadable: ${d.reason}`;
        this.flushEcm(atMs);
        this.dcs = d.dcs;
        this.dcsFrom = from;
        this.confirmed = false;
        this.expectTcf = true;
        return modeText(d.dcs);
      }
      case 'CFR':
        this.expectTcf = false;
        this.confirmed = this.dcs !== undefined;
        return '';
      case 'FTT':
        this.expectTcf = false;
        return 'training rejected';
      case 'CTC': {
        const modem = decodeCtc(info);
        if (!modem || !this.dcs) return modem ? modemText(modem) : 'unreadable';
        this.dcs = { ...this.dcs, modem };
        return modemText(modem);
      }
      case 'PPS': {
        const pps = parsePps(info);
        if (!pps) return 'unreadable';
        const { good: got, bad } = this.ecm.heard;
        if (this.dcs) this.ecmPagesDone(this.ecm.blockEnds(pps.page, pps.block, pps.frames, pps.fcf2, atMs, from, this.dcs));
        return `${pps.fcf2 === 'NULL' ? 'NULL' : pps.fcf2}, page ${pps.page}, block ${pps.block}, ${pps.frames} frames (${got} received${bad ? `, ${bad} bad` : ''})`;
      }
      case 'EOR': {
        const q = parseEor(info);
        if (q && q !== 'NULL') this.flushEcm(atMs);
        return q ?? 'unreadable';
      }
      case 'PPR': {
        const n = pprCount(info);
        return `${n} frame${n === 1 ? '' : 's'} to send again`;
      }
      case 'MCF':
        this.ecmPagesDone(this.ecm.confirmed());
        return '';
      case 'DCN':
        this.flushEcm(atMs);
        return '';
      default:
        return '';
    }
  }

  private burst(b: BurstEvent): void {
    const from = this.sideOf(b.source, this.transmitter());
    if (b.source !== 'mixed' && this.dcsFrom !== undefined && b.source !== this.dcsFrom) {
      // Only the side that sent the DCS sends high-speed signals: this is its echo on the other channel.
      if (!this.echoNoted) this.entries.push({ kind: 'note', atMs: b.atMs, from, text: `${modemText(b.modem)} signal on the ${b.source}'s channel too (echo?): ignored` });
      this.echoNoted = true;
      return;
    }
    if (!this.dcs) {
      this.entries.push({ kind: 'note', atMs: b.atMs, from, text: `${modemText(b.modem)} burst before any DCS: ignored` });
      return;
    }
    if (this.expectTcf) {
      this.expectTcf = false;
      this.entries.push({ kind: 'tcf', atMs: b.atMs, from, modem: b.modem, ...(b.training ? { training: b.training } : {}), trained: b.trained, ...(b.trained && (b.bits > 0 || b.frames.length > 0) ? { measured: measureTcf(b) } : {}) });
      return;
    }
    if (!b.trained) {
      this.entries.push({ kind: 'training-failed', atMs: b.atMs, from, modem: b.modem });
      return;
    }
    if (this.dcs.ecm) this.ecm.burst(b);
    else if (b.bits < MIN_PAGE_BITS) this.entries.push({ kind: 'note', atMs: b.atMs, from, text: `${modemText(b.modem)} burst of ${b.bits} bits: too short for a page` });
    else this.nonEcmPage(b, from, this.dcs);
  }

  // ------------------------------------------------------------------------------ non-ECM

  private nonEcmPage(b: BurstEvent, from: Side, dcs: Dcs): void {
    const page = this.decode(dcs, b, [b.data], false);
    if (b.lostPackets) page.error = `${b.lostPackets} T.38 packet(s) lost in the page`;
    this.entries.push({ kind: 'page', atMs: b.atMs, from, page });
  }

  private decode(dcs: Dcs, b: { modem: ModemSpec; training?: 'long' | 'short' }, data: Uint8Array[], ecm: boolean): AnalyzedPage {
    const width = widthPixels(dcs.width, dcs.resolution);
    const res = RESOLUTIONS[dcs.resolution];
    const page: AnalyzedPage = {
      index: this.pages.length + 1,
      modem: b.modem,
      ...(b.training ? { training: b.training } : {}),
      ecm,
      coding: dcs.coding,
      xDpi: res.xDpi,
      yDpi: res.yDpi,
      width,
      height: 0,
      badRows: 0,
      missingFrames: 0,
    };
    let d: DecodedPage | undefined;
    try {
      d = decodeCoded(data, dcs.coding, width);
    } catch (err) {
      if (!(err instanceof CodecError)) throw err;
      page.error = `${dcs.coding.toUpperCase()} data does not decode after row ${err.line}: ${err.message}`;
      // Keep the rows before the damage (MMR cannot resynchronise; a hole ends the page there).
      if (err.line > 0) d = decodeCoded(data, dcs.coding, width, err.line);
    }
    if (d) {
      page.height = d.height;
      page.badRows = d.badLines;
      if (d.height > 0) page.bitmap = { width: d.width, height: d.height, stride: d.stride, data: d.data };
      else page.error ??= 'no image data decoded';
    }
    this.pages.push(page);
    return page;
  }

  // ------------------------------------------------------------------------------ ECM

  private ecmPagesDone(done: EcmPageData[]): void {
    for (const p of done) {
      const page = this.decode(p.dcs, p, [p.data], true);
      page.missingFrames = p.missingFrames;
      page.frames = p.frames;
      if (p.missingFrames && !page.error) page.error = `${p.missingFrames} frame(s) missing`;
      this.entries.push({ kind: 'page', atMs: p.atMs, from: p.from, page });
    }
  }

  /** Puts together whatever ECM pages are open (a new DCS, DCN, the end of the capture). */
  private flushEcm(atMs: number): void {
    const { pages, orphans } = this.ecm.flush(atMs, this.transmitter(), this.dcs);
    if (orphans) this.entries.push({ kind: 'note', atMs, text: `${orphans} ECM frame(s) with no PPS after them` });
    this.ecmPagesDone(pages);
  }
}

/** Identical frames on both channels this close together are one frame and its echo. */
const ECHO_MS = 150;

/**
 * Stereo captures of a line with echo hear each frame and tone on both channels. Keeps the copy
 * on the channel of the side that sends such a signal (by its place in T.30), else the earlier one.
 */
function withoutEchoes(events: LineEvent[]): LineEvent[] {
  const dropped = new Set<LineEvent>();
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (e.kind === 'tone' && e.source !== 'mixed') {
      // A tone is the called side's (CED, ANSam) or the calling side's (CNG): its echo is not.
      if (e.source !== (e.tone === 'CNG' ? 'caller' : 'answerer') && events.some((o) => o.kind === 'tone' && o.tone === e.tone && o.source !== e.source && Math.abs(o.atMs - e.atMs) <= ECHO_MS)) dropped.add(e);
      continue;
    }
    if (e.kind !== 'frame' || e.source === 'mixed') continue;
    for (let j = i - 1; j >= 0 && events[j]!.atMs >= e.atMs - ECHO_MS; j--) {
      const o = events[j]!;
      if (o.kind !== 'frame' || o.source === e.source || o.source === 'mixed' || dropped.has(o) || !sameBytes(o.frame, e.frame)) continue;
      const name = parseFrame(e.frame)?.name;
      const sender = name === undefined ? undefined : CALLED_FRAMES.has(name) || RECEIVER_FRAMES.has(name) ? 'answerer' : name === 'DCN' || name === 'CRP' ? undefined : 'caller';
      dropped.add(sender === e.source ? o : e);
      break;
    }
  }
  return dropped.size ? events.filter((e) => !dropped.has(e)) : events;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** Decodes a page (`height` rows when given); T.4 rows that do not decode repeat the one above. */
function decodeCoded(data: readonly Uint8Array[], coding: Coding, width: number, height?: number): DecodedPage {
  const opts = { width, ...(height === undefined ? {} : { height }) };
  const d = coding === 'mmr' ? createMMRDecoder(opts) : (coding === 'mr' ? createMRDecoder : createMHDecoder)({ ...opts, badLines: 'repeat' });
  for (const chunk of data) {
    if (d.done) break;
    d.push(chunk);
  }
  return d.end();
}

const POST_MESSAGES: ReadonlySet<string> = new Set(['NULL', 'MPS', 'EOP', 'EOM', 'PRI_MPS', 'PRI_EOP', 'PRI_EOM']);

function postMessage(octet: number | undefined): PostMessage | undefined {
  const name = octet === undefined ? undefined : decodeFcf(octet).name;
  return name && POST_MESSAGES.has(name) ? (name as PostMessage) : undefined;
}

/** PPS FIF: FCF2, page counter, block counter, frames − 1 (T.30 5.3.6.2.11). */
function parsePps(info: Uint8Array): { fcf2: PostMessage; page: number; block: number; frames: number } | undefined {
  const fcf2 = postMessage(info[0]);
  return fcf2 && info.length >= 4 ? { fcf2, page: info[1]!, block: info[2]!, frames: info[3]! + 1 } : undefined;
}

/** EOR FIF: FCF2. */
function parseEor(info: Uint8Array): PostMessage | undefined {
  return postMessage(info[0]);
}

/**
 * T.30's TCF check over a burst's bits: the longest run of zeros must last a second. The TCF is
 * taken from its first zero to the end of its last long run of zeros (what a modem delivers after
 * that is its shutdown sequence); the ones inside are the errors.
 */
export function measureTcf(b: Pick<BurstEvent, 'data' | 'bits' | 'modem'>): { durationMs: number; longestZeroRunMs: number; errors: number; bits: number; ok: boolean } {
  const bit = (i: number) => (b.data[i >>> 3]! >>> (7 - (i & 7))) & 1;
  let first = -1;
  let end = 0;
  let run = 0;
  let best = 0;
  for (let i = 0; i < b.bits; i++) {
    if (bit(i)) {
      run = 0;
      continue;
    }
    if (first < 0) first = i;
    if (++run > best) best = run;
    if (run >= TCF_TAIL_RUN) end = i + 1;
  }
  let errors = 0;
  if (first >= 0) for (let i = first; i < end; i++) errors += bit(i);
  const bits = first >= 0 ? Math.max(0, end - first) : 0;
  const rate = b.modem.bitRate;
  return { durationMs: (bits * 1000) / rate, longestZeroRunMs: (best * 1000) / rate, errors, bits, ok: best >= rate };
}

/** Zeros in a row that still count as TCF at its end (shorter runs after them are modem shutdown). */
const TCF_TAIL_RUN = 64;
