// The receiver's T2 counts silence (T.30 5.4.3.1: T2 detects the loss of command/response
// synchronization and is reset by flags): while it waits — for a page or block after CFR, MCF,
// PPR or CTR, or for the command after a page — a signal on the line holds T2, and T2 starts
// again in full when the signal ends. Before a page the signal is one whose training we missed
// (the front end's 'line-signal'), after one the rest of a page whose carrier we lost (V.21's
// detector, 'carrier' in 'v21' mode); either can outlast T2 many times over. A wait's holds
// are bounded by T2_HOLD, so a line with endless noise cannot hold T2 for ever.

import type { Draft } from './core.js';
import { FRAMES_PER_BLOCK } from './ecm.js';
import type { MachineInput, StateName } from './types.js';

/** Octets of an ECM frame besides its payload: address, control, FCF, frame number, FCS, a flag. */
const FRAME_OVERHEAD = 7;
/** The longest ECM frame payload (T.4 Annex A). */
const LONGEST_FRAME = 256;
/** Zero bits HDLC inserts at most: one after every five ones. */
const STUFFING = 6 / 5;
/** The training, the preamble's flags and the RCPs around a block. */
const AROUND_BLOCK_MS = 5_000;

/**
 * How long the signals of one wait may hold T2, ms: the longest a transmitter sends without a
 * command — one ECM block of 256 frames of 256 octets at the rate (T.4 Annex A), with its training
 * 140 s at 4800 bit/s. T.30 bounds no non-ECM page; the same figure (64 KB of coded page) is taken. The bounds
 * T.30 has, T5 (60 s) and T1 (35 s), are shorter than such a block at 9600 bit/s and below (T5)
 * or at every rate (T1).
 */
export function holdLimitMs(bitRate: number): number {
  const bits = FRAMES_PER_BLOCK * (LONGEST_FRAME + FRAME_OVERHEAD) * 8 * STUFFING;
  return Math.ceil((bits * 1000) / bitRate) + AROUND_BLOCK_MS;
}

/** The states in which the receiver waits on T2 and a signal holds it. */
const WAITING: ReadonlySet<StateName> = new Set<StateName>(['F_DOC_NON_ECM', 'F_DOC_ECM', 'F_POST_DOC_NON_ECM', 'F_POST_DOC_ECM']);

/** A new wait begins: T2 in full, nothing heard, no hold yet. */
export function startWait(d: Draft): void {
  d.stopTimer('T2_HOLD');
  d.s.rx = { ...d.s.rx!, heard: 'quiet', lineOn: false, holdSpent: false };
  d.startTimer('T2');
}

/**
 * A signal that is not a trained carrier started (`on`) or ended on the line; `command`: HDLC
 * flags were heard in it, so it was a command (one we could not read), not a page we missed.
 */
function hold(d: Draft, on: boolean, command = false): void {
  const rx = d.s.rx!;
  if (rx.lineOn === on) return;
  const heard = on ? (rx.heard === 'quiet' ? 'on' : rx.heard) : rx.heard === 'on' ? (command ? 'quiet' : 'ended') : rx.heard;
  d.s.rx = { ...rx, lineOn: on, heard };
  if (rx.holdSpent) return; // T2 counts whatever is on the line
  if (!on) return d.startTimer('T2');
  d.stopTimer('T2');
  if (!d.running('T2_HOLD')) d.startTimer('T2_HOLD', holdLimitMs(d.s.params!.modem.bitRate));
}

/** T2_HOLD ran out: T2 counts from now even while the signal goes on. */
function holdSpent(d: Draft): void {
  const rx = d.s.rx!;
  d.s.rx = { ...rx, holdSpent: true };
  if (rx.lineOn) d.startTimer('T2');
}

/**
 * The inputs that hold T2 in a wait; `by` names what reports the line's signal in the state:
 * 'line-signal' while listening for a page, 'carrier' (V.21's detector) after one. True when used.
 */
export function holdInput(d: Draft, input: MachineInput, by: 'line-signal' | 'carrier'): boolean {
  if (input.kind === 'timeout' && input.timer === 'T2_HOLD') holdSpent(d);
  else if (by === 'line-signal' && input.kind === 'line-signal') hold(d, input.on, input.flags === true);
  else if (by === 'carrier' && (input.kind === 'signal-start' || input.kind === 'signal-end')) hold(d, input.kind === 'signal-start');
  else return false;
  return true;
}

/** After every step: the bound belongs to a wait, and ends with it. */
export function endHoldOutsideWaits(d: Draft): void {
  if (d.running('T2_HOLD') && !WAITING.has(d.s.state)) d.stopTimer('T2_HOLD');
}
