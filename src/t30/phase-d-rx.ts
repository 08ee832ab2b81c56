// Phase D, receiver side (T.30 5.2, flow chart 5-2d; T.4 Annex A): judging a non-ECM page
// and answering MCF/RTP/RTN; answering PPS with MCF or PPR (the frame map), RNR while the
// application is not ready, CTR to CTC, ERR to EOR; then waiting for the next page, DIS
// again after EOM, or DCN after EOP.

import { reverseBitsInto } from '../codecs/index.js';
import { appendChunk, concatChunks, disconnect, finish, framesByNumber, repeatLast, type Draft, type Handler } from './core.js';
import { decodeCtc } from './dis.js';
import { encodePprMap, FRAMES_PER_BLOCK, parseEor, parsePps, type Pps } from './ecm.js';
import { buildFrame, fcfByte, isPostMessage, withoutInterrupt, type PostMessage } from './fcf.js';
import { withRate } from './negotiate.js';
import { copyQuality, lazyBitmap, storablePage, type CopyQuality, type StoredPage } from './page-coding.js';
import { enter, provide } from './actions.js';
import { holdInput } from './hold.js';
import { answerer, freshRx } from './roles.js';
import type { MachineInput, ReceivedPage } from './types.js';

type FrameInput = Extract<MachineInput, { kind: 'frame' }>;

/** Emits an accepted page (made ready to store unless decoding is off). */
function acceptPage(d: Draft, data: Uint8Array, quality: CopyQuality, judged?: StoredPage): void {
  const cfg = answerer(d);
  const p = d.s.params!;
  let stored: StoredPage | undefined = judged;
  if (cfg.decode && !stored) {
    try {
      stored = storablePage(data, p.coding, p.widthPixels);
    } catch {
      stored = undefined;
    }
  }
  const page: ReceivedPage = { index: d.s.pages, params: p, data, badLines: judged?.badLines ?? 0, quality };
  if (cfg.decode && stored) {
    page.stored = { data: stored.data, height: stored.height };
    Object.defineProperty(page, 'bitmap', { get: lazyBitmap(stored), enumerable: true });
  }
  d.act({ kind: 'page-received', page });
  d.s.pages += 1;
}

/** MPS/EOP/EOM after a non-ECM page: judge it, keep it (unless bad), answer MCF/RTP/RTN. */
function onNonEcmPageEnd(d: Draft, cmd: PostMessage): void {
  const cfg = answerer(d);
  const rx = d.s.rx!;
  const p = d.s.params!;
  d.stopTimer('T2');
  const data = concatChunks(rx.chunks);
  let decoded: StoredPage | undefined;
  try {
    decoded = storablePage(data, p.coding, p.widthPixels);
  } catch {
    decoded = undefined;
  }
  // A page that ended without RTC while more of it was heard afterwards is known to be cut short:
  // RTN, so the sender sends it again, rather than a part of it confirmed as delivered.
  const cut = rx.heard === 'ended' && decoded?.end !== 'rtc';
  const quality: CopyQuality = decoded && !cut ? copyQuality(decoded) : 'bad';
  const response = quality === 'bad' ? 'RTN' : quality === 'poor' ? 'RTP' : 'MCF';
  if (response !== 'RTN' || cfg.keepBadPages) acceptPage(d, data, quality, decoded);
  d.s.rx = { ...rx, next: withoutInterrupt(cmd), response, chunks: null, imageSeen: false };
  d.sendFcf(response);
  d.goto('III_Q', 'D');
}

const F_POST_DOC_NON_ECM: Handler = (d, input) => {
  if (holdInput(d, input, 'carrier')) return;
  switch (input.kind) {
    case 'timeout':
      if (input.timer === 'T2') disconnect(d, 'T30_ERR_RX_T2EXPMPS');
      return;
    case 'bad-frame':
      if (answerer(d).crp) d.sendFcf('CRP', false);
      return;
    case 'frame': {
      const f = input.frame;
      if (!f.final) return;
      if (isPostMessage(f.name) && f.name !== 'NULL') return onNonEcmPageEnd(d, f.name);
      if (f.name === 'DCS') return enter.processDcs(d, f.info);
      if (f.name === 'DCN') return finish(d, 'T30_ERR_RX_DCNFAX');
      if (f.name === 'CRP') return repeatLast(d);
      return disconnect(d, 'T30_ERR_RX_INVALCMD', `${f.name ?? 'unknown frame'} after a page`);
    }
    default:
  }
};

/** III_Q and F_POST_RCP_MCF: our answer has gone; what comes next depends on the command it answered. */
const AFTER_RESPONSE: Handler = (d, input) => {
  const rx = d.s.rx!;
  switch (input.kind) {
    case 'tx-done':
      if (rx.next === 'EOP') {
        d.setRx({ kind: 'v21' });
        return d.startTimer('T4'); // DCN should follow
      }
      if (rx.next === 'EOM') {
        d.setRx({ kind: 'v21' });
        return d.startTimer('T2'); // then phase B again, DIS first
      }
      return enter.startReceivingPage(d);
    case 'timeout':
      if (input.timer === 'T2' && rx.next === 'EOM') {
        d.s.rx = freshRx();
        d.s.retries = 0;
        return enter.sendDis(d);
      }
      if (input.timer === 'T4' && rx.next === 'EOP') {
        d.s.retries += 1;
        // Every page is in; no DCN is no reason to fail the call.
        if (d.s.retries >= d.s.cfg.maxCommandTries) return finish(d, rx.response === 'RTN' ? 'T30_ERR_RX_DCNNORTN' : 'T30_ERR_OK');
        return repeatLast(d);
      }
      return;
    case 'bad-frame':
      if (answerer(d).crp) d.sendFcf('CRP', false);
      return;
    case 'frame': {
      const f = input.frame;
      if (!f.final) return;
      d.stopTimer('T4');
      d.stopTimer('T2');
      switch (f.name) {
        case 'DCN':
          if (rx.next === 'EOP' || rx.next === 'EOM') return finish(d, rx.response === 'RTN' ? 'T30_ERR_RX_DCNNORTN' : 'T30_ERR_OK');
          return finish(d, 'T30_ERR_RX_DCNPHD');
        case 'DCS':
          return enter.processDcs(d, f.info);
        case 'CRP':
        case 'PPS':
          return repeatLast(d); // they missed our answer
        default:
          if (isPostMessage(f.name)) return repeatLast(d);
          return disconnect(d, 'T30_ERR_RX_INVALCMD', `${f.name ?? 'unknown frame'} after ${rx.response ?? 'our answer'}`);
      }
    }
    default:
  }
};

/** PPS after a burst: check page/block, then MCF, PPR, or RNR while not ready. */
function onPps(d: Draft, pps: Pps): void {
  const rx = d.s.rx!;
  d.stopTimer('T2');
  const page = d.s.pages & 0xff;
  const block = rx.block & 0xff;
  if (pps.page !== page || pps.block !== block) {
    // Our MCF to the previous block or page was lost and they repeat its PPS.
    const previous = (pps.page === page && pps.block === ((rx.block - 1) & 0xff)) || (pps.page === ((d.s.pages - 1) & 0xff) && rx.block === 0);
    if (!previous) return disconnect(d, 'T30_ERR_RX_ECMPHD', `PPS for page ${pps.page} block ${pps.block}, expected ${page}/${block}`);
    d.sendFcf('MCF');
    return d.goto('F_POST_RCP_MCF', 'D');
  }
  // The first PPS of a block gives its size; a PPS after a partial burst may count only that burst.
  d.s.rx = { ...rx, blockFrames: Math.max(rx.blockFrames, pps.frames) };
  if (!d.s.rxReady) {
    d.s.rx = { ...d.s.rx, deferred: pps };
    d.sendFcf('RNR');
    return d.goto('F_POST_RCP_RNR', 'D');
  }
  answerPps(d, pps);
}

function answerPps(d: Draft, pps: Pps): void {
  const rx = d.s.rx!;
  const n = rx.blockFrames;
  const frames = framesByNumber(rx.frames, FRAMES_PER_BLOCK);
  const missing = (i: number): boolean => i >= n || frames[i] === undefined;
  let complete = true;
  for (let i = 0; i < n; i++) if (missing(i)) complete = false;
  if (!complete) {
    // Frames past the end of the block are marked too, as spandsp does.
    const map = encodePprMap(missing);
    d.s.rx = { ...rx, ppr: map, deferred: undefined };
    d.sendV21([buildFrame(fcfByte('PPR', d.x), map)]);
    return d.goto('F_POST_RCP_PPR', 'D');
  }
  // The block's frames back in the codecs' bit order, in one chunk.
  let size = 0;
  for (let i = 0; i < n; i++) size += frames[i]!.length;
  const block = new Uint8Array(size);
  for (let i = 0, at = 0; i < n; at += frames[i]!.length, i++) reverseBitsInto(frames[i]!, block, at);
  const chunks = appendChunk(rx.chunks, block);
  const next = withoutInterrupt(pps.fcf2);
  d.s.rx = { ...rx, chunks, frames: null, blockFrames: 0, block: rx.block + 1, next, response: 'MCF', deferred: undefined };
  if (next !== 'NULL') {
    if (!rx.damaged || answerer(d).keepBadPages) acceptPage(d, concatChunks(chunks), rx.damaged ? 'bad' : 'perfect');
    d.s.rx = { ...d.s.rx, chunks: null, block: 0, damaged: false };
  }
  d.sendFcf('MCF');
  d.goto('F_POST_RCP_MCF', 'D');
}

/**
 * Final frames after an ECM burst (F_DOC_ECM, F_POST_DOC_ECM, F_POST_RCP_PPR). No CRP here: a
 * corrupt frame may be the tail of the burst (a late RCP) rather than the PPS; T4 at the
 * transmitter repeats a lost PPS.
 */
function postDocEcmFrame(d: Draft, input: FrameInput): void {
  const f = input.frame;
  const rx = d.s.rx!;
  switch (f.name) {
    case 'PPS': {
      const pps = parsePps(f.info);
      if (!pps) return disconnect(d, 'T30_ERR_RX_ECMPHD', 'malformed PPS');
      return onPps(d, pps);
    }
    case 'CTC': {
      const modem = decodeCtc(f.info);
      if (!modem || !answerer(d).modems[modem.modulation]) return disconnect(d, 'T30_ERR_RX_ECMPHD', 'CTC names a rate we do not have');
      d.stopTimer('T2');
      d.s.params = withRate(d.s.params!, modem);
      d.act({ kind: 'negotiated', params: d.s.params });
      d.s.rx = { ...rx, longTrain: true };
      d.sendFcf('CTR');
      return d.goto('F_DOC_ECM', 'D');
    }
    case 'EOR': {
      const q = parseEor(f.info);
      if (!q) return disconnect(d, 'T30_ERR_RX_ECMPHD', 'malformed EOR');
      d.stopTimer('T2');
      // The block is given up; what we have of the page is damaged.
      d.s.rx = { ...rx, frames: null, blockFrames: 0, block: rx.block + 1, damaged: true, next: withoutInterrupt(q) };
      d.sendFcf('ERR');
      return d.goto('F_DOC_ECM', 'D');
    }
    case 'RR':
      return;
    case 'DCS':
      return enter.processDcs(d, f.info);
    case 'DCN':
      return finish(d, rx.damaged ? 'T30_ERR_RETRYDCN' : 'T30_ERR_RX_DCNDATA');
    case 'CRP':
      return repeatLast(d);
    default:
      return disconnect(d, 'T30_ERR_RX_INVALCMD', `${f.name ?? 'unknown frame'} during an ECM page`);
  }
}

const F_POST_DOC_ECM: Handler = (d, input) => {
  if (holdInput(d, input, 'carrier')) return;
  switch (input.kind) {
    case 'timeout':
      if (input.timer === 'T2') disconnect(d, 'T30_ERR_RX_T2EXPMPS');
      return;
    case 'frame':
      if (input.frame.final && input.frame.name !== 'RCP') postDocEcmFrame(d, input);
      return;
    default:
  }
};

const F_POST_RCP_PPR: Handler = (d, input) => {
  if (input.kind === 'tx-done') return enter.startReceivingPage(d);
  if (input.kind === 'frame' && input.frame.final) postDocEcmFrame(d, input);
};

const F_POST_RCP_RNR: Handler = (d, input) => {
  switch (input.kind) {
    case 'tx-done':
      return d.startTimer('T2');
    case 'timeout':
      if (input.timer === 'T2') disconnect(d, 'T30_ERR_RX_T2EXPRR');
      return;
    case 'bad-frame':
      if (answerer(d).crp) d.sendFcf('CRP', false);
      return;
    case 'frame': {
      const f = input.frame;
      if (!f.final) return;
      d.stopTimer('T2');
      switch (f.name) {
        case 'RR': {
          const deferred = d.s.rx!.deferred;
          if (!deferred) return disconnect(d, 'T30_ERR_RX_ECMPHD', 'RR without a PPS to answer');
          if (!d.s.rxReady) return d.sendFcf('RNR');
          return answerPps(d, deferred);
        }
        case 'PPS': {
          const pps = parsePps(f.info);
          return pps ? onPps(d, pps) : disconnect(d, 'T30_ERR_RX_ECMPHD', 'malformed PPS');
        }
        case 'DCN':
          return finish(d, 'T30_ERR_RX_DCNRRD');
        case 'CRP':
          return repeatLast(d);
        default:
          return disconnect(d, 'T30_ERR_RX_INVALCMD', `${f.name ?? 'unknown frame'} instead of RR`);
      }
    }
    default:
  }
};

export const PHASE_D_RX = {
  F_POST_DOC_NON_ECM,
  III_Q: AFTER_RESPONSE,
  F_POST_DOC_ECM,
  F_POST_RCP_MCF: AFTER_RESPONSE,
  F_POST_RCP_PPR,
  F_POST_RCP_RNR,
} as const;

provide({ onNonEcmPageEnd, postDocEcmFrame });
