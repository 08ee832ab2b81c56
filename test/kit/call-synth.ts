// Test captures made from real calls: two T30Sessions (src/t30) talk over T.38 on a memory
// link; every datagram is recorded (a pcap's worth), and every command each side gave its front
// end is kept and rendered afterwards into the audio that side would have sent — tones, V.21
// HDLC, TCF, image data and ECM frames from our own modulators — one channel per side, half
// duplex, with T.30's 75 ms between signals. Used by the capture tests (test kit: never shipped).
import {
  END_OF_DATA,
  HdlcTx,
  ToneTx,
  TONES,
  V17Tx,
  V21Tx,
  V27terTx,
  V29Tx,
  type GetBit,
  type V17BitRate,
  type V27terBitRate,
  type V29BitRate,
} from '../../native-free-dsp/index.js';
import type { Bitmap } from '../../src/codecs/index.js';
import { ManualClock } from '../../src/shared/clock.js';
import {
  T30Session,
  type AnswererConfig,
  type CallerConfig,
  type FrontEndCommand,
  type ModemSpec,
  type ReceivedPage,
  type T30FrontEnd,
  type T30Result,
} from '../../src/t30/index.js';
import { createMemoryLink, T38FrontEnd, type MemoryLinkOptions, type T38FrontEndOptions } from '../../src/transport/t38/index.js';
import type { Side } from '../../src/analysis/index.js';

export interface RecordedCommand {
  side: Side;
  atMs: number;
  cmd: FrontEndCommand;
}

export interface RecordedDatagram {
  atMs: number;
  from: Side;
  data: Uint8Array;
}

export interface RecordedCall {
  commands: RecordedCommand[];
  datagrams: RecordedDatagram[];
  received: ReceivedPage[];
  caller: T30Result;
  answerer: T30Result;
}

export interface RecordCallOptions {
  pages: Bitmap[];
  ecm: boolean;
  caller?: Partial<Omit<CallerConfig, 'role' | 'source'>>;
  answerer?: Partial<Omit<AnswererConfig, 'role'>>;
  link?: Omit<MemoryLinkOptions, 'clock' | 'drop'>;
  fe?: Partial<T38FrontEndOptions>;
}

/** Runs one call to its end and returns what both sides sent. */
export async function recordCall(o: RecordCallOptions): Promise<RecordedCall> {
  const clock = new ManualClock();
  const t0 = clock.now();
  const datagrams: RecordedDatagram[] = [];
  const link = createMemoryLink({
    clock,
    delayMs: 20,
    ...o.link,
    drop: (data, direction) => {
      datagrams.push({ atMs: clock.now() - t0, from: direction === 'a->b' ? 'caller' : 'answerer', data: data.slice() });
      return false;
    },
  });
  const commands: RecordedCommand[] = [];
  const tap = (side: Side, fe: T30FrontEnd): T30FrontEnd => ({
    command: (cmd) => {
      commands.push({ side, atMs: clock.now() - t0, cmd });
      fe.command(cmd);
    },
    onEvent: (h) => fe.onEvent(h),
    close: () => fe.close(),
  });
  const fe = (transport: typeof link.a) => new T38FrontEnd({ transport, clock, pacing: 'realtime', ...o.fe });
  const received: ReceivedPage[] = [];
  const caller = new T30Session({
    config: { role: 'caller', ident: '+1 555 0100', ecm: o.ecm, ...o.caller, source: { count: o.pages.length, get: (i: number) => o.pages[i]! } },
    frontEnd: tap('caller', fe(link.a)),
    clock,
  });
  const answerer = new T30Session({
    config: { role: 'answerer', ident: '+1 555 0199', ecm: o.ecm, ...o.answerer },
    frontEnd: tap('answerer', fe(link.b)),
    clock,
    onProgress: (p) => p.kind === 'page-received' && received.push(p.page),
  });
  caller.start();
  answerer.start();
  while (!(caller.finished && answerer.finished) && clock.now() - t0 < 600_000) await clock.advance(50);
  return { commands, datagrams, received, caller: await caller.result, answerer: await answerer.result };
}

// ------------------------------------------------------------------------------------ audio

const MS = 8;
/** Time between one side's signal and the other's (T.30 5.3.2: 75 ms ± 20 ms). */
const TURNAROUND_MS = 75;

/** The call as audio: one channel per side (0 caller, 1 answerer), the same length. */
export function renderCall(commands: readonly RecordedCommand[], opts: { leadMs?: number; tailMs?: number; levelDbm0?: number } = {}): [Int16Array, Int16Array] {
  const parts: Array<{ side: Side; at: number; audio: Int16Array }> = [];
  let cursor = (opts.leadMs ?? 200) * MS;
  let lastSide: Side | undefined;
  for (const { side, cmd } of commands) {
    if (cmd.kind === 'send-silence') {
      cursor += cmd.durationMs * MS;
      continue;
    }
    const audio = renderCommand(cmd, opts.levelDbm0);
    if (!audio) continue;
    if (lastSide !== undefined && lastSide !== side) cursor += TURNAROUND_MS * MS;
    parts.push({ side, at: cursor, audio });
    cursor += audio.length;
    lastSide = side;
  }
  const total = cursor + (opts.tailMs ?? 300) * MS;
  const out: [Int16Array, Int16Array] = [new Int16Array(total), new Int16Array(total)];
  for (const p of parts) out[p.side === 'caller' ? 0 : 1].set(p.audio, p.at);
  return out;
}

/** Both channels summed: the mono recording of a line. */
export function mixDown(channels: readonly Int16Array[]): Int16Array {
  const out = new Int16Array(channels[0]!.length);
  for (let i = 0; i < out.length; i++) {
    let v = 0;
    for (const c of channels) v += c[i]!;
    out[i] = Math.max(-32768, Math.min(32767, v));
  }
  return out;
}

function renderCommand(cmd: FrontEndCommand, levelDbm0 = -13): Int16Array | undefined {
  switch (cmd.kind) {
    case 'send-tone': {
      // CNG: one 0.5 s burst of its cadence (the next transmission would cut it anyway).
      const spec = cmd.tone === 'cng' ? { ...TONES.cng, cadenceMs: undefined, durationMs: 500 } : TONES.ced;
      const tone = new ToneTx(spec);
      return drain((out) => tone.tx(out));
    }
    case 'send-hdlc': {
      const hdlc = new HdlcTx(cmd.modem === 'v21' ? {} : { bitRate: cmd.modem.bitRate, preambleMs: 200 });
      for (const f of cmd.frames) hdlc.sendFrame(f);
      hdlc.end();
      if (cmd.modem === 'v21') {
        const tx = new V21Tx({ getBit: hdlc.getBit, levelDbm0 });
        return drain((out) => tx.tx(out));
      }
      return highSpeed(cmd.modem, hdlc.getBit, levelDbm0);
    }
    case 'send-tcf': {
      let left = Math.round((cmd.modem.bitRate * cmd.durationMs) / 1000);
      return highSpeed(cmd.modem, () => (left-- > 0 ? 0 : END_OF_DATA), levelDbm0);
    }
    case 'send-image': {
      const data = cmd.data;
      let i = 0;
      return highSpeed(cmd.modem, () => (i < data.length * 8 ? (data[i >>> 3]! >>> (7 - (i++ & 7))) & 1 : END_OF_DATA), levelDbm0);
    }
    default:
      return undefined;
  }
}

function highSpeed(modem: ModemSpec, getBit: GetBit, levelDbm0: number): Int16Array {
  const level = Math.min(0, levelDbm0 - 1);
  switch (modem.modulation) {
    case 'v17': {
      const tx = new V17Tx({ bitRate: modem.bitRate as V17BitRate, getBit, shortTrain: modem.shortTrain ?? false, levelDbm0: level });
      return drain((out) => tx.tx(out));
    }
    case 'v29': {
      const tx = new V29Tx({ bitRate: modem.bitRate as V29BitRate, getBit, levelDbm0: level });
      return drain((out) => tx.tx(out));
    }
    case 'v27ter': {
      const tx = new V27terTx({ bitRate: modem.bitRate as V27terBitRate, getBit, levelDbm0: level });
      return drain((out) => tx.tx(out));
    }
  }
}

/** Runs a transmitter to its end. */
function drain(tx: (out: Int16Array) => number): Int16Array {
  const chunks: Int16Array[] = [];
  let total = 0;
  for (;;) {
    const buf = new Int16Array(8000);
    const n = tx(buf);
    chunks.push(buf.subarray(0, n));
    total += n;
    if (n < buf.length || total > 8000 * 600) break;
  }
  const out = new Int16Array(total);
  let at = 0;
  for (const c of chunks) (out.set(c, at), (at += c.length));
  return out;
}
