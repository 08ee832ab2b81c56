// Phases A and B (T.30 5.2, flow charts 5-2a/5-2b): CNG/CED, DIS ↔ DCS negotiation, the
// training check (TCF) and CFR/FTT with rate fallback. Caller states T, D, D_TCF,
// D_POST_TCF; answerer states ANSWERING, R, F_TCF, F_CFR, F_FTT.

import { disconnect, finish, imageModem, retryOrGiveUp, type Draft, type Handler } from './core.js';
import { decodeDcs, decodeDis, encodeDcs, encodeDis } from './dis.js';
import { buildFrame, Fcf, fcfByte } from './fcf.js';
import { encodeIdent } from './ident.js';
import { ratesFor, TCF_DURATION_MS } from './modes.js';
import { chooseMode, dcsFor, disFor, paramsFromDcs, withRate } from './negotiate.js';
import { enter, provide } from './actions.js';
import { answerer, caller, formatsFor, freshRx } from './roles.js';
import { tcfAdd, tcfPassed } from './tcf.js';
import type { MachineInput } from './types.js';

// ---- caller ---------------------------------------------------------------------------

/** (TSI) (SUB) (SID) DCS for the current params. */
function sendDcs(d: Draft): void {
  const cfg = caller(d);
  const dis = d.s.remote.dis!;
  const x = d.x;
  const sub = cfg.subAddress !== undefined && dis.subaddressing;
  const sid = cfg.senderId !== undefined && dis.password;
  const frames: Uint8Array[] = [];
  if (cfg.ident) frames.push(buildFrame(fcfByte('TSI', x), encodeIdent(cfg.ident, 'TSI'), false));
  if (sub) frames.push(buildFrame(fcfByte('SUB', x), encodeIdent(cfg.subAddress!, 'SUB'), false));
  if (sid) frames.push(buildFrame(fcfByte('SID', x), encodeIdent(cfg.senderId!, 'SID'), false));
  frames.push(buildFrame(fcfByte('DCS', x), encodeDcs(dcsFor(d.s.params!, { subaddress: sub, senderId: sid }))));
  d.sendV21(frames);
  d.goto('D', 'B');
}

/** A DIS arrived: choose the mode for the page in hand and send DCS. */
function negotiate(d: Draft, info: Uint8Array): void {
  const cfg = caller(d);
  const dis = decodeDis(info);
  d.s.x = 1;
  d.s.remote = { ...d.s.remote, dis };
  d.s.retries = 0;
  if (!dis.readyToReceive) return disconnect(d, 'T30_ERR_RX_INCAPABLE', 'DIS bit 10 is not set');
  const rates = ratesFor(cfg.modems, dis.modems, cfg.maxBitRate);
  if (rates.length === 0) return disconnect(d, 'T30_ERR_INCOMPATIBLE', 'no common modem');
  const page = d.s.tx?.page ?? 0;
  const choice = chooseMode(dis, cfg, rates[0]!, formatsFor(cfg, page));
  if (!choice.ok) return disconnect(d, choice.completion, choice.detail);
  d.s.rates = rates;
  d.s.rateIndex = 0;
  d.s.params = choice.params;
  d.s.tx = { page, tries: d.s.tx?.tries ?? 0, block: 0, resend: [], burst: 0, pprCount: 0, progress: false, longTrain: true };
  d.act({ kind: 'negotiated', params: choice.params });
  sendDcs(d);
}

/** Down one step of the fallback sequence; false at its end. */
function fallBack(d: Draft): boolean {
  const next = d.s.rates[d.s.rateIndex + 1];
  if (!next) return false;
  d.s.rateIndex += 1;
  d.s.params = withRate(d.s.params!, next.modem);
  d.s.tx = { ...d.s.tx!, coded: undefined };
  d.act({ kind: 'negotiated', params: d.s.params });
  return true;
}

const T: Handler = (d, input) => {
  if (input.kind === 'timeout' && input.timer === 'T1') return finish(d, 'T30_ERR_T1_EXPIRED', 'no DIS');
  if (input.kind !== 'frame') return;
  const f = input.frame;
  switch (f.name) {
    case 'DIS':
    case 'DTC':
      d.stopTimer('T1');
      return negotiate(d, f.info);
    case 'DCN':
      return finish(d, 'T30_ERR_TX_GOTDCN');
    case 'CRP':
      return;
    default:
      if (f.final) return disconnect(d, 'T30_ERR_TX_NODIS', `${f.name ?? 'unknown frame'} instead of DIS`);
  }
};

const D: Handler = (d, input) => {
  if (input.kind === 'tx-done') {
    // TCF always trains long (T.30 5.3.2).
    d.sendHighSpeed({ kind: 'send-tcf', modem: imageModem(d.s.params!.modem, true), durationMs: TCF_DURATION_MS });
    d.goto('D_TCF');
    return;
  }
  if (input.kind === 'frame') callerPhaseBFrame(d, input.frame.name);
};

const D_TCF: Handler = (d, input) => {
  if (input.kind === 'tx-done') {
    d.startTimer('T4');
    d.goto('D_POST_TCF');
    return;
  }
  if (input.kind === 'frame') callerPhaseBFrame(d, input.frame.name);
};

function callerPhaseBFrame(d: Draft, name: string | undefined): void {
  if (name === 'DCN') finish(d, 'T30_ERR_TX_BADDCS');
}

const D_POST_TCF: Handler = (d, input) => {
  if (input.kind === 'timeout' && input.timer === 'T4') return retryOrGiveUp(d, 'T30_ERR_TX_PHBDEAD', 'no answer to DCS and TCF', sendDcs);
  if (input.kind !== 'frame') return;
  const f = input.frame;
  switch (f.name) {
    case 'CFR':
      d.stopTimer('T4');
      d.s.retries = 0;
      d.s.tx = { ...d.s.tx!, longTrain: false };
      return enter.startPage(d);
    case 'FTT':
      d.stopTimer('T4');
      d.s.retries = 0;
      if (!fallBack(d)) return disconnect(d, 'T30_ERR_CANNOT_TRAIN', `the last at ${d.s.params!.modem.bitRate} bit/s`);
      return sendDcs(d);
    case 'DIS':
      // They did not hear our DCS; say it again.
      d.stopTimer('T4');
      return retryOrGiveUp(d, 'T30_ERR_RETRYDCN', 'DIS repeated after DCS', sendDcs);
    case 'DCN':
      return finish(d, 'T30_ERR_TX_BADDCS');
    case 'CRP':
      d.stopTimer('T4');
      return retryOrGiveUp(d, 'T30_ERR_TX_PHBDEAD', 'CRP after DCS', sendDcs);
    default:
      if (f.final) return disconnect(d, 'T30_ERR_UNEXPECTED', `${f.name ?? 'unknown frame'} after TCF`);
  }
};

// ---- answerer -------------------------------------------------------------------------

/** (NSF) (CSI) DIS; T1 runs from the first DIS until a DCS arrives. */
function sendDis(d: Draft): void {
  const cfg = answerer(d);
  const frames: Uint8Array[] = [];
  if (cfg.nsf && cfg.nsf.length > 0) frames.push(buildFrame(Fcf.NSF, cfg.nsf, false));
  if (cfg.ident) frames.push(buildFrame(Fcf.CSI, encodeIdent(cfg.ident, 'CSI'), false));
  frames.push(buildFrame(Fcf.DIS, encodeDis(disFor(cfg))));
  d.sendV21(frames);
  d.goto('R', 'B');
  if (!d.running('T1')) d.startTimer('T1');
}

/** A DCS arrived (first, after FTT, after a lost CFR, or to retrain): check it and take TCF. */
function processDcs(d: Draft, info: Uint8Array): void {
  const cfg = answerer(d);
  const dec = decodeDcs(info);
  if (!dec.ok) return disconnect(d, 'T30_ERR_INCOMPATIBLE', dec.reason);
  const p = paramsFromDcs(dec.dcs, cfg);
  if (!p.ok) return disconnect(d, 'T30_ERR_INCOMPATIBLE', p.detail);
  d.stopTimer('T1');
  d.stopTimer('T2');
  d.stopTimer('T4');
  d.s.retries = 0;
  d.s.params = p.params;
  d.act({ kind: 'negotiated', params: p.params });
  d.s.rx = { ...freshRx(), next: d.s.rx?.next ?? 'MPS' };
  d.setRx({ kind: 'image', modem: imageModem(p.params.modem, true) });
  d.goto('F_TCF', 'B');
  d.startTimer('T2');
}

const ANSWERING: Handler = (d, input) => {
  if (input.kind === 'tx-done') return sendDis(d);
  if (input.kind === 'frame') answererPhaseBFrame(d, input);
};

/** Frames the answerer treats alike while waiting in phase B. */
function answererPhaseBFrame(d: Draft, input: Extract<MachineInput, { kind: 'frame' }>): boolean {
  const f = input.frame;
  switch (f.name) {
    case 'DCS':
      processDcs(d, f.info);
      return true;
    case 'DIS':
    case 'DTC':
      disconnect(d, 'T30_ERR_TX_INCAPABLE', `${f.name} received: the far end wants to receive`);
      return true;
    case 'DCN':
      finish(d, 'T30_ERR_RX_DCNWHY');
      return true;
    default:
      return false;
  }
}

const R: Handler = (d, input) => {
  switch (input.kind) {
    case 'tx-done':
      return d.startTimer('T4');
    case 'timeout':
      if (input.timer === 'T1') return disconnect(d, 'T30_ERR_T1_EXPIRED', 'no DCS');
      // While T1 runs, DIS is repeated every T4 without a retry limit (T.30 5.2, spandsp).
      if (input.timer === 'T4') return sendDis(d);
      return;
    case 'bad-frame':
      if (answerer(d).crp) d.sendFcf('CRP', false);
      return;
    case 'frame':
      if (answererPhaseBFrame(d, input)) return;
      if (input.frame.name === 'CRP') return sendDis(d);
      return;
    default:
  }
};

const F_TCF: Handler = (d, input) => {
  const rx = d.s.rx!;
  switch (input.kind) {
    case 'signal-start':
      d.s.rx = { ...rx, imageSeen: true };
      return d.stopTimer('T2');
    case 'image-data':
      d.stopTimer('T2');
      d.s.rx = { ...rx, tcf: tcfAdd(rx.tcf, input.data) };
      return;
    case 'signal-end': {
      // A signal that started and ended with no data is a training that failed (an audio
      // modem could not train, or T.38 sent a training indicator and no TCF): FTT at once.
      if (rx.tcf.bits === 0 && !rx.imageSeen) return;
      d.setRx({ kind: 'v21' });
      const rate = d.s.params!.modem.bitRate;
      if (tcfPassed(rx.tcf, rate)) {
        d.sendFcf('CFR');
        d.goto('F_CFR');
      } else {
        d.sendFcf('FTT');
        d.goto('F_FTT');
      }
      return;
    }
    case 'timeout':
      if (input.timer !== 'T2') return;
      d.setRx({ kind: 'v21' });
      d.sendFcf('FTT');
      d.goto('F_FTT');
      return;
    case 'frame':
      answererPhaseBFrame(d, input);
      return;
    default:
  }
};

const F_CFR: Handler = (d, input) => {
  if (input.kind === 'tx-done') {
    d.s.rx = { ...d.s.rx!, longTrain: false };
    return enter.startReceivingPage(d);
  }
  if (input.kind === 'frame') answererPhaseBFrame(d, input);
};

const F_FTT: Handler = (d, input) => {
  switch (input.kind) {
    case 'tx-done':
      return d.startTimer('T2');
    case 'timeout':
      if (input.timer === 'T2') return sendDis(d);
      return;
    case 'bad-frame':
      if (answerer(d).crp) d.sendFcf('CRP', false);
      return;
    case 'frame':
      if (answererPhaseBFrame(d, input)) return;
      if (input.frame.name === 'CRP') return retryOrGiveUp(d, 'T30_ERR_RETRYDCN', 'CRP after FTT');
      return;
    default:
  }
};

export const PHASE_B = { T, D, D_TCF, D_POST_TCF, ANSWERING, R, F_TCF, F_CFR, F_FTT } as const;

provide({ sendDcs, fallBack, sendDis, processDcs, answererPhaseBFrame });
