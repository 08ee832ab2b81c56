// One fax call over a direct line (direct-line.ts), as `faxstack send`/`receive` and the
// library's sendFax/receiveFax place it: progress as events (phase, negotiated mode, page n of
// N), and the result object of docs/cli.md's `--json` line.
import type { FaxPages } from '../documents/index.js';
import type { T30Params } from '../t30/index.js';
import type { T30Options } from './t30-call.js';
import { ERRORS, outcomeMessage } from '../shared/errors.js';
import { abortReason, receiveOverFrontEnd, sendOverFrontEnd, type ReceivedFax } from './t30-call.js';
import type { DirectLine } from './direct-line.js';
import type { FaxLine } from './line.js';

/** The outcome of one call: docs/cli.md's `--json` line. */
export interface FaxCallResult {
  /** True when every page was delivered (sending) or the call ended normally (receiving). */
  success: boolean;
  /** 0, or a transmission code of the error table (-31xx). */
  code: number;
  /** What happened, in words. */
  message: string;
  /** Pages confirmed by the receiver (sending) or received (receiving). */
  pages: number;
  /** Pages of the fax (sending); pages received (receiving). */
  pagesTotal: number;
  /** Modem rate of the last negotiated mode in bit/s, or null when none was negotiated. */
  bitRate: number | null;
  /** Whether error correction (T.30 Annex A) was used, or null. */
  ecm: boolean | null;
  /** Page coding negotiated: 'MH', 'MR', 'MMR' (or null). */
  compression: string | null;
  /** T.30 resolution name negotiated, e.g. 'fine' (or null). */
  resolution: string | null;
  /** The far end's identification (TSI/CSI), or null. */
  remoteIdent: string | null;
  /** Duration of the whole operation in milliseconds. */
  durationMs: number;
}

/** The mode T.30 agreed with the far end. */
export interface NegotiatedCallMode {
  bitRate: number;
  /** 'V.17', 'V.29', 'V.27ter' … */
  modulation: string;
  ecm: boolean;
  compression: string;
  resolution: string;
  xDpi: number;
  yDpi: number;
}

/** Progress of a call, in the order it happens. */
export type FaxCallEvent =
  | { type: 'phase'; phase: 'dialing' | 'transmitting' | 'waiting' | 'receiving' }
  | { type: 'negotiated'; mode: NegotiatedCallMode }
  /** Sending: page `page` of `pagesTotal` was confirmed by the receiver. Receiving: page `page` arrived (`pagesTotal` null). */
  | { type: 'page'; page: number; pagesTotal: number | null };

interface DirectSendOptions extends T30Options {
  /** Our identification (TSI), normally our number; '' for none. */
  ident?: string;
  signal?: AbortSignal;
  onEvent?: (event: FaxCallEvent) => void;
  /** When the operation started (ms since the epoch; default now): rendering counts in durationMs. */
  startedMs?: number;
}

function negotiatedMode(p: T30Params): NegotiatedCallMode {
  return { bitRate: p.modem.bitRate, modulation: p.modem.modulation, ecm: p.ecm, compression: p.coding, resolution: p.resolution, xDpi: p.xDpi, yDpi: p.yDpi };
}

/** Sends `pages` as one call on an opened line; the line is closed afterwards. */
export async function sendDirect(line: DirectLine, pages: FaxPages, o: DirectSendOptions = {}): Promise<FaxCallResult> {
  const started = o.startedMs ?? Date.now();
  const ident = o.ident ?? '';
  let answered = false;
  const emit = (e: FaxCallEvent) => {
    if (e.type === 'negotiated') answered = true;
    o.onEvent?.(e);
  };
  try {
    const r = await sendOverFrontEnd(
      { jobId: 0, fromNumber: ident, toNumber: '', quality: 'Standard', totalPages: pages.count, firstPage: 1, ident, pages },
      {
        stage: (phase) => emit({ type: 'phase', phase }),
        pageConfirmed: (page) => emit({ type: 'page', page, pagesTotal: pages.count }),
        negotiated: (p) => emit({ type: 'negotiated', mode: negotiatedMode(p) }),
      },
      o.signal ?? new AbortController().signal, line.frontEnd, line.clock,
      { ...(o.ecm !== undefined ? { ecm: o.ecm } : {}), ...(o.maxBitRate !== undefined ? { maxBitRate: o.maxBitRate } : {}) },
    );
    // Stopped before any fax machine answered: that is what happened, not a dropped call.
    return callResult(r, pages, started, !answered && o.signal ? { as: 'NO_FAX_MACHINE', signal: o.signal } : null);
  } finally {
    await line.close();
  }
}

/**
 * Sends `pages` to `toNumber` as one call on any FaxLine (a SIP line: docs/cli.md's `sip:` VIA)
 * and reports it as a direct call does; the caller closes the line.
 */
export async function sendOverLine(line: FaxLine, toNumber: string, pages: FaxPages, o: DirectSendOptions = {}): Promise<FaxCallResult> {
  const started = o.startedMs ?? Date.now();
  const ident = o.ident ?? '';
  let answered = false;
  const r = await line.call(
    { jobId: 0, fromNumber: ident, toNumber, quality: 'Standard', totalPages: pages.count, firstPage: 1, ident, pages, ...(o.ecm === false ? { ecm: false } : {}) },
    {
      stage: (phase) => o.onEvent?.({ type: 'phase', phase }),
      pageConfirmed: (page) => o.onEvent?.({ type: 'page', page, pagesTotal: pages.count }),
      negotiated: (p) => ((answered = true), o.onEvent?.({ type: 'negotiated', mode: negotiatedMode(p) })),
    },
    o.signal ?? new AbortController().signal,
  );
  return callResult(r, pages, started, !answered && o.signal ? { as: 'NO_ANSWER', signal: o.signal } : null);
}

/**
 * The result both kinds of call report. `unanswered`: the call was stopped by this signal before
 * the far end answered, which is reported as that outcome instead of the call's own.
 */
function callResult(
  r: { aborted: boolean; code: number; message: string; lastConfirmedPage: number; detail: { bitRate?: number; ecm?: boolean; compression?: string; resolution?: string; remoteIdent?: string } },
  pages: FaxPages,
  started: number,
  unanswered: { as: 'NO_FAX_MACHINE' | 'NO_ANSWER'; signal: AbortSignal } | null,
): FaxCallResult {
  const d = r.detail;
  const stopped = r.aborted && unanswered !== null;
  const code = stopped ? ERRORS[unanswered.as].code : r.code;
  const message = stopped ? outcomeMessage(unanswered.as, abortReason(unanswered.signal)) : r.message;
  return {
    success: code === 0, code, message, pages: r.lastConfirmedPage, pagesTotal: pages.count,
    bitRate: d.bitRate ?? null, ecm: d.ecm ?? null, compression: d.compression ?? null, resolution: d.resolution ?? null,
    remoteIdent: d.remoteIdent ?? null, durationMs: Date.now() - started,
  };
}

interface DirectReceiveOptions extends T30Options {
  /** Our identification (CSI); '' for none. */
  ident?: string;
  signal?: AbortSignal;
  onEvent?: (event: FaxCallEvent) => void;
}

/** A received fax: the result, and the accepted pages as TIFF class F (MMR). */
export interface DirectReceived {
  result: FaxCallResult;
  tiff: ReceivedFax['tiff'];
}

/** A received fax's outcome as the `--json` line reports it. */
export function receivedResult(fax: ReceivedFax, startedMs: number): FaxCallResult {
  const r = fax.result;
  const p = r.params;
  return {
    success: r.code === 0, code: r.code, message: r.message, pages: r.pages, pagesTotal: r.pages,
    bitRate: p?.modem.bitRate ?? null, ecm: p?.ecm ?? null, compression: p?.coding ?? null, resolution: p?.resolution ?? null,
    remoteIdent: r.remoteIdent ?? null, durationMs: Date.now() - startedMs,
  };
}

/** Answers one call on an opened (listening) line; the line is closed afterwards. */
export async function receiveDirect(line: DirectLine, o: DirectReceiveOptions = {}): Promise<DirectReceived> {
  const started = Date.now();
  const emit = (e: FaxCallEvent) => o.onEvent?.(e);
  let receiving = false;
  emit({ type: 'phase', phase: 'waiting' });
  try {
    const fax = await receiveOverFrontEnd(line.frontEnd, line.clock, {
      ident: o.ident ?? '', ...(o.ecm !== undefined ? { ecm: o.ecm } : {}), ...(o.signal ? { signal: o.signal } : {}),
      onNegotiated: (p) => {
        if (!receiving) emit({ type: 'phase', phase: 'receiving' });
        receiving = true;
        emit({ type: 'negotiated', mode: negotiatedMode(p) });
      },
      onPage: (p) => emit({ type: 'page', page: p.index + 1, pagesTotal: null }),
    });
    return { result: receivedResult(fax, started), tiff: fax.tiff };
  } finally {
    await line.close();
  }
}
