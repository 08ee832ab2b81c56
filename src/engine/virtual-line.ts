// The virtual fax line: the default line of `faxstack serve` and the line of every test key.
// Dialing is modelled on the injected clock, and the last four digits of the number choose
// what the network does (docs/api.md decision 8); once "answered", the call is a real T.30 session
// against a faxstack answerer over an in-memory T.38 link. The answerer "prints" each page for
// `pageMs` before confirming it, and what it receives can be delivered to an inbox.
import type { Clock } from '../shared/clock.js';
import { ERRORS, outcomeMessage, type ErrorName } from '../shared/errors.js';
import { parseFrame, type FrontEndCommand, type FrontEndEvent, type T30FrontEnd } from '../t30/index.js';
import { T38FrontEnd, createMemoryLink } from '../transport/t38/index.js';
import type { CallProgress, CallRequest, CallResult, FaxLine } from './line.js';
import { receiveOverFrontEnd, sendOverFrontEnd, type ReceivedFax } from './t30-call.js';

export interface VirtualLineTiming {
  /** From dialing to the far end answering (or to busy/unreachable). */
  dialMs: number;
  /** Ringing without answer before giving up (0480). */
  noAnswerMs: number;
  /** Answered by something that never sends CED/DIS (0999). */
  noFaxMs: number;
  /** One-way delay of the in-memory T.38 link. */
  latencyMs: number;
  /** The answerer "prints" a page this long before it confirms it. */
  pageMs: { Low: number; Standard: number; HD: number };
}

export const DEFAULT_VIRTUAL_TIMING: VirtualLineTiming = {
  dialMs: 500,
  noAnswerMs: 3000,
  noFaxMs: 2000,
  latencyMs: 20,
  pageMs: { Low: 400, Standard: 700, HD: 1200 },
};

/** The documented test numbers: last four digits → outcome. */
const VIRTUAL_OUTCOMES: Readonly<Record<string, { error: ErrorName; afterPages?: number; detail: string }>> = {
  '0486': { error: 'LINE_BUSY', detail: 'the far end is busy' },
  '0480': { error: 'NO_ANSWER', detail: 'no answer' },
  '0999': { error: 'NO_FAX_MACHINE', detail: 'no CED/DIS before T1 expired' },
  '0404': { error: 'CALL_REJECTED', detail: 'number unreachable' },
  '0107': { error: 'PAGE_FAILED', afterPages: 1, detail: 'the receiver stops answering after page 1' },
  '0108': { error: 'CALL_DROPPED', afterPages: 1, detail: 'the far end hangs up after page 1' },
};

/** A fax the virtual far end received, to deliver to whoever owns the number. */
export interface VirtualDelivery {
  fromNumber: string;
  toNumber: string;
  quality: CallRequest['quality'];
  startedMs: number;
  fax: ReceivedFax;
}

interface VirtualLineOptions {
  timing?: VirtualLineTiming;
  /** Called with what the far end received (the service stores it as a received fax). */
  onReceived?: (delivery: VirtualDelivery) => Promise<void>;
}

const ABORTED = 'Call aborted: the service is stopping';

export class VirtualLine implements FaxLine {
  readonly name = 'virtual';
  private readonly timing: VirtualLineTiming;

  constructor(
    private readonly clock: Clock,
    private readonly opts: VirtualLineOptions = {},
  ) {
    this.timing = opts.timing ?? DEFAULT_VIRTUAL_TIMING;
  }

  async call(req: CallRequest, progress: CallProgress, signal: AbortSignal): Promise<CallResult> {
    const started = this.clock.now();
    const outcome = VIRTUAL_OUTCOMES[req.toNumber.slice(-4)];
    const end = (code: number, message: string, aborted = false): CallResult => ({
      code, message, aborted, lastConfirmedPage: req.firstPage - 1, detail: { durationMs: this.clock.now() - started, line: 'virtual' },
    });
    progress.stage('dialing');
    if (!(await this.wait(this.timing.dialMs, signal))) return end(ERRORS.CALL_DROPPED.code, ABORTED, true);
    if (outcome?.error === 'LINE_BUSY' || outcome?.error === 'CALL_REJECTED') return end(ERRORS[outcome.error].code, outcomeMessage(outcome.error, outcome.detail));
    if (outcome?.error === 'NO_ANSWER' || outcome?.error === 'NO_FAX_MACHINE') {
      const ms = outcome.error === 'NO_ANSWER' ? this.timing.noAnswerMs : this.timing.noFaxMs;
      if (!(await this.wait(ms, signal))) return end(ERRORS.CALL_DROPPED.code, ABORTED, true);
      return end(ERRORS[outcome.error].code, outcomeMessage(outcome.error, outcome.detail));
    }
    const r = await this.fax(req, progress, signal, outcome?.afterPages === undefined ? null : { after: outcome.afterPages, hangUp: outcome.error === 'CALL_DROPPED' });
    return { ...r, detail: { ...r.detail, line: 'virtual' } };
  }

  /** The answered part: T.30 against a faxstack answerer over in-memory T.38. */
  private async fax(req: CallRequest, progress: CallProgress, signal: AbortSignal, failAfter: { after: number; hangUp: boolean } | null): Promise<CallResult> {
    const clock = this.clock;
    const started = clock.now();
    let muted = false;
    const link = createMemoryLink({ clock, delayMs: this.timing.latencyMs, drop: (_d, direction) => muted && direction === 'b->a' });
    const caller = new T38FrontEnd({ transport: link.a, clock, pacing: 'fast' });
    let accepted = 0;
    const answerer = new PrintingFrontEnd(new T38FrontEnd({ transport: link.b, clock, pacing: 'fast' }), clock, this.timing.pageMs[req.quality], () => {
      // The far end's scripted failure strikes when the page after the last good one starts.
      if (!failAfter || accepted < failAfter.after) return;
      if (failAfter.hangUp) link.b.close();
      else muted = true;
    });
    const receiving = receiveOverFrontEnd(answerer, clock, { ident: req.toNumber, onPage: () => void accepted++ });
    const result = await sendOverFrontEnd(req, progress, signal, caller, clock);
    link.a.close();
    const deliver = receiving.then(async (fax) => {
      if (fax.tiff && this.opts.onReceived) await this.opts.onReceived({ fromNumber: req.fromNumber, toNumber: req.toNumber, quality: req.quality, startedMs: started, fax });
    });
    // A delivered fax is in the far end's inbox before the call counts as done.
    if (result.code === 0) await deliver;
    else deliver.catch(() => {});
    return result;
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

const POST_PAGE = new Set(['MPS', 'EOP', 'EOM', 'PPS', 'PRI_MPS', 'PRI_EOP', 'PRI_EOM']);

/**
 * A receiving front end that takes `printMs` to print a page: its answer to a post-page command
 * (MPS/EOP/EOM/PPS) goes out that much later. `onPageStart` is told when the next page's data
 * begins to arrive.
 */
class PrintingFrontEnd implements T30FrontEnd {
  private printing = false;
  private held: FrontEndCommand[] | null = null;
  private sawPostPage = false;

  constructor(
    private readonly inner: T30FrontEnd,
    private readonly clock: Clock,
    private readonly printMs: number,
    private readonly onPageStart: () => void,
  ) {}

  command(cmd: FrontEndCommand): void {
    if (this.held) {
      this.held.push(cmd);
      return;
    }
    if (this.printing && cmd.kind === 'send-hdlc') {
      this.printing = false;
      this.held = [cmd];
      this.clock.setTimer(this.printMs, () => {
        const queued = this.held ?? [];
        this.held = null;
        for (const c of queued) this.inner.command(c);
      });
      return;
    }
    this.inner.command(cmd);
  }

  onEvent(handler: (event: FrontEndEvent) => void): void {
    this.inner.onEvent((e) => {
      if (e.kind === 'hdlc' && e.crcOk && POST_PAGE.has(parseFrame(e.frame)?.name ?? '')) {
        this.printing = true;
        this.sawPostPage = true;
      } else if (this.sawPostPage && (e.kind === 'image-data' || (e.kind === 'hdlc' && parseFrame(e.frame)?.name === 'FCD'))) {
        this.sawPostPage = false;
        this.onPageStart();
      }
      handler(e);
    });
  }

  close(): void {
    this.inner.close();
  }
}
