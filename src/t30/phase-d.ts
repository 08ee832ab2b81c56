// Phase D, transmitter side (T.30 5.2, flow chart 5-2c; T.4 Annex A): the answer to
// MPS/EOP/EOM after a non-ECM page (MCF, RTP, RTN, PIP, PIN), and the ECM exchanges after
// each block — PPS, MCF/PPR, CTC/CTR after the fourth PPR, EOR/ERR, RR/RNR flow control (T5).

import { disconnect, finish, retryOrGiveUp, type Draft, type Handler } from './core.js';
import { encodeCtc } from './dis.js';
import { eorFrame, PPR_LIMIT, ppsFrame, pprWants } from './ecm.js';
import { buildFrame, fcfByte, type ParsedFrame } from './fcf.js';
import { enter, provide } from './actions.js';
import { caller } from './roles.js';

/** PPS-NULL inside a page, PPS-MPS/EOP/EOM after its last block. */
function sendPps(d: Draft): void {
  const tx = d.s.tx!;
  const last = tx.block === tx.blocks!.length - 1;
  const fcf2 = last ? tx.post! : 'NULL';
  d.sendV21([ppsFrame({ fcf2, page: d.s.pages, block: tx.block, frames: tx.burst }, d.x)]);
  d.goto(last ? 'IV_PPS_Q' : 'IV_PPS_NULL', 'D');
}

/** MCF/RTP/PIP: the page in hand is confirmed. */
function confirmPage(d: Draft): void {
  d.act({ kind: 'page-confirmed', page: d.s.tx!.page });
  d.s.pages += 1;
}

/** After a page was answered: the next page, phase B again (EOM), or the end (EOP). */
function afterPage(d: Draft, retrain: boolean): void {
  const cfg = caller(d);
  const tx = d.s.tx!;
  d.s.retries = 0;
  if (tx.post === 'EOP') {
    const all = d.s.pages >= cfg.source.count;
    return disconnect(d, all ? 'T30_ERR_OK' : 'T30_ERR_RETRYDCN', all ? undefined : `${d.s.pages} of ${cfg.source.count} pages confirmed`);
  }
  d.s.tx = { page: tx.page + 1, tries: 0, block: 0, resend: [], burst: 0, pprCount: 0, progress: false, longTrain: retrain };
  if (tx.post === 'EOM') {
    // Back to phase B: the receiver sends DIS again (T.30 5.2, EOM).
    d.s.last = undefined;
    d.goto('T', 'B');
    d.startTimer('T1');
    return;
  }
  if (retrain) return enter.sendDcs(d);
  enter.startPage(d);
}

/** RTN/PIN: the page was not good enough. Retrain one rate lower and send it again, or go on. */
function pageRejected(d: Draft, why: string): void {
  const cfg = caller(d);
  const tx = d.s.tx!;
  d.s.retries = 0;
  if (cfg.onRtn === 'skip') return afterPage(d, true);
  const tries = tx.tries + 1;
  if (tries >= cfg.maxPageTries) return disconnect(d, 'T30_ERR_RETRYDCN', `page ${tx.page + 1} answered ${why} ${tries} times`);
  d.s.tx = { ...tx, tries, longTrain: true };
  enter.fallBack(d); // at the lowest rate, retrain there
  enter.sendDcs(d);
}

/** Our own command heard back (echo on a T.38 or 4-wire path): keep waiting. */
function isEcho(d: Draft, f: ParsedFrame): boolean {
  const last = d.s.last?.[d.s.last.length - 1];
  return last !== undefined && f.fcf === last[2] && f.info.length === last.length - 3 && f.info.every((b, i) => b === last[3 + i]);
}

const II_Q: Handler = (d, input) => {
  if (input.kind === 'tx-done') return d.startTimer('T4');
  if (input.kind === 'timeout' && input.timer === 'T4') return retryOrGiveUp(d, 'T30_ERR_TX_PHDDEAD', `no answer to ${d.s.tx!.post}`);
  if (input.kind !== 'frame' || !input.frame.final) return;
  const f = input.frame;
  if (isEcho(d, f)) return d.startTimer('T4');
  d.stopTimer('T4');
  switch (f.name) {
    case 'MCF':
    case 'PIP': // no operator to alert: a positive interrupt is a confirmation
      confirmPage(d);
      return afterPage(d, false);
    case 'RTP':
      confirmPage(d);
      return afterPage(d, true);
    case 'RTN':
    case 'PIN':
      return pageRejected(d, f.name);
    case 'DCN':
      return finish(d, 'T30_ERR_TX_BADPG');
    case 'CRP':
      return retryOrGiveUp(d, 'T30_ERR_TX_PHDDEAD', `CRP after ${d.s.tx!.post}`);
    default:
      return disconnect(d, 'T30_ERR_TX_INVALRSP', `${f.name ?? 'unknown frame'} after ${d.s.tx!.post}`);
  }
};

/** The block in hand got through: the next block, or the page is done. */
function blockDone(d: Draft): void {
  const tx = d.s.tx!;
  d.s.retries = 0;
  d.stopTimer('T5');
  if (tx.block + 1 < tx.blocks!.length) {
    const block = tx.block + 1;
    d.s.tx = { ...tx, block, resend: tx.blocks![block]!.map(() => true), pprCount: 0, progress: false };
    return enter.sendBurst(d);
  }
  confirmPage(d);
  afterPage(d, false);
}

/** PPR: send the frames it names again; after the fourth, CTC one rate lower (if frames got through) or EOR. */
function onPpr(d: Draft, map: Uint8Array): void {
  if (map.length !== 32) return disconnect(d, 'T30_ERR_TX_ECMPHD', `PPR with ${map.length} octets of frame map`);
  const tx = d.s.tx!;
  d.s.retries = 0;
  d.stopTimer('T5');
  const resend = tx.blocks![tx.block]!.map((_, i) => pprWants(map, i));
  const progress = tx.progress || tx.resend.some((was, i) => was && !resend[i]);
  const pprCount = tx.pprCount + 1;
  d.s.tx = { ...tx, resend, progress, pprCount };
  if (pprCount < PPR_LIMIT) return enter.sendBurst(d);
  d.s.tx = { ...d.s.tx, pprCount: 0 };
  if (progress && enter.fallBack(d)) {
    d.s.tx = { ...d.s.tx!, progress: false };
    d.sendV21([buildFrame(fcfByte('CTC', d.x), encodeCtc(d.s.params!.modem))]);
    return d.goto('IV_CTC', 'D');
  }
  const last = tx.block === tx.blocks!.length - 1;
  d.sendV21([eorFrame(last ? tx.post! : 'NULL', d.x)]);
  d.goto('IV_EOR', 'D');
}

function onRnr(d: Draft, next: 'IV_PPS_RNR' | 'IV_EOR_RNR'): void {
  if (!d.running('T5')) d.startTimer('T5');
  d.sendFcf('RR');
  d.goto(next, 'D');
}

/** IV_PPS_NULL, IV_PPS_Q and IV_PPS_RNR share their answers. */
const IV_PPS: Handler = (d, input) => {
  if (input.kind === 'tx-done') return d.startTimer('T4');
  if (input.kind === 'timeout') {
    if (input.timer === 'T5') return disconnect(d, 'T30_ERR_TX_T5EXP');
    if (input.timer === 'T4') return retryOrGiveUp(d, 'T30_ERR_TX_PHDDEAD', `no answer to ${d.s.state === 'IV_PPS_RNR' ? 'RR' : 'PPS'}`);
    return;
  }
  if (input.kind !== 'frame' || !input.frame.final) return;
  const f = input.frame;
  if (isEcho(d, f)) return d.startTimer('T4');
  d.stopTimer('T4');
  switch (f.name) {
    case 'MCF':
    case 'PIP':
      return blockDone(d);
    case 'PPR':
      return onPpr(d, f.info);
    case 'RNR':
      return onRnr(d, 'IV_PPS_RNR');
    case 'DCN':
      return finish(d, d.s.state === 'IV_PPS_RNR' ? 'T30_ERR_RX_DCNRRD' : 'T30_ERR_TX_BADPG');
    case 'CRP':
      return retryOrGiveUp(d, 'T30_ERR_TX_PHDDEAD', 'CRP after PPS');
    default:
      return disconnect(d, 'T30_ERR_TX_ECMPHD', `${f.name ?? 'unknown frame'} after PPS`);
  }
};

const IV_CTC: Handler = (d, input) => {
  if (input.kind === 'tx-done') return d.startTimer('T4');
  if (input.kind === 'timeout' && input.timer === 'T4') return retryOrGiveUp(d, 'T30_ERR_TX_PHDDEAD', 'no answer to CTC');
  if (input.kind !== 'frame' || !input.frame.final) return;
  d.stopTimer('T4');
  switch (input.frame.name) {
    case 'CTR':
      d.s.retries = 0;
      // Long training again after CTC (T.30, as spandsp does).
      d.s.tx = { ...d.s.tx!, longTrain: true };
      return enter.sendBurst(d);
    case 'CRP':
      return retryOrGiveUp(d, 'T30_ERR_TX_PHDDEAD', 'CRP after CTC');
    case 'DCN':
      return finish(d, 'T30_ERR_TX_BADPG');
    default:
      return disconnect(d, 'T30_ERR_TX_ECMPHD', `${input.frame.name ?? 'unknown frame'} after CTC`);
  }
};

/** IV_EOR and IV_EOR_RNR: the block is given up; ERR ends the call (spandsp does the same). */
const IV_EOR: Handler = (d, input) => {
  if (input.kind === 'tx-done') return d.startTimer('T4');
  if (input.kind === 'timeout') {
    if (input.timer === 'T5') return disconnect(d, 'T30_ERR_TX_T5EXP');
    if (input.timer === 'T4') return retryOrGiveUp(d, 'T30_ERR_TX_PHDDEAD', 'no answer to EOR');
    return;
  }
  if (input.kind !== 'frame' || !input.frame.final) return;
  d.stopTimer('T4');
  switch (input.frame.name) {
    case 'ERR':
      return disconnect(d, 'T30_ERR_RETRYDCN', `ECM block ${d.s.tx!.block} of page ${d.s.tx!.page + 1} could not be corrected`);
    case 'RNR':
      return onRnr(d, 'IV_EOR_RNR');
    case 'CRP':
      return retryOrGiveUp(d, 'T30_ERR_TX_PHDDEAD', 'CRP after EOR');
    case 'DCN':
      return finish(d, d.s.state === 'IV_EOR_RNR' ? 'T30_ERR_RX_DCNRRD' : 'T30_ERR_TX_BADPG');
    default:
      return disconnect(d, 'T30_ERR_TX_ECMPHD', `${input.frame.name ?? 'unknown frame'} after EOR`);
  }
};

export const PHASE_D_TX = {
  II_Q,
  IV_PPS_NULL: IV_PPS,
  IV_PPS_Q: IV_PPS,
  IV_PPS_RNR: IV_PPS,
  IV_CTC,
  IV_EOR,
  IV_EOR_RNR: IV_EOR,
} as const;

provide({ sendPps });
