// The entry points by which one T.30 phase hands over to another (T.30 5.2: B → C → D, and back
// to C for the next page or to B to retrain). Each phase module provides its own entries when it
// loads; the phases call each other only through `enter`, so no phase module imports another.
// machine.ts imports every phase module, so the table is complete before the first step.
import type { Draft } from './core.js';
import type { PostMessage } from './fcf.js';
import type { MachineInput } from './types.js';

type FrameInput = Extract<MachineInput, { kind: 'frame' }>;

interface PhaseEntries {
  // phase B (phase-b.ts)
  sendDcs(d: Draft): void;
  /** Steps the caller's rate down after a failed training; false when no lower rate is left. */
  fallBack(d: Draft): boolean;
  sendDis(d: Draft): void;
  processDcs(d: Draft, info: Uint8Array): void;
  answererPhaseBFrame(d: Draft, input: FrameInput): boolean;
  // phase C (phase-c.ts)
  startPage(d: Draft): void;
  sendBurst(d: Draft): void;
  startReceivingPage(d: Draft): void;
  // phase D (phase-d.ts, phase-d-rx.ts)
  sendPps(d: Draft): void;
  onNonEcmPageEnd(d: Draft, cmd: PostMessage): void;
  postDocEcmFrame(d: Draft, input: FrameInput): void;
}

/** The phases' entries; filled in by provide() as each phase module loads. */
export const enter = {} as PhaseEntries;

/** Registers a phase module's entries (called once, at the end of the module). */
export function provide(entries: Partial<PhaseEntries>): void {
  Object.assign(enter, entries);
}

/** Names of entries not provided yet (empty once machine.ts has loaded every phase). */
export function missingEntries(): string[] {
  const all: (keyof PhaseEntries)[] = ['sendDcs', 'fallBack', 'sendDis', 'processDcs', 'answererPhaseBFrame', 'startPage', 'sendBurst', 'startReceivingPage', 'sendPps', 'onNonEcmPageEnd', 'postDocEcmFrame'];
  return all.filter((k) => typeof enter[k] !== 'function');
}
