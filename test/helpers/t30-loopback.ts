// Two ideal T.30 front ends joined back to back: what one side transmits reaches the other
// (when it listens for that modulation), then the sender gets tx-done. Instant by default
// (deliveries in order on the microtask queue); `paced` spends the transmission times on the
// injected clock instead. A `tamper` hook can drop or corrupt what is delivered.

import { ManualClock, type Clock } from '../../src/shared/clock.js';
import type { FrontEndCommand, FrontEndEvent, ModemSpec, RxMode, T30FrontEnd } from '../../src/t30/front-end.js';
import { T30Session, type T30Progress } from '../../src/t30/session.js';
import type { AnswererConfig, CallerConfig, ReceivedPage, T30Result } from '../../src/t30/types.js';

export type Side = 'caller' | 'answerer';

export interface LoopbackOptions {
  /** Required for `paced`. */
  clock?: Clock;
  /** Transmissions take their line time (V.21 at 300 bit/s, images at the modem rate). */
  paced?: boolean;
  /** Sees every event on its way to `to`; returns what to deliver instead (null: nothing). */
  tamper?: (to: Side, event: FrontEndEvent) => FrontEndEvent | FrontEndEvent[] | null;
  /** Bytes per image-data event (default 512). */
  chunkBytes?: number;
}

export interface LoopbackEnd extends T30FrontEnd {
  readonly commands: FrontEndCommand[];
  readonly rx: RxMode;
  readonly hungUp: boolean;
}

export interface T30Loopback {
  caller: LoopbackEnd;
  answerer: LoopbackEnd;
  /** The line drops: both sides hear line-down. */
  drop(reason?: string): void;
}

const sameModem = (a: ModemSpec, b: ModemSpec): boolean => a.modulation === b.modulation && a.bitRate === b.bitRate;

class End implements LoopbackEnd {
  readonly commands: FrontEndCommand[] = [];
  rx: RxMode = { kind: 'none' };
  hungUp = false;
  handler: ((e: FrontEndEvent) => void) | undefined;
  /** Paced mode: when this side's transmitter is free again. */
  freeAt = 0;
  constructor(
    readonly side: Side,
    private readonly onCommand: (from: End, cmd: FrontEndCommand) => void,
  ) {}
  command(cmd: FrontEndCommand): void {
    this.commands.push(cmd);
    this.onCommand(this, cmd);
  }
  onEvent(handler: (event: FrontEndEvent) => void): void {
    this.handler = handler;
  }
  close(): void {
    this.handler = undefined;
  }
}

function hdlcBits(frames: Uint8Array[]): number {
  // flags, FCS and a little bit stuffing per frame
  return frames.reduce((n, f) => n + (f.length + 4) * 8 * 1.02, 32 * 8);
}

export function createT30Loopback(opts: LoopbackOptions = {}): T30Loopback {
  const chunk = opts.chunkBytes ?? 512;
  const clock = opts.clock;
  if (opts.paced && !clock) throw new Error('createT30Loopback: paced needs a clock');
  let down = false;
  const ends = {} as Record<Side, End>;

  const emit = (to: End, event: FrontEndEvent): void => {
    if (down && event.kind !== 'line-down') return;
    const out = opts.tamper ? opts.tamper(to.side, event) : event;
    if (!out) return;
    for (const e of Array.isArray(out) ? out : [out]) to.handler?.(e);
  };

  /** Runs `fn` after everything already queued (instant), or at `at` ms on the clock (paced). */
  const later = (fn: () => void, at?: number): void => {
    if (opts.paced && clock && at !== undefined) clock.setTimer(Math.max(0, at - clock.now()), fn);
    else queueMicrotask(fn);
  };

  const transmit = (from: End, cmd: Exclude<FrontEndCommand, { kind: 'set-rx' } | { kind: 'hangup' }>): void => {
    const peer = from.side === 'caller' ? ends.answerer : ends.caller;
    let ms = 0;
    let deliver: () => void = () => {};
    switch (cmd.kind) {
      case 'send-silence':
        ms = cmd.durationMs;
        break;
      case 'send-tone':
        ms = cmd.tone === 'ced' ? 3000 : 500;
        deliver = () => emit(peer, { kind: 'tone', tone: cmd.tone });
        break;
      case 'send-hdlc': {
        const v21 = cmd.modem === 'v21';
        ms = (hdlcBits(cmd.frames) / (v21 ? 300 : (cmd.modem as ModemSpec).bitRate)) * 1000;
        deliver = () => {
          const rx = peer.rx;
          const listening = v21 ? rx.kind === 'v21' : rx.kind === 'image-hdlc' && sameModem(rx.modem, cmd.modem as ModemSpec);
          // V.21 is heard whatever the peer listens for (front-end.ts), without carrier events.
          if (!listening && !(v21 && rx.kind !== 'none')) return;
          if (listening) emit(peer, { kind: 'carrier', on: true });
          for (const frame of cmd.frames) emit(peer, { kind: 'hdlc', frame: frame.slice(), crcOk: true });
          if (listening) emit(peer, { kind: 'carrier', on: false });
        };
        break;
      }
      case 'send-tcf':
      case 'send-image': {
        const data = cmd.kind === 'send-tcf' ? new Uint8Array(Math.round((cmd.modem.bitRate * cmd.durationMs) / 8000)) : cmd.data;
        ms = (data.length * 8 * 1000) / cmd.modem.bitRate + (cmd.kind === 'send-tcf' ? 0 : 250);
        deliver = () => {
          const rx = peer.rx;
          if (rx.kind !== 'image' || !sameModem(rx.modem, cmd.modem)) return;
          emit(peer, { kind: 'carrier', on: true });
          for (let off = 0; off < data.length; off += chunk) emit(peer, { kind: 'image-data', data: data.slice(off, off + chunk) });
          emit(peer, { kind: 'image-end' });
        };
        break;
      }
    }
    if (opts.paced && clock) {
      const start = Math.max(clock.now(), from.freeAt);
      const end = start + ms;
      from.freeAt = end;
      later(() => emit(from, { kind: 'tx-done' }), end);
      later(deliver, end);
    } else {
      // The sender hears tx-done before the peer can answer, as on a real line.
      later(() => emit(from, { kind: 'tx-done' }));
      later(deliver);
    }
  };

  const onCommand = (from: End, cmd: FrontEndCommand): void => {
    if (from.hungUp) return;
    switch (cmd.kind) {
      case 'set-rx':
        from.rx = cmd.mode;
        return;
      case 'hangup': {
        from.hungUp = true;
        const peer = from.side === 'caller' ? ends.answerer : ends.caller;
        later(() => {
          if (!peer.hungUp) emit(peer, { kind: 'line-down', reason: `${from.side} hung up` });
        }, opts.paced && clock ? Math.max(clock.now(), from.freeAt) : undefined);
        return;
      }
      default:
        transmit(from, cmd);
    }
  };

  ends.caller = new End('caller', onCommand);
  ends.answerer = new End('answerer', onCommand);
  return {
    caller: ends.caller,
    answerer: ends.answerer,
    drop(reason = 'line dropped') {
      down = true;
      for (const e of [ends.caller, ends.answerer]) later(() => emit(e, { kind: 'line-down', reason }));
    },
  };
}

// ---- a whole call over the loopback ---------------------------------------------------------


export interface LoopbackCall {
  caller: T30Result;
  answerer: T30Result;
  /** Pages the answerer accepted, in order. */
  received: ReceivedPage[];
  /** Source indexes the caller saw confirmed. */
  confirmed: number[];
  /** Both sides' progress, in order, for diagnostics. */
  log: Array<{ side: Side; p: T30Progress }>;
  /** Simulated time the call took (ms). */
  elapsedMs: number;
}

/**
 * Runs a caller and an answerer session against each other until both are done, moving the
 * manual clock forward whenever nothing else can happen (at most `limitMs` of simulated time).
 */
export async function runLoopbackCall(
  callerCfg: Omit<CallerConfig, 'role'>,
  answererCfg: Omit<AnswererConfig, 'role'> = {},
  opts: Omit<LoopbackOptions, 'clock'> & { limitMs?: number; onLoopback?: (l: T30Loopback, s: { caller: T30Session; answerer: T30Session }) => void } = {},
): Promise<LoopbackCall> {
  const clock = new ManualClock();
  const t0 = clock.now();
  const line = createT30Loopback({ ...opts, clock });
  const log: LoopbackCall['log'] = [];
  const received: ReceivedPage[] = [];
  const confirmed: number[] = [];
  const answerer = new T30Session({
    config: { role: 'answerer', ...answererCfg },
    frontEnd: line.answerer,
    clock,
    onProgress: (p) => {
      log.push({ side: 'answerer', p });
      if (p.kind === 'page-received') received.push(p.page);
    },
  });
  const caller = new T30Session({
    config: { role: 'caller', ...callerCfg },
    frontEnd: line.caller,
    clock,
    onProgress: (p) => {
      log.push({ side: 'caller', p });
      if (p.kind === 'page-confirmed') confirmed.push(p.page);
    },
  });
  opts.onLoopback?.(line, { caller, answerer });
  answerer.start();
  caller.start();
  const limit = opts.limitMs ?? 600_000;
  while (!(caller.finished && answerer.finished) && clock.now() - t0 < limit) await clock.advance(100);
  if (!caller.finished || !answerer.finished) {
    const tail = log.slice(-30).map((e) => `${e.side} ${JSON.stringify(e.p, (_k, v) => (v instanceof Uint8Array ? `[${v.length} bytes]` : v))}`);
    throw new Error(`loopback call did not finish in ${limit} ms (caller ${caller.state.state}, answerer ${answerer.state.state})\n${tail.join('\n')}`);
  }
  return { caller: await caller.result, answerer: await answerer.result, received, confirmed, log, elapsedMs: clock.now() - t0 };
}
