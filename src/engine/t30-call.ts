// One fax call over any T.30 front end (T.38, or the audio modems): the prepared pages as
// T.30's source, progress and the result mapped onto the FaxLine contract, and the receiving
// side that turns accepted pages into TIFF class F.
import type { Clock } from '../shared/clock.js';
import { writeTiffF } from '../documents/index.js';
import { type Coding, type PageSource, type ReceivedPage, type Resolution, type T30FrontEnd, type T30Params, type T30Result, T30Session } from '../t30/index.js';
import type { CallDetail, CallProgress, CallRequest, CallResult } from './line.js';
import { pageSource } from './page-source.js';

export interface T30Options {
  /** Error correction mode offered (default true). */
  ecm?: boolean;
  /** Highest rate to start training at (default 14400). */
  maxBitRate?: number;
}

/** Sends the request's pages from `firstPage` on, over `frontEnd`. */
export async function sendOverFrontEnd(
  req: CallRequest, progress: CallProgress, signal: AbortSignal, frontEnd: T30FrontEnd, clock: Clock, o: T30Options = {},
): Promise<CallResult> {
  const started = clock.now();
  const offset = req.firstPage - 1;
  const all = pageSource(req.pages);
  const source: PageSource = {
    count: req.pages.count - offset,
    formats: (i) => all.formats!(i + offset),
    get: (i, params) => all.get(i + offset, params),
  };
  let transmitting = false;
  const session = new T30Session({
    // A request may turn ECM off for its attempt (the dispatcher's fallback); it never turns it on.
    config: { role: 'caller', source, ident: req.ident, ecm: req.ecm === false ? false : (o.ecm ?? true), ...(o.maxBitRate ? { maxBitRate: o.maxBitRate } : {}) },
    frontEnd,
    clock,
    onProgress: (p) => {
      if (p.kind === 'negotiated') {
        progress.negotiated?.(p.params);
        if (!transmitting) {
          transmitting = true;
          progress.stage('transmitting');
        }
      } else if (p.kind === 'page-confirmed') {
        progress.pageConfirmed(req.firstPage + p.page);
      }
    },
  });
  // The signal's reason, when it is words, says why the call ended (a time limit, Ctrl-C).
  const onAbort = () => session.abort(abortReason(signal));
  signal.addEventListener('abort', onAbort, { once: true });
  progress.stage('dialing');
  session.start();
  const result = await session.result;
  signal.removeEventListener('abort', onAbort);
  frontEnd.close();
  return {
    code: result.code,
    message: result.code === 0 ? 'Fax delivered' : result.message,
    lastConfirmedPage: offset + result.pages,
    aborted: signal.aborted && result.code !== 0,
    detail: detailOf(result, clock.now() - started),
  };
}

/** Why an aborted call ended: the signal's reason when it is a string or an Error, else shutdown. */
export function abortReason(signal: AbortSignal): string {
  const r: unknown = signal.reason;
  if (typeof r === 'string' && r) return r;
  if (r instanceof Error && r.name !== 'AbortError') return r.message;
  return 'the service is stopping';
}

export function detailOf(result: T30Result, durationMs: number): CallDetail {
  const p = result.params;
  return {
    t30Code: result.completion,
    phase: result.phase,
    durationMs,
    ...(result.remoteIdent ? { remoteIdent: result.remoteIdent } : {}),
    ...(p ? { bitRate: p.modem.bitRate, modulation: p.modem.modulation, ecm: p.ecm, compression: p.coding, resolution: p.resolution } : {}),
  };
}

export interface ReceivedFax {
  result: T30Result;
  pages: ReceivedPage[];
  /** The accepted pages as TIFF class F (MMR), or null when none arrived. */
  tiff: { data: Buffer; pageCount: number; width: number; xDpi: number; yDpi: number } | null;
}

/** Answers a call on `frontEnd` and collects the pages. */
export async function receiveOverFrontEnd(
  frontEnd: T30FrontEnd, clock: Clock,
  o: T30Options & { ident: string; onPage?: (page: ReceivedPage) => void; onNegotiated?: (params: T30Params) => void; resolutions?: Resolution[]; codings?: Coding[]; signal?: AbortSignal },
): Promise<ReceivedFax> {
  const pages: ReceivedPage[] = [];
  const session = new T30Session({
    config: { role: 'answerer', ident: o.ident, ecm: o.ecm ?? true, ...(o.resolutions ? { resolutions: o.resolutions } : {}), ...(o.codings ? { codings: o.codings } : {}) },
    frontEnd,
    clock,
    onProgress: (p) => {
      if (p.kind === 'negotiated') o.onNegotiated?.(p.params);
      if (p.kind !== 'page-received') return;
      pages.push(p.page);
      o.onPage?.(p.page);
    },
  });
  const signal = o.signal;
  const onAbort = () => session.abort(signal ? abortReason(signal) : undefined);
  signal?.addEventListener('abort', onAbort, { once: true });
  session.start();
  if (signal?.aborted) onAbort();
  const result = await session.result;
  signal?.removeEventListener('abort', onAbort);
  frontEnd.close();
  return { result, pages, tiff: receivedTiff(pages) };
}

export function receivedTiff(pages: ReceivedPage[]): ReceivedFax['tiff'] {
  const stored = pages.filter((p): p is ReceivedPage & { stored: NonNullable<ReceivedPage['stored']> } => p.stored !== undefined);
  const first = stored[0];
  if (!first) return null;
  // Every page is T.6 already (as received, or coded line by line on receipt): stored as it is.
  const data = writeTiffF(
    stored.map((p) => ({ width: p.params.widthPixels, height: p.stored.height, xDpi: p.params.xDpi, yDpi: p.params.yDpi, strip: p.stored.data })),
    { compression: 'mmr' },
  );
  return { data, pageCount: stored.length, width: first.params.widthPixels, xDpi: first.params.xDpi, yDpi: first.params.yDpi };
}
