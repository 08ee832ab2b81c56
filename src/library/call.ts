// The library's one call: send a fax (rendered pages, or documents rendered on the way) over a
// direct line, or answer one call and keep its pages — what `faxstack send` and `faxstack
// receive` do, with progress as events, the same result object and an AbortSignal.
import {
  SipLine, openDirectLine, parseDirectAddress, parseSipAddress, receiveDirect, sendDirect, sendOverLine, directAddressText,
  type FaxCallEvent, type FaxCallResult, type NegotiatedCallMode,
} from '../engine/index.js';
import { FaxError } from '../shared/errors.js';
import { RenderedFax, faxPagesOf, renderFax, type DocumentSource, type RenderOptions } from './documents.js';

export type { FaxCallEvent, FaxCallResult, NegotiatedCallMode };

/**
 * How a direct line is paced. 'realtime' (default) as on a real line; 'lockstep' (audio lines
 * only, both ends faxstack) answers each received frame with one frame, far faster than real time.
 */
export type LinePacing = 'realtime' | 'lockstep';

/** T.30 settings of a call. */
export interface CallSettings {
  /** Offer error correction mode (default true). */
  ecm?: boolean;
  /** Highest modem rate to train at: 14400, 12000, 9600, 7200, 4800 or 2400 (default 14400). */
  maxBitRate?: number;
  /** Our identification sent to the far end (TSI/CSI, up to 20 characters; default none). */
  ident?: string;
  pacing?: LinePacing;
  /** Ends the call; its reason (a string or an Error) becomes the result's message. */
  signal?: AbortSignal;
  /** Progress as it happens: phase, negotiated mode, each page. */
  onEvent?: (event: FaxCallEvent) => void;
}

export interface SendFaxOptions extends CallSettings {
  /**
   * Where to call: `udptl://HOST:PORT` (T.38), `pcm://HOST:PORT` (raw 16-bit audio),
   * `rtp://HOST:PORT?codec=pcmu|pcma` (G.711 over RTP) or `sip:NUMBER@HOST[:PORT][;transport=tcp]`
   * (a SIP call through a gateway, see `sip`).
   */
  via: string;
  /** Rendering of `documents` when they are not already a {@link RenderedFax}. */
  render?: RenderOptions;
  /**
   * For `sip:NUMBER@HOST[:PORT][;transport=tcp]` (a SIP call as the daemon places it through a
   * gateway): the media offered (default T.38 with G.711 fallback) and digest credentials.
   */
  sip?: { media?: 't38' | 'audio' | 't38-or-audio'; username?: string; password?: string };
}

const MAX_RATES = [14400, 12000, 9600, 7200, 4800, 2400];

function checkSettings(o: CallSettings): void {
  if (o.maxBitRate !== undefined && !MAX_RATES.includes(o.maxBitRate)) {
    throw new FaxError('INVALID_PARAMETER', `maxBitRate must be 14400, 12000, 9600, 7200, 4800 or 2400, got ${o.maxBitRate}`, { field: 'maxBitRate' });
  }
  if (o.ident !== undefined && o.ident.length > 20) throw new FaxError('INVALID_PARAMETER', `ident is at most 20 characters, got ${o.ident.length}`, { field: 'ident' });
}

/**
 * Sends one fax as one call and resolves with the call's result — also when the fax failed
 * (`success: false`, `code` from the error table): a far end's behaviour is a result, not an
 * exception. Documents are rendered first (with `render`), unless a {@link RenderedFax} is given.
 *
 * @throws FaxError when the documents cannot be rendered or the options are invalid.
 */
export async function sendFax(fax: RenderedFax | readonly DocumentSource[], options: SendFaxOptions): Promise<FaxCallResult> {
  const started = Date.now();
  checkSettings(options);
  const sip = parseSipAddress(options.via, 'via');
  const address = sip ? null : parseDirectAddress(options.via, 'via');
  if (options.pacing === 'lockstep' && address?.kind !== 'audio') throw new FaxError('INVALID_PARAMETER', 'lockstep pacing is for pcm:// and rtp:// lines', { field: 'pacing' });
  const rendered = fax instanceof RenderedFax ? fax : await renderFax(fax, { ...options.render, ...(options.signal ? { signal: options.signal } : {}) });
  const pages = faxPagesOf(rendered);
  options.signal?.throwIfAborted();
  if (sip) {
    const s = options.sip ?? {};
    const line = new SipLine({
      name: 'sendFax', address: `${sip.host.includes(':') ? `[${sip.host}]` : sip.host}:${sip.port}`, transport: sip.transport, media: s.media ?? 't38-or-audio',
      ...(options.ecm !== undefined ? { ecm: options.ecm } : {}), ...(options.maxBitRate !== undefined ? { maxBitRate: options.maxBitRate } : {}),
      ...(s.username !== undefined ? { username: s.username } : {}), ...(s.password !== undefined ? { password: s.password } : {}),
      ...(options.ident ? { callerId: { number: options.ident } } : {}),
    });
    try {
      return await sendOverLine(line, sip.number, pages, { startedMs: started, ...settings(options) });
    } finally {
      await line.close();
    }
  }
  const line = await openDirectLine(address!, 'caller', options.pacing ?? 'realtime');
  return sendDirect(line, pages, { startedMs: started, ...settings(options) });
}

/** A received fax: the call's result and its pages (null when none arrived). */
export interface ReceivedFaxResult extends FaxCallResult {
  /** The pages received, fax-ready (as TIFF-F, PDF, PNG), or null. */
  fax: RenderedFax | null;
}

export interface ListenOptions extends CallSettings {
  /** Where to answer: `udptl://HOST:PORT`, `pcm://HOST:PORT` or `rtp://HOST:PORT?codec=…`; port 0 picks a free one. */
  listen: string;
}

/** A line waiting for one fax call. */
export interface FaxListener {
  /** The address to call, with the port actually bound (e.g. `udptl://127.0.0.1:40123`). */
  readonly url: string;
  /** Settles once the call is over (never rejects for a far end's behaviour). */
  readonly result: Promise<ReceivedFaxResult>;
}

/**
 * Opens a line and answers the first fax call on it. The returned listener's `url` is ready to
 * be called as soon as this resolves; abort `signal` to stop waiting.
 */
export async function listenForFax(options: ListenOptions): Promise<FaxListener> {
  checkSettings(options);
  const address = parseDirectAddress(options.listen, 'listen', { listening: true });
  if (options.pacing === 'lockstep' && address.kind !== 'audio') throw new FaxError('INVALID_PARAMETER', 'lockstep pacing is for pcm:// and rtp:// lines', { field: 'pacing' });
  const line = await openDirectLine(address, 'answerer', options.pacing ?? 'realtime');
  const url = directAddressText(address, line.localPort);
  const result = receiveDirect(line, settings(options)).then(({ result, tiff }) => ({ ...result, fax: tiff ? RenderedFax.fromTiff(tiff.data) : null }));
  return { url, result };
}

function settings(o: CallSettings) {
  return {
    ...(o.ecm !== undefined ? { ecm: o.ecm } : {}),
    ...(o.maxBitRate !== undefined ? { maxBitRate: o.maxBitRate } : {}),
    ...(o.ident !== undefined ? { ident: o.ident } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.onEvent ? { onEvent: o.onEvent } : {}),
  };
}
