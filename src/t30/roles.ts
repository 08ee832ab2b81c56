// Who this end is in the call (caller or answerer, T.30 5.2) and what every phase reads of it:
// the resolved configuration, the page formats of a page, a fresh receive record.
import type { Draft } from './core.js';
import type { PageFormats } from './negotiate.js';
import { TCF_EMPTY } from './tcf.js';
import type { ResolvedAnswerer, ResolvedCaller, RxProgress } from './types.js';

export function caller(d: Draft): ResolvedCaller {
  if (d.s.cfg.role !== 'caller') throw new Error(`T.30: state ${d.s.state} belongs to the caller`);
  return d.s.cfg;
}

export function answerer(d: Draft): ResolvedAnswerer {
  if (d.s.cfg.role !== 'answerer') throw new Error(`T.30: state ${d.s.state} belongs to the answerer`);
  return d.s.cfg;
}

export function formatsFor(cfg: ResolvedCaller, page: number): PageFormats {
  return cfg.source.formats?.(page) ?? cfg.formats;
}

/**
 * A copy of a receive record to change, field by field (the optional ones too): for the inputs
 * that come by the thousand — a non-ECM page's data blocks, ECM frames — where `{ ...rx, … }`
 * ran in V8's slow path (as the state's copy in core.ts).
 */
export function copyRx(r: RxProgress): RxProgress {
  // Every key required here, so the compiler catches a field added to RxProgress and not here.
  const copy: { [K in keyof Required<RxProgress>]: RxProgress[K] } = {
    tcf: r.tcf,
    chunks: r.chunks,
    imageSeen: r.imageSeen,
    heard: r.heard,
    lineOn: r.lineOn,
    holdSpent: r.holdSpent,
    next: r.next,
    response: r.response,
    frames: r.frames,
    blockFrames: r.blockFrames,
    block: r.block,
    damaged: r.damaged,
    deferred: r.deferred,
    ppr: r.ppr,
    longTrain: r.longTrain,
  };
  return copy;
}

export function freshRx(): RxProgress {
  return { tcf: TCF_EMPTY, chunks: null, imageSeen: false, heard: 'quiet', lineOn: false, holdSpent: false, next: 'MPS', frames: null, blockFrames: 0, block: 0, damaged: false, longTrain: false };
}
