// The boundary between jobs and transmission: a FaxLine places one call and reports its
// progress and outcome. The virtual line, direct lines and the SIP line per gateway (T.30 over
// T.38 or the audio modems) all implement it, so jobs and the store do not know which one calls.

import type { FaxPages } from '../documents/index.js';
import type { T30Params } from '../t30/index.js';

type LineQuality = 'Low' | 'Standard' | 'HD';
export type CallStage = 'dialing' | 'transmitting';

export interface CallRequest {
  jobId: number;
  fromNumber: string;
  toNumber: string;
  quality: LineQuality;
  /** Pages of the whole fax (cover page included). */
  totalPages: number;
  /** 1-based number of the first page this call sends (> 1 when resuming after a partial failure). */
  firstPage: number;
  /** Our identification (TSI/CSI), normally the sending number. */
  ident: string;
  /** The pages exactly as prepared (decoded on demand). */
  pages: FaxPages;
  /**
   * false: do not offer error correction on this attempt (the fallback after an earlier attempt
   * failed in ECM); undefined: the line's own setting.
   */
  ecm?: boolean;
}

export interface CallProgress {
  stage(stage: CallStage): void;
  /** A page (1-based, counting the whole fax) was confirmed by the receiver (MCF). */
  pageConfirmed(page: number): void;
  /** The mode T.30 agreed with the far end (again after a fallback); lines without T.30 never call it. */
  negotiated?(params: T30Params): void;
}

export interface CallDetail {
  remoteIdent?: string;
  bitRate?: number;
  ecm?: boolean;
  compression?: string;
  resolution?: string;
  /** spandsp-style T.30 completion name, e.g. T30_ERR_OK. */
  t30Code?: string;
  sipStatus?: number;
  durationMs?: number;
  [key: string]: unknown;
}

export interface CallResult {
  /** 0 on success, otherwise a transmission code of the error table (-31xx). */
  code: number;
  message: string;
  /** Last page (1-based, whole fax) the receiver confirmed; firstPage - 1 when none. */
  lastConfirmedPage: number;
  /** True when the call ended because the signal aborted it (shutdown), not because of the far end. */
  aborted: boolean;
  detail: CallDetail;
}

export interface FaxLine {
  readonly name: string;
  call(req: CallRequest, progress: CallProgress, signal: AbortSignal): Promise<CallResult>;
}
