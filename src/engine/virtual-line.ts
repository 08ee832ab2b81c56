// The virtual fax line: the default line of `faxstack serve` and the line of every test key.
// It models a call's timing on the injected clock and answers by the last four digits of the
// number (API-DECISIONS.md 8), reporting stages, confirmed pages and codes exactly as a real
// line does.
import type { Clock } from '../shared/clock.js';
import { ERRORS, outcomeMessage, type ErrorName } from '../shared/errors.js';
import type { CallProgress, CallRequest, CallResult, FaxLine } from './line.js';

export interface VirtualLineTiming {
  /** From dialing to the far end answering (or to busy/unreachable). */
  dialMs: number;
  /** Ringing without answer before giving up (0480). */
  noAnswerMs: number;
  /** Answered by something that never sends CED/DIS (0999): T.30's T1. */
  noFaxMs: number;
  /** Negotiation before the first page. */
  handshakeMs: number;
  /** One page at the quality's pace. */
  pageMs: { Low: number; Standard: number; HD: number };
}

export const DEFAULT_VIRTUAL_TIMING: VirtualLineTiming = {
  dialMs: 500,
  noAnswerMs: 3000,
  noFaxMs: 2000,
  handshakeMs: 500,
  pageMs: { Low: 400, Standard: 700, HD: 1200 },
};

/** The documented test numbers: last four digits → outcome. */
export const VIRTUAL_OUTCOMES: Readonly<Record<string, { error: ErrorName; afterPages?: number; detail: string }>> = {
  '0486': { error: 'LINE_BUSY', detail: 'the far end is busy' },
  '0480': { error: 'NO_ANSWER', detail: 'no answer' },
  '0999': { error: 'NO_FAX_MACHINE', detail: 'no CED/DIS before T1 expired' },
  '0404': { error: 'CALL_REJECTED', detail: 'number unreachable' },
  '0107': { error: 'PAGE_FAILED', afterPages: 1, detail: 'no confirmation after page 2' },
  '0108': { error: 'CALL_DROPPED', afterPages: 1, detail: 'the far end hung up after page 1' },
};

export class VirtualLine implements FaxLine {
  readonly name = 'virtual';
  constructor(
    private readonly clock: Clock,
    private readonly timing: VirtualLineTiming = DEFAULT_VIRTUAL_TIMING,
  ) {}

  async call(req: CallRequest, progress: CallProgress, signal: AbortSignal): Promise<CallResult> {
    const started = this.clock.now();
    const outcome = VIRTUAL_OUTCOMES[req.toNumber.slice(-4)];
    let confirmed = req.firstPage - 1;
    const end = (code: number, message: string, aborted = false): CallResult => ({
      code, message, aborted, lastConfirmedPage: confirmed,
      detail: { remoteIdent: aborted || code !== 0 ? undefined : req.toNumber, durationMs: this.clock.now() - started, line: 'virtual' },
    });
    const fail = (name: ErrorName, detail: string) => end(ERRORS[name].code, outcomeMessage(name, detail));

    progress.stage('dialing');
    if (!(await this.wait(this.timing.dialMs, signal))) return end(ERRORS.CALL_DROPPED.code, 'Call aborted: the service is stopping', true);
    if (outcome?.error === 'LINE_BUSY' || outcome?.error === 'CALL_REJECTED') return fail(outcome.error, outcome.detail);
    if (outcome?.error === 'NO_ANSWER' || outcome?.error === 'NO_FAX_MACHINE') {
      const ms = outcome.error === 'NO_ANSWER' ? this.timing.noAnswerMs : this.timing.noFaxMs;
      if (!(await this.wait(ms, signal))) return end(ERRORS.CALL_DROPPED.code, 'Call aborted: the service is stopping', true);
      return fail(outcome.error, outcome.detail);
    }
    if (!(await this.wait(this.timing.handshakeMs, signal))) return end(ERRORS.CALL_DROPPED.code, 'Call aborted: the service is stopping', true);
    progress.stage('transmitting');
    for (let page = req.firstPage; page <= req.totalPages; page++) {
      if (outcome?.afterPages !== undefined && page > outcome.afterPages) break;
      if (!(await this.wait(this.timing.pageMs[req.quality], signal))) return end(ERRORS.CALL_DROPPED.code, 'Call aborted: the service is stopping', true);
      confirmed = page;
      progress.pageConfirmed(page);
    }
    if (outcome) return fail(outcome.error, outcome.detail);
    return end(0, 'Fax delivered');
  }

  /** Waits on the injected clock; false when aborted first. */
  private wait(ms: number, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = () => {
        this.clock.clearTimer(timer);
        resolve(false);
      };
      const timer = this.clock.setTimer(ms, () => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      });
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
