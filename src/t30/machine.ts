// The T.30 machine (ITU-T T.30 5.2, phases A–E) as a pure function: step(state, input) →
// { state, actions }. Inputs are front-end events, timer expiries and application inputs;
// actions are front-end commands, timer starts/stops and reports. One handler per state
// (a Record, so a missing state is a compile error), spread over phase-b/c/d/d-rx.ts.

import { Draft, finish, disconnect, TIMER_DEFAULTS, type Handler } from './core.js';
import { parseFrame, type ParsedFrame } from './fcf.js';
import { endHoldOutsideWaits } from './hold.js';
import { decodeIdent, decodeNsf, encodeIdent } from './ident.js';
import type { ModemSupport } from './modes.js';
import { ALL_RESOLUTIONS, NO_SCAN_TIME } from './modes.js';
import { PHASE_B } from './phase-b.js';
import { PHASE_C } from './phase-c.js';
import { PHASE_D_TX } from './phase-d.js';
import { PHASE_D_RX } from './phase-d-rx.js';
import type {
  MachineInput,
  ResolvedAnswerer,
  ResolvedCaller,
  StateName,
  T30Config,
  T30Input,
  T30State,
  T30Step,
} from './types.js';

const ALL_MODEMS: ModemSupport = { v27ter: true, v29: true, v17: true };

const IDLE: Handler = () => {};

/** DCN sent: hang up once it has left (or T4 later, should tx-done never come). */
const B: Handler = (d, input) => {
  if (input.kind === 'tx-done' || (input.kind === 'timeout' && input.timer === 'T4')) finish(d);
};

const HANDLERS: Record<StateName, Handler> = {
  IDLE,
  ...PHASE_B,
  ...PHASE_C,
  ...PHASE_D_TX,
  ...PHASE_D_RX,
  B,
  CALL_FINISHED: IDLE,
};

function resolve(cfg: T30Config): ResolvedCaller | ResolvedAnswerer {
  const ident = cfg.ident ?? '';
  encodeIdent(ident, 'ident'); // validates
  const tries = cfg.maxCommandTries ?? 3;
  if (!Number.isInteger(tries) || tries < 1 || tries > 10) throw new RangeError(`maxCommandTries must be an integer in 1..10, got ${tries}`);
  const timers = { ...TIMER_DEFAULTS, ...cfg.timers };
  for (const [t, ms] of Object.entries(timers)) if (!(ms > 0)) throw new RangeError(`timer ${t} must be > 0 ms, got ${ms}`);
  const common = {
    ident,
    ...(cfg.nsf ? { nsf: cfg.nsf } : {}),
    modems: { ...(cfg.modems ?? ALL_MODEMS) },
    ecm: cfg.ecm ?? true,
    codings: [...(cfg.codings ?? ['mh', 'mr', 'mmr'])],
    timers,
    maxCommandTries: tries,
  };
  if (common.codings.length === 0) throw new RangeError('codings must name at least one of mh, mr, mmr');
  if (cfg.role === 'caller') {
    if (!Number.isInteger(cfg.source.count) || cfg.source.count < 1) throw new RangeError(`source.count must be an integer ≥ 1, got ${cfg.source.count}`);
    if (cfg.subAddress !== undefined) encodeIdent(cfg.subAddress, 'subAddress');
    if (cfg.senderId !== undefined) encodeIdent(cfg.senderId, 'senderId');
    const maxPageTries = cfg.maxPageTries ?? 3;
    if (!Number.isInteger(maxPageTries) || maxPageTries < 1) throw new RangeError(`maxPageTries must be an integer ≥ 1, got ${maxPageTries}`);
    const formats = cfg.formats ?? { resolutions: ['R8_FINE', 'R8_STANDARD'], widths: ['a4'] };
    if (formats.resolutions.length === 0 || formats.widths.length === 0) throw new RangeError('formats must name at least one resolution and one width');
    return {
      ...common,
      role: 'caller',
      source: cfg.source,
      formats,
      maxBitRate: cfg.maxBitRate ?? 14400,
      ecmFrameSize: cfg.ecmFrameSize ?? 256,
      ...(cfg.subAddress !== undefined ? { subAddress: cfg.subAddress } : {}),
      ...(cfg.senderId !== undefined ? { senderId: cfg.senderId } : {}),
      onRtn: cfg.onRtn ?? 'resend',
      maxPageTries,
    };
  }
  return {
    ...common,
    role: 'answerer',
    resolutions: [...(cfg.resolutions ?? ALL_RESOLUTIONS)],
    widths: [...(cfg.widths ?? ['a4', 'b4', 'a3'])],
    lengths: [...(cfg.lengths ?? ['a4', 'b4', 'unlimited'])],
    scanLine: cfg.scanLine ?? NO_SCAN_TIME,
    decode: cfg.decode ?? true,
    keepBadPages: cfg.keepBadPages ?? false,
    crp: cfg.crp ?? true,
  };
}

/** A machine for one call, before `{ kind: 'start' }`. Throws a RangeError naming a bad option. */
export function createT30(cfg: T30Config): T30State {
  return {
    cfg: resolve(cfg),
    state: 'IDLE',
    phase: 'A',
    x: 0,
    timers: [],
    awaitingTx: false,
    retries: 0,
    last: undefined,
    remote: {},
    params: undefined,
    rates: [],
    rateIndex: 0,
    pages: 0,
    tx: undefined,
    rx: undefined,
    rxReady: true,
    result: undefined,
  };
}

/** Identification and facilities frames that precede the final frame of a command. */
function noteFrame(d: Draft, f: ParsedFrame): void {
  const r = d.s.remote;
  switch (f.name) {
    case 'CSI':
    case 'TSI':
    case 'CIG':
      d.s.remote = { ...r, ident: decodeIdent(f.info) };
      return;
    case 'NSF':
    case 'NSS':
    case 'NSC': {
      const nsf = decodeNsf(f.info);
      if (nsf) d.s.remote = { ...r, nsf };
      return;
    }
    case 'SUB':
      d.s.remote = { ...r, subAddress: decodeIdent(f.info) };
      return;
    case 'SID':
      d.s.remote = { ...r, senderId: decodeIdent(f.info) };
      return;
    case 'PWD':
      d.s.remote = { ...r, password: decodeIdent(f.info) };
      return;
    default:
  }
}

function start(d: Draft): void {
  d.setRx({ kind: 'v21' });
  if (d.s.cfg.role === 'caller') {
    // CNG until DIS; T1 bounds the wait (T.30 5.4.3.1).
    d.act({ kind: 'send-tone', tone: 'cng' });
    d.startTimer('T1');
    d.goto('T', 'A');
  } else {
    d.act({ kind: 'send-tone', tone: 'ced' });
    d.s.awaitingTx = true;
    d.goto('ANSWERING', 'A');
  }
}

/** The line went away: a success when everything was already done, otherwise a dropped call. */
function lineDown(d: Draft, reason: string): void {
  const s = d.s;
  if (s.state === 'B') return finish(d);
  const rx = s.rx;
  const receivedAll = (s.state === 'III_Q' || s.state === 'F_POST_RCP_MCF') && rx?.next === 'EOP' && rx.response !== 'RTN';
  if (receivedAll) return finish(d);
  finish(d, 'T30_ERR_CALLDROPPED', reason);
}

function dispatch(d: Draft, input: MachineInput): void {
  HANDLERS[d.s.state](d, input);
}

/** One step of the machine. `state` is left as it was; the returned state replaces it. */
export function step(state: T30State, input: T30Input): T30Step {
  const d = new Draft(state);
  if (state.state === 'CALL_FINISHED') return d.step();
  switch (input.kind) {
    case 'start':
      if (state.state === 'IDLE') start(d);
      break;
    case 'abort':
      if (state.state === 'IDLE') finish(d, 'T30_ERR_CALLDROPPED', input.reason ?? 'aborted locally');
      else if (state.state !== 'B') disconnect(d, 'T30_ERR_CALLDROPPED', input.reason ?? 'aborted locally');
      break;
    case 'rx-ready':
      d.s.rxReady = input.ready;
      break;
    case 'line-down':
      lineDown(d, input.reason);
      break;
    case 'timeout':
      if (!d.running(input.timer)) break; // stopped meanwhile
      d.s.timers = d.s.timers.filter((t) => t !== input.timer);
      dispatch(d, input);
      break;
    case 'tx-done':
      if (!state.awaitingTx) break;
      d.s.awaitingTx = false;
      dispatch(d, input);
      break;
    case 'hdlc': {
      if (!input.crcOk) {
        // T2 restarts when flags are heard (T.30 timer T2): the far end is still there.
        if (d.running('T2')) d.startTimer('T2');
        dispatch(d, { kind: 'bad-frame' });
        break;
      }
      const f = parseFrame(input.frame);
      if (!f) break;
      if (!f.final) noteFrame(d, f);
      dispatch(d, { kind: 'frame', frame: f });
      break;
    }
    case 'carrier':
      dispatch(d, { kind: input.on ? 'signal-start' : 'signal-end' });
      break;
    case 'image-end':
      dispatch(d, { kind: 'signal-end' });
      break;
    case 'image-data':
    case 'tone':
    case 'line-signal':
      dispatch(d, input);
      break;
    default: {
      const never: never = input;
      throw new Error(`T.30: unknown input ${JSON.stringify(never)}`);
    }
  }
  endHoldOutsideWaits(d);
  return d.step();
}
