// Scripted T.30 exchanges in the manner of TSB-85: the device under test is the pure machine;
// each step feeds it inputs (frames in TSB-85 notation, tx-done, timer expiries, image data)
// and checks, under a check id, exactly what it does. A recording front end serves the
// session-level tests that run timers on an injected clock.

import { expect } from 'vitest';
import { decodeFcf, parseFrame } from '../../src/t30/fcf.js';
import type { FrontEndCommand, FrontEndEvent, ModemSpec, RxMode, T30FrontEnd } from '../../src/t30/front-end.js';
import { createT30, step } from '../../src/t30/machine.js';
import type { T30Action, T30Config, T30Input, T30State, TimerName } from '../../src/t30/types.js';
import { toTsb, tsb } from './tsb85.js';

const modem = (m: ModemSpec | 'v21'): string =>
  m === 'v21' ? 'v21' : `${m.modulation}/${m.bitRate}${m.shortTrain === undefined ? '' : m.shortTrain ? ' short' : ' long'}`;

function rx(mode: RxMode): string {
  return mode.kind === 'none' || mode.kind === 'v21' ? mode.kind : `${mode.kind} ${modem(mode.modem)}`;
}

function frameName(f: Uint8Array): string {
  const { name, x } = decodeFcf(f[2] ?? 0);
  return `${name ?? '?'}${x ? '+' : ''}`;
}

/** Frame names of one transmission, runs of FCD/RCP counted ("FCD×12 RCP×3"). */
function frameNames(frames: Uint8Array[]): string {
  const names = frames.map(frameName);
  const out: string[] = [];
  for (let i = 0; i < names.length; ) {
    let j = i;
    while (j < names.length && names[j] === names[i]) j++;
    const n = j - i;
    out.push(n > 1 && (names[i] === 'FCD' || names[i] === 'RCP') ? `${names[i]}×${n}` : names.slice(i, j).join(' '));
    i = j;
  }
  return out.join(' ');
}

/** One line per action, compact enough to compare whole steps at once. */
export function describe1(a: T30Action): string {
  switch (a.kind) {
    case 'set-rx':
      return `rx ${rx(a.mode)}`;
    case 'send-tone':
      return `tone ${a.tone}`;
    case 'send-hdlc':
      return `hdlc ${modem(a.modem)} ${frameNames(a.frames)}`;
    case 'send-tcf':
      return `tcf ${modem(a.modem)} ${a.durationMs}ms`;
    case 'send-image':
      return `image ${modem(a.modem)}`;
    case 'send-silence':
      return `silence ${a.durationMs}`;
    case 'hangup':
      return 'hangup';
    case 'start-timer':
      return `start ${a.timer} ${a.ms}`;
    case 'stop-timer':
      return `stop ${a.timer}`;
    case 'negotiated': {
      const p = a.params;
      return `negotiated ${p.modem.modulation}/${p.modem.bitRate} ${p.coding} ${p.resolution} ${p.paperWidth}${p.ecm ? ` ecm${p.ecmFrameSize}` : ''}`;
    }
    case 'page-confirmed':
      return `confirmed ${a.page}`;
    case 'page-received':
      return `received ${a.page.index} ${a.page.quality}`;
    case 'done':
      return `done ${a.result.completion} ${a.result.code} pages=${a.result.pages}`;
  }
}

export const summary = (actions: T30Action[]): string[] => actions.map(describe1);

/** Every HDLC frame sent, in TSB-85 notation. */
export function sentFrames(actions: T30Action[]): string[] {
  return actions.flatMap((a) => (a.kind === 'send-hdlc' ? a.frames.map(toTsb) : []));
}

export function sentHdlc(actions: T30Action[]): Uint8Array[] {
  return actions.flatMap((a) => (a.kind === 'send-hdlc' ? a.frames : []));
}

// ---- inputs -------------------------------------------------------------------------------

export const start: T30Input = { kind: 'start' };
export const txDone: T30Input = { kind: 'tx-done' };
export const timeout = (timer: TimerName): T30Input => ({ kind: 'timeout', timer });
export const lineDown: T30Input = { kind: 'line-down', reason: 'BYE' };

/** A frame in TSB-85 notation ("FF C8 31"), or as octets. */
export function frame(f: string | Uint8Array, crcOk = true): T30Input {
  return { kind: 'hdlc', frame: typeof f === 'string' ? tsb(f) : f, crcOk };
}

/** A high-speed signal: carrier, the data in chunks, end. */
export function highSpeed(data: Uint8Array, chunk = 300): T30Input[] {
  const out: T30Input[] = [{ kind: 'carrier', on: true }];
  for (let off = 0; off < data.length; off += chunk) out.push({ kind: 'image-data', data: data.subarray(off, off + chunk) });
  out.push({ kind: 'image-end' });
  return out;
}

/** TCF as a transmitter sends it: `ms` of zeros (1.5 s) at `bitRate`. */
export function tcf(bitRate: number, ms = 1500, fill = 0): T30Input[] {
  return highSpeed(new Uint8Array((bitRate * ms) / 8000).fill(fill));
}

/** An ECM burst as the receiver hears it: carrier, the frames, carrier off. */
export function burst(frames: Uint8Array[]): T30Input[] {
  return [{ kind: 'carrier', on: true }, ...frames.map((f) => frame(f)), { kind: 'carrier', on: false }];
}

// ---- the device under test --------------------------------------------------------------------

export class Dut {
  state: T30State;
  constructor(cfg: T30Config) {
    this.state = createT30(cfg);
  }

  /** Feeds inputs in order; returns every action they caused. */
  feed(...inputs: Array<T30Input | T30Input[]>): T30Action[] {
    const out: T30Action[] = [];
    for (const i of inputs.flat()) {
      const r = step(this.state, i);
      this.state = r.state;
      out.push(...r.actions);
    }
    return out;
  }

  /** Feeds inputs and checks the actions (check id in the failure message). */
  check(id: string, inputs: T30Input | T30Input[], expected: string[]): T30Action[] {
    const out = this.feed(inputs);
    expect(summary(out), `${id} (state ${this.state.state})`).toEqual(expected);
    return out;
  }
}

/** The last frame sent in `actions`, parsed. */
export function lastFrame(actions: T30Action[]): ReturnType<typeof parseFrame> {
  const frames = sentHdlc(actions);
  return parseFrame(frames[frames.length - 1]!);
}

// ---- a recording front end for the session tests ---------------------------------------------

export class FakeFrontEnd implements T30FrontEnd {
  readonly commands: FrontEndCommand[] = [];
  private handler: ((e: FrontEndEvent) => void) | undefined;
  /** Answer every transmission with tx-done (on the microtask queue). */
  autoTxDone = true;

  command(cmd: FrontEndCommand): void {
    this.commands.push(cmd);
    if (this.autoTxDone && cmd.kind !== 'set-rx' && cmd.kind !== 'hangup' && !(cmd.kind === 'send-tone' && cmd.tone === 'cng')) {
      queueMicrotask(() => this.emit({ kind: 'tx-done' }));
    }
  }

  onEvent(handler: (event: FrontEndEvent) => void): void {
    this.handler = handler;
  }

  close(): void {
    this.handler = undefined;
  }

  emit(e: FrontEndEvent): void {
    this.handler?.(e);
  }

  /** Names of the V.21 frames sent so far ("TSI+ DCS+" per transmission). */
  sent(): string[] {
    return this.commands.flatMap((c) => (c.kind === 'send-hdlc' ? [frameNames(c.frames)] : []));
  }
}
