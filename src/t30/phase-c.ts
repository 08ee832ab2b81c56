// Phase C (T.30 5.2, T.4): the message. Non-ECM pages go out as one high-speed burst ending in
// RTC (states I / F_DOC_NON_ECM); ECM pages as blocks of FCD frames closed by three RCP
// (T.4 Annex A; states IV / F_DOC_ECM).

import { appendChunk, disconnect, finish, imageModem, repeatLast, type Draft, type Handler } from './core.js';
import { ecmBlocks, RCP_REPEATS, rcpFrame } from './ecm.js';
import { isPostMessage, withoutInterrupt, type PostMessage } from './fcf.js';
import { chooseMode, samePageFormat } from './negotiate.js';
import { codePage } from './page-coding.js';
import { enter, provide } from './actions.js';
import { holdInput, startWait } from './hold.js';
import { answerer, caller, copyRx, formatsFor } from './roles.js';

// ---- caller ---------------------------------------------------------------------------

/** The command after page `page`: EOP after the last, EOM when the next needs another mode, else MPS. */
function postFor(d: Draft, page: number): PostMessage {
  const cfg = caller(d);
  if (page + 1 >= cfg.source.count) return 'EOP';
  const next = chooseMode(d.s.remote.dis!, cfg, d.s.rates[d.s.rateIndex]!, formatsFor(cfg, page + 1));
  return next.ok && samePageFormat(next.params, d.s.params!) ? 'MPS' : 'EOM';
}

/** Sends the page in hand (after CFR, MCF or CTR): coded for the current params. */
function startPage(d: Draft): void {
  const cfg = caller(d);
  const p = d.s.params!;
  let tx = d.s.tx!;
  let coded = tx.coded;
  if (!coded) {
    try {
      coded = codePage(cfg.source.get(tx.page, p), p);
    } catch (err) {
      return disconnect(d, 'T30_ERR_BADTIFF', `page ${tx.page + 1}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  tx = { ...tx, coded, post: postFor(d, tx.page) };
  if (p.ecm) {
    const blocks = ecmBlocks(coded, p.ecmFrameSize);
    d.s.tx = { ...tx, blocks, block: 0, resend: blocks[0]!.map(() => true), pprCount: 0, progress: false };
    return sendBurst(d);
  }
  d.s.tx = { ...tx, longTrain: false };
  d.sendHighSpeed({ kind: 'send-image', modem: imageModem(p.modem, tx.longTrain), data: coded });
  d.goto('I', 'C');
}

/** The frames of the block still owed, then RCP ×3, in one high-speed transmission. */
function sendBurst(d: Draft): void {
  const tx = d.s.tx!;
  const block = tx.blocks![tx.block]!;
  const frames: Uint8Array[] = [];
  block.forEach((fcd, i) => {
    if (tx.resend[i]) frames.push(fcd);
  });
  const burst = frames.length;
  for (let i = 0; i < RCP_REPEATS; i++) frames.push(rcpFrame());
  d.sendHighSpeed({ kind: 'send-hdlc', frames, modem: imageModem(d.s.params!.modem, tx.longTrain) });
  d.s.tx = { ...tx, burst, longTrain: false };
  d.goto('IV', 'C');
}

const I: Handler = (d, input) => {
  if (input.kind === 'tx-done') {
    d.gap();
    d.sendFcf(d.s.tx!.post!);
    d.goto('II_Q', 'D');
  }
};

const IV: Handler = (d, input) => {
  if (input.kind === 'tx-done') {
    d.gap();
    enter.sendPps(d);
  }
};

// ---- answerer -------------------------------------------------------------------------

/** Listen for the next page (or block) at the negotiated rate; T2 until it starts. */
function startReceivingPage(d: Draft): void {
  const p = d.s.params!;
  const rx = d.s.rx!;
  const modem = imageModem(p.modem, rx.longTrain);
  if (p.ecm) {
    d.setRx({ kind: 'image-hdlc', modem });
    d.goto('F_DOC_ECM', 'C');
  } else {
    d.setRx({ kind: 'image', modem });
    d.goto('F_DOC_NON_ECM', 'C');
    d.s.rx = { ...rx, chunks: null };
  }
  d.s.rx = { ...d.s.rx!, imageSeen: false, longTrain: false };
  startWait(d);
}

const F_DOC_NON_ECM: Handler = (d, input) => {
  if (holdInput(d, input, 'line-signal')) return;
  const rx = d.s.rx!;
  switch (input.kind) {
    case 'signal-start':
      d.stopTimer('T2');
      d.s.rx = { ...rx, imageSeen: true, heard: 'quiet' };
      return;
    case 'image-data': {
      d.stopTimer('T2');
      const next = copyRx(rx);
      next.imageSeen = true;
      next.chunks = appendChunk(rx.chunks, input.data);
      d.s.rx = next;
      return;
    }
    case 'signal-end':
      if (!rx.chunks) return d.startTimer('T2');
      d.setRx({ kind: 'v21' });
      d.goto('F_POST_DOC_NON_ECM', 'D');
      return startWait(d);
    case 'timeout':
      if (input.timer === 'T2') disconnect(d, 'T30_ERR_RX_T2EXPFAX');
      return;
    case 'bad-frame':
      if (answerer(d).crp) d.sendFcf('CRP', false);
      return;
    case 'frame': {
      const f = input.frame;
      if (!f.final) return;
      if (isPostMessage(f.name) && f.name !== 'NULL') {
        // The command we just answered, and no sign of a page since: our answer was lost. A
        // signal that came and went before it was a page whose training we missed (judged below).
        if (!rx.chunks && !rx.imageSeen && rx.heard !== 'ended' && rx.response && rx.next === withoutInterrupt(f.name)) {
          d.stopTimer('T2');
          repeatLast(d);
          return d.goto('III_Q', 'D');
        }
        // Otherwise the page ended without its end of signal, or never came: judge what there
        // is (nothing is a bad page: RTN, so the transmitter sends it again).
        d.setRx({ kind: 'v21' });
        return enter.onNonEcmPageEnd(d, f.name);
      }
      if (f.name === 'DCS') return enter.processDcs(d, f.info);
      if (f.name === 'DCN') return finish(d, 'T30_ERR_RX_DCNDATA');
      if (f.name === 'CRP') return repeatLast(d);
      if (enter.answererPhaseBFrame(d, input)) return;
      return disconnect(d, 'T30_ERR_RX_INVALCMD', `${f.name ?? 'unknown frame'} while waiting for a page`);
    }
    default:
  }
};

const F_DOC_ECM: Handler = (d, input) => {
  if (holdInput(d, input, 'line-signal')) return;
  const rx = d.s.rx!;
  switch (input.kind) {
    case 'tx-done':
      // CTR or ERR has gone: the next burst follows (long training after CTC).
      return startReceivingPage(d);
    case 'signal-start':
      d.stopTimer('T2');
      d.s.rx = { ...rx, imageSeen: true };
      return;
    case 'signal-end':
      if (!rx.imageSeen) return;
      // The burst ended without an RCP we could read: wait for PPS all the same.
      return endOfBurst(d);
    case 'timeout':
      if (input.timer === 'T2') disconnect(d, 'T30_ERR_RX_T2EXPFAX');
      return;
    case 'frame': {
      const f = input.frame;
      if (f.name === 'FCD') {
        d.stopTimer('T2');
        const payload = f.info.subarray(1);
        // Over-long or empty frames are left out: PPR asks for them again.
        if (f.info.length < 2 || payload.length > 256) return;
        // The front end hands over frames to keep (front-end.ts): no copy.
        const next = copyRx(rx);
        next.imageSeen = true;
        next.frames = { no: f.info[0]!, payload, prev: rx.frames };
        d.s.rx = next;
        return;
      }
      if (f.name === 'RCP') return endOfBurst(d);
      if (f.final) enter.postDocEcmFrame(d, input);
      return;
    }
    default:
  }
};

function endOfBurst(d: Draft): void {
  d.setRx({ kind: 'v21' });
  d.goto('F_POST_DOC_ECM', 'D');
  startWait(d);
}

export const PHASE_C = { I, IV, F_DOC_NON_ECM, F_DOC_ECM } as const;

provide({ startPage, sendBurst, startReceivingPage });
