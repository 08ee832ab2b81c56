// What every state handler of the machine uses: a draft of the next state that collects the
// actions of one step (the input state is never touched), sending frames, timers, and the
// ways a call ends — DCN then hang-up, or hang-up straight away.

import { completionCode, completionMessage, type Completion } from './completion.js';
import { buildFrame, fcfByte, type FcfName } from './fcf.js';
import type { ModemSpec, RxMode } from './front-end.js';
import type { ChunkList, FrameList, MachineInput, Phase, StateName, T30Action, T30Result, T30State, T30Step, T30TimerName, TimerName } from './types.js';

/**
 * T.30 5.4.3 timer values (ms): T1 35 s ± 5, T2 6 s ± 1, T3 10 s ± 5, T4 3 s ± 15 %, T5 60 s ± 5.
 * T3 (alerting an operator after PIP/PIN) is never started: there is no operator, so PIP is
 * taken as MCF and PIN as RTN straight away.
 */
export const TIMER_DEFAULTS: Readonly<Record<T30TimerName, number>> = { T1: 35_000, T2: 6_000, T3: 10_000, T4: 3_000, T5: 60_000 };

/** Silence between our own transmissions of different modulations (T.30 5.3.2: 75 ms ± 20). */
const GAP_MS = 75;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The state copied field by field, for the draft of every step. Not `{ ...prev }`: a spread of a
 * copy of a copy ran in V8's slow path (0.5–1 µs a copy), and a non-ECM page's data arrives as one
 * input per 20 ms block (docs/benchmarks.md, audio-call). The literal names every field of
 * T30State (none is optional), so the compiler catches a field added there and not here.
 */
function copyState(s: T30State): Mutable<T30State> {
  return {
    cfg: s.cfg,
    state: s.state,
    phase: s.phase,
    x: s.x,
    timers: s.timers,
    awaitingTx: s.awaitingTx,
    retries: s.retries,
    last: s.last,
    remote: s.remote,
    params: s.params,
    rates: s.rates,
    rateIndex: s.rateIndex,
    pages: s.pages,
    tx: s.tx,
    rx: s.rx,
    rxReady: s.rxReady,
    result: s.result,
  };
}

export class Draft {
  readonly s: Mutable<T30State>;
  readonly actions: T30Action[] = [];

  constructor(prev: T30State) {
    this.s = copyState(prev);
  }

  get x(): 0 | 1 {
    return this.s.x;
  }

  act(...a: T30Action[]): void {
    this.actions.push(...a);
  }

  goto(state: StateName, phase?: Phase): void {
    this.s.state = state;
    if (phase) this.s.phase = phase;
  }

  /** Starts (or restarts) a timer: one of T.30's at its configured value, T2_HOLD for `ms`. */
  startTimer(timer: T30TimerName): void;
  startTimer(timer: 'T2_HOLD', ms: number): void;
  startTimer(timer: TimerName, ms = 0): void {
    if (!this.s.timers.includes(timer)) this.s.timers = [...this.s.timers, timer];
    this.act({ kind: 'start-timer', timer, ms: timer === 'T2_HOLD' ? ms : this.s.cfg.timers[timer] });
  }

  stopTimer(timer: TimerName): void {
    if (!this.s.timers.includes(timer)) return;
    this.s.timers = this.s.timers.filter((t) => t !== timer);
    this.act({ kind: 'stop-timer', timer });
  }

  stopTimers(): void {
    for (const t of this.s.timers) this.act({ kind: 'stop-timer', timer: t });
    this.s.timers = [];
  }

  running(timer: TimerName): boolean {
    return this.s.timers.includes(timer);
  }

  setRx(mode: RxMode): void {
    this.act({ kind: 'set-rx', mode });
  }

  /** V.21 frames; `remember` keeps them for CRP and T4 repeats. */
  sendV21(frames: Uint8Array[], remember = true): void {
    this.act({ kind: 'send-hdlc', frames, modem: 'v21' });
    this.s.awaitingTx = true;
    if (remember) this.s.last = frames;
  }

  sendFcf(name: FcfName, remember = true): void {
    this.sendV21([buildFrame(fcfByte(name, this.s.x))], remember);
  }

  /** Silence, then a high-speed transmission: the modulation changes (T.30 5.3.2). */
  gap(): void {
    this.act({ kind: 'send-silence', durationMs: GAP_MS });
  }

  sendHighSpeed(cmd: { kind: 'send-tcf'; modem: ModemSpec; durationMs: number } | { kind: 'send-image'; modem: ModemSpec; data: Uint8Array } | { kind: 'send-hdlc'; frames: Uint8Array[]; modem: ModemSpec }): void {
    this.gap();
    this.act(cmd);
    this.s.awaitingTx = true;
  }

  step(): T30Step {
    return { state: this.s, actions: this.actions };
  }
}

export type Handler = (d: Draft, input: MachineInput) => void;

/** A modem setting for image data: V.17 trains short once TCF/CTC trained it long (T.30 5.3.2). */
export function imageModem(modem: ModemSpec, longTrain: boolean): ModemSpec {
  return modem.modulation === 'v17' ? { modulation: modem.modulation, bitRate: modem.bitRate, shortTrain: !longTrain } : { modulation: modem.modulation, bitRate: modem.bitRate };
}

/** A result for `s` as it stands: its pages, where it is, what we know of the far end. */
export function resultOf(s: T30State, completion: Completion, detail?: string): T30Result {
  const r = s.remote;
  return {
    completion,
    code: completionCode(completion),
    message: completionMessage(completion, detail),
    pages: s.pages,
    phase: s.phase,
    state: s.state,
    ...(r.ident ? { remoteIdent: r.ident } : {}),
    ...(r.subAddress ? { subAddress: r.subAddress } : {}),
    ...(r.senderId ? { senderId: r.senderId } : {}),
    ...(s.params ? { params: s.params } : {}),
  };
}

function setResult(d: Draft, completion: Completion, detail?: string): void {
  d.s.result ??= resultOf(d.s, completion, detail);
}

/** Ends the call with DCN (phase E): hang-up follows when it has left, or after T4 at most. */
export function disconnect(d: Draft, completion: Completion, detail?: string): void {
  setResult(d, completion, detail);
  d.stopTimers();
  d.setRx({ kind: 'none' });
  d.sendFcf('DCN', false);
  d.goto('B', 'E');
  d.startTimer('T4');
}

/** Ends the call without sending anything (the far end left, or DCN has gone). */
export function finish(d: Draft, completion: Completion = 'T30_ERR_OK', detail?: string): void {
  setResult(d, completion, detail);
  d.stopTimers();
  d.act({ kind: 'hangup' });
  d.act({ kind: 'done', result: d.s.result! });
  d.s.awaitingTx = false;
  d.goto('CALL_FINISHED', 'E');
}

/** Sends the last command/response again (CRP, or its timer ran out). */
export function repeatLast(d: Draft): void {
  if (d.s.last) d.sendV21([...d.s.last]);
}

/**
 * A command went unanswered (T4) or was asked again (CRP): repeat it, up to maxCommandTries
 * transmissions in all (T.30: three), then disconnect with `completion`.
 */
export function retryOrGiveUp(d: Draft, completion: Completion, detail: string, resend: (d: Draft) => void = repeatLast): void {
  d.s.retries += 1;
  if (d.s.retries >= d.s.cfg.maxCommandTries) {
    disconnect(d, completion, detail);
    return;
  }
  resend(d);
}

export function appendChunk(list: ChunkList, chunk: Uint8Array): ChunkList {
  return { chunk, prev: list, bytes: (list?.bytes ?? 0) + chunk.length };
}

export function chunksToArray(list: ChunkList): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let c = list; c; c = c.prev) out.push(c.chunk);
  return out.reverse();
}

export function concatChunks(list: ChunkList): Uint8Array {
  if (list && !list.prev) return list.chunk; // one chunk (an ECM page of one block): no copy
  const out = new Uint8Array(list?.bytes ?? 0);
  let off = 0;
  for (const c of chunksToArray(list)) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}

/** The block's frames by number, the last copy of each received (a list of up to 256). */
export function framesByNumber(list: FrameList, size: number): (Uint8Array | undefined)[] {
  const out = new Array<Uint8Array | undefined>(size).fill(undefined);
  for (let f = list; f; f = f.prev) if (f.no < size) out[f.no] ??= f.payload;
  return out;
}
