// The T.30 machine's inputs, outputs, configuration and state (see machine.ts for the step
// function). States are named after the places of the T.30 flow charts, as spandsp names them.

import type { Bitmap } from '../codecs/index.js';
import type { Completion } from './completion.js';
import type { Dis } from './dis.js';
import type { ParsedFrame, PostMessage } from './fcf.js';
import type { FrontEndCommand, FrontEndEvent } from './front-end.js';
import type { NonStandardFacilities } from './ident.js';
import type { Coding, ModemSupport, PaperWidth, RateStep, RecordingLength, Resolution, ScanLineTimes } from './modes.js';
import type { PageFormats, T30Params } from './negotiate.js';
import type { CopyQuality, SourcePage } from './page-coding.js';
import type { Pps } from './ecm.js';
import type { TcfCount } from './tcf.js';

export type Role = 'caller' | 'answerer';
/** T.30 phases: A call set-up, B pre-message, C message, D post-message, E release. */
export type Phase = 'A' | 'B' | 'C' | 'D' | 'E';

export type StateName =
  | 'IDLE'
  | 'ANSWERING' // answerer: sending CED
  | 'T' // caller: waiting for DIS
  | 'D' // caller: sending (TSI/SUB/SID) DCS
  | 'D_TCF' // caller: sending TCF
  | 'D_POST_TCF' // caller: waiting for CFR/FTT
  | 'I' // caller: sending a non-ECM page
  | 'II_Q' // caller: MPS/EOP/EOM sent, waiting for MCF/RTP/RTN/PIP/PIN
  | 'IV' // caller: sending an ECM block (FCD… RCP RCP RCP)
  | 'IV_PPS_NULL' // caller: PPS-NULL sent, waiting for MCF/PPR/RNR
  | 'IV_PPS_Q' // caller: PPS-MPS/EOP/EOM sent, waiting for MCF/PPR/RNR
  | 'IV_PPS_RNR' // caller: RR sent after RNR
  | 'IV_CTC' // caller: CTC sent, waiting for CTR
  | 'IV_EOR' // caller: EOR sent, waiting for ERR
  | 'IV_EOR_RNR' // caller: RR sent after RNR to EOR
  | 'R' // answerer: (NSF) (CSI) DIS sent, waiting for DCS
  | 'F_TCF' // answerer: receiving TCF
  | 'F_CFR' // answerer: sending CFR
  | 'F_FTT' // answerer: FTT sent, waiting for a new DCS
  | 'F_DOC_NON_ECM' // answerer: receiving a non-ECM page
  | 'F_POST_DOC_NON_ECM' // answerer: page ended, waiting for MPS/EOP/EOM
  | 'III_Q' // answerer: MCF/RTP/RTN sent after a non-ECM page
  | 'F_DOC_ECM' // answerer: receiving FCD frames
  | 'F_POST_DOC_ECM' // answerer: RCP seen, waiting for PPS
  | 'F_POST_RCP_MCF' // answerer: MCF sent after PPS
  | 'F_POST_RCP_PPR' // answerer: PPR sent after PPS
  | 'F_POST_RCP_RNR' // answerer: RNR sent, waiting for RR
  | 'B' // either: DCN sent, letting it leave before hanging up (phase E)
  | 'CALL_FINISHED';

/** T.30 5.4.3 timers (configurable). */
export type T30TimerName = 'T1' | 'T2' | 'T3' | 'T4' | 'T5';
/**
 * The timers of a call: T.30's, and T2_HOLD, the bound on how long signals may hold T2 in one
 * wait (hold.ts; unnamed in T.30, named as spandsp names its T2_FLAGGED/T2_DROPPED).
 */
export type TimerName = T30TimerName | 'T2_HOLD';

type AppInput =
  | { kind: 'start' }
  /** End the call now (DCN when the line is up); the result is T30_ERR_CALLDROPPED. */
  | { kind: 'abort'; reason?: string }
  /** Receiver flow control (ECM): while not ready, a PPS is answered RNR (T.30 RR/RNR). */
  | { kind: 'rx-ready'; ready: boolean };

export type T30Input = FrontEndEvent | { kind: 'timeout'; timer: TimerName } | AppInput;

/** A page the receiver accepted. */
export interface ReceivedPage {
  /** 0-based, counting the pages accepted in this call. */
  index: number;
  params: T30Params;
  /** As received: T.4/T.6 data, first bit in the MSB of each byte (non-ECM data keeps its fill). */
  data: Uint8Array;
  /**
   * The page ready to store, when decoding is on and it decoded: T.6 (MMR) ending in EOFB (the
   * data as received when it came that way), its height in lines.
   */
  stored?: { data: Uint8Array; height: number };
  /** The decoded page (when `stored` is there): decoded from `stored` on first read. */
  readonly bitmap?: Bitmap;
  /** Lines that did not decode and repeat their predecessor (non-ECM). */
  badLines: number;
  /** Non-ECM copy quality (ECM pages are error free: 'perfect'). */
  quality: CopyQuality;
}

export interface T30Result {
  completion: Completion;
  /** 0 or a transmission code of shared/errors.ts. */
  code: number;
  message: string;
  /** Pages confirmed (transmitter) or accepted (receiver). */
  pages: number;
  /** Where the call was when its outcome was decided. */
  phase: Phase;
  state: StateName;
  remoteIdent?: string;
  /** Receiver: the SUB and SID frames the transmitter sent (inbound routing, sender check). */
  subAddress?: string;
  senderId?: string;
  /** The last mode negotiated. */
  params?: T30Params;
}

export type T30Action =
  | FrontEndCommand
  | { kind: 'start-timer'; timer: TimerName; ms: number }
  | { kind: 'stop-timer'; timer: TimerName }
  | { kind: 'negotiated'; params: T30Params }
  /** Transmitter: page `page` (0-based index in the source) was confirmed (MCF/RTP/PIP). */
  | { kind: 'page-confirmed'; page: number }
  | { kind: 'page-received'; page: ReceivedPage }
  | { kind: 'done'; result: T30Result };

export interface T30Step {
  state: T30State;
  actions: T30Action[];
}

/** Pages to send. `get` may re-render or re-encode: it is asked for the negotiated mode. */
export interface PageSource {
  readonly count: number;
  /** Formats page `index` can be delivered in, best first (default: the caller's `formats`). */
  formats?(index: number): PageFormats;
  /** Page `index` at `params.resolution`, `params.widthPixels` wide. */
  get(index: number, params: T30Params): SourcePage;
}

interface CommonConfig {
  /** Our identification (TSI or CSI): up to 20 printable characters. */
  ident?: string;
  /** Answerer: an NSF FIF to send before CSI/DIS (T.35 country code first), raw. The caller sends no NSS. */
  nsf?: Uint8Array;
  modems?: ModemSupport;
  ecm?: boolean;
  codings?: Coding[];
  timers?: Partial<Record<T30TimerName, number>>;
  /** Times a command is sent before giving up (T.30: 3). */
  maxCommandTries?: number;
}

export interface CallerConfig extends CommonConfig {
  role: 'caller';
  source: PageSource;
  /** Formats of every page unless the source says otherwise (default fine, then standard; A4). */
  formats?: PageFormats;
  /** Highest rate to start at (fallback never goes up). */
  maxBitRate?: number;
  ecmFrameSize?: 256 | 64;
  /** SUB and SID frames, sent when the receiver's DIS offers them (bits 49/50). */
  subAddress?: string;
  senderId?: string;
  /** After RTN/PIN: retrain and send the page again (default), or retrain and go on. */
  onRtn?: 'resend' | 'skip';
  /** Transmissions of one page before giving up (default 3). */
  maxPageTries?: number;
}

export interface AnswererConfig extends CommonConfig {
  role: 'answerer';
  resolutions?: Resolution[];
  widths?: PaperWidth[];
  lengths?: RecordingLength[];
  /** Minimum scan-line times we need (default none). */
  scanLine?: ScanLineTimes;
  /** Decode pages into bitmaps (default true; non-ECM pages are decoded anyway to judge them). */
  decode?: boolean;
  /** Accept pages judged bad (answered RTN) too (default false). */
  keepBadPages?: boolean;
  /** Answer a corrupt command with CRP (default true) instead of waiting for its repetition. */
  crp?: boolean;
}

export type T30Config = CallerConfig | AnswererConfig;

export interface RemoteInfo {
  /** CSI (seen by the caller) or TSI (seen by the answerer). */
  ident?: string;
  nsf?: NonStandardFacilities;
  subAddress?: string;
  senderId?: string;
  password?: string;
  dis?: Dis;
}

/** Received data as an append-only list (O(1) per chunk, nothing shared is mutated). */
export type ChunkList = { readonly chunk: Uint8Array; readonly prev: ChunkList; readonly bytes: number } | null;

/** ECM frames received in a block, newest first (O(1) per frame, nothing shared is mutated). */
export type FrameList = { readonly no: number; readonly payload: Uint8Array; readonly prev: FrameList } | null;

interface TxProgress {
  /** Index in the source of the page in hand. */
  page: number;
  /** That page coded for the current params. */
  coded?: Uint8Array;
  /** Transmissions of this page answered RTN/PIN. */
  tries: number;
  /** The command that follows this page. */
  post?: PostMessage;
  /** ECM: the page's blocks of FCD frames (ecm.ts ecmBlocks), sent again as they are after PPR. */
  blocks?: Uint8Array[][];
  block: number;
  /** ECM: frames of the block still to (re)send. */
  resend: readonly boolean[];
  /** ECM: frames in the last burst. */
  burst: number;
  pprCount: number;
  /** ECM: some frame got through since the last CTC (spandsp sends CTC only then, EOR otherwise). */
  progress: boolean;
  /** The next high-speed transmission needs long training (after TCF/CTC, V.17). */
  longTrain: boolean;
}

export interface RxProgress {
  tcf: TcfCount;
  /** Non-ECM page data, or the ECM blocks of the page accepted so far (MSB-first). */
  chunks: ChunkList;
  /** Image carrier or data seen since the last response. */
  imageSeen: boolean;
  /**
   * While waiting for a page or the command after one (hold.ts): 'on' while a signal other than a
   * trained carrier plays with no command in it yet, 'ended' once such a signal has come and gone —
   * before a page, a page whose training we missed; after one, the rest of a page whose carrier
   * we lost.
   */
  heard: 'quiet' | 'on' | 'ended';
  /** Such a signal is on the line now (it holds T2). */
  lineOn: boolean;
  /** This wait's signals have held T2 as long as they may (T2_HOLD ran out): T2 counts regardless. */
  holdSpent: boolean;
  /** Last post-message command received. */
  next: PostMessage;
  /** Last response to a post-message command. */
  response?: 'MCF' | 'RTP' | 'RTN';
  /** ECM: FCD payloads of the current block (HDLC order). */
  frames: FrameList;
  /** ECM: frames in the current block (0 before its first PPS). */
  blockFrames: number;
  block: number;
  /** ECM: a block of this page was given up (EOR). */
  damaged: boolean;
  /** ECM: a PPS answered RNR, to answer properly once ready. */
  deferred?: Pps;
  /** ECM: the last PPR map sent. */
  ppr?: Uint8Array;
  longTrain: boolean;
}

interface ResolvedCommon {
  ident: string;
  nsf?: Uint8Array;
  modems: ModemSupport;
  ecm: boolean;
  codings: Coding[];
  timers: Record<T30TimerName, number>;
  maxCommandTries: number;
}

export interface ResolvedCaller extends ResolvedCommon {
  role: 'caller';
  source: PageSource;
  formats: PageFormats;
  maxBitRate: number;
  ecmFrameSize: 256 | 64;
  subAddress?: string;
  senderId?: string;
  onRtn: 'resend' | 'skip';
  maxPageTries: number;
}

export interface ResolvedAnswerer extends ResolvedCommon {
  role: 'answerer';
  resolutions: Resolution[];
  widths: PaperWidth[];
  lengths: RecordingLength[];
  scanLine: ScanLineTimes;
  decode: boolean;
  keepBadPages: boolean;
  crp: boolean;
}

/** The whole state of one call; step() never mutates it. */
export interface T30State {
  readonly cfg: ResolvedCaller | ResolvedAnswerer;
  readonly state: StateName;
  readonly phase: Phase;
  /** Our X bit: 1 once we have received a DIS (T.30 5.3.6.1). */
  readonly x: 0 | 1;
  readonly timers: readonly TimerName[];
  /** A transmission is under way; its tx-done moves the state on. */
  readonly awaitingTx: boolean;
  readonly retries: number;
  /** The last command/response sent, for CRP and timeouts. */
  readonly last: readonly Uint8Array[] | undefined;
  readonly remote: RemoteInfo;
  readonly params: T30Params | undefined;
  /** Caller: the rates to try, best first, and where we are in them. */
  readonly rates: readonly RateStep[];
  readonly rateIndex: number;
  /** Pages confirmed (caller) or accepted (answerer). */
  readonly pages: number;
  readonly tx: TxProgress | undefined;
  readonly rx: RxProgress | undefined;
  readonly rxReady: boolean;
  readonly result: T30Result | undefined;
}

/**
 * What a state handler sees: front-end events with the HDLC frames parsed (a corrupt one is
 * 'bad-frame'), carrier on/off and image-end folded into signal start/end.
 */
export type MachineInput =
  | { kind: 'frame'; frame: ParsedFrame }
  | { kind: 'bad-frame' }
  | { kind: 'tx-done' }
  | { kind: 'timeout'; timer: TimerName }
  | { kind: 'image-data'; data: Uint8Array }
  | { kind: 'signal-start' }
  | { kind: 'signal-end' }
  | { kind: 'line-signal'; on: boolean; flags?: boolean }
  | { kind: 'tone'; tone: 'cng' | 'ced' }
  | { kind: 'start' }
  | { kind: 'rx-ready'; ready: boolean };
