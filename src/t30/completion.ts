// How a T.30 call ended: spandsp's completion names (T30_ERR_*), each mapped to one code of
// the error table (shared/errors.ts, docs/api.md, codes) and a
// sentence. The machine never throws for what the peer does; it ends with one of these.

import { ERRORS, outcomeMessage, type ErrorName } from '../shared/errors.js';

const COMPLETIONS = {
  T30_ERR_OK: ['OK', ''],
  T30_ERR_T1_EXPIRED: ['NO_FAX_MACHINE', 'T1 expired before the other side identified itself'],
  T30_ERR_CANNOT_TRAIN: ['TRAINING_FAILED', 'every training check was answered FTT'],
  T30_ERR_INCOMPATIBLE: ['INCOMPATIBLE_RECEIVER', 'the far end is not compatible'],
  T30_ERR_RX_INCAPABLE: ['INCOMPATIBLE_RECEIVER', 'the far end is not able to receive'],
  T30_ERR_TX_INCAPABLE: ['INCOMPATIBLE_RECEIVER', 'the far end is not able to transmit (it sent DIS/DTC, not DCS)'],
  T30_ERR_NORESSUPPORT: ['INCOMPATIBLE_RECEIVER', 'the far end cannot receive at the resolution of the document'],
  T30_ERR_NOSIZESUPPORT: ['INCOMPATIBLE_RECEIVER', 'the far end cannot receive at the page size of the document'],
  T30_ERR_UNEXPECTED: ['PAGE_FAILED', 'unexpected message received'],
  T30_ERR_TX_BADDCS: ['INCOMPATIBLE_RECEIVER', 'the receiver disconnected in answer to DCS'],
  T30_ERR_TX_BADPG: ['PAGE_FAILED', 'the receiver disconnected after a page'],
  T30_ERR_TX_ECMPHD: ['PAGE_FAILED', 'invalid ECM response from the receiver'],
  T30_ERR_TX_GOTDCN: ['CALL_DROPPED', 'the far end disconnected while we waited for DIS'],
  T30_ERR_TX_INVALRSP: ['PAGE_FAILED', 'invalid response after a page'],
  T30_ERR_TX_NODIS: ['NO_FAX_MACHINE', 'something other than DIS arrived while we waited for DIS'],
  T30_ERR_TX_PHBDEAD: ['TRAINING_FAILED', 'no response to DCS and training'],
  T30_ERR_TX_PHDDEAD: ['PAGE_FAILED', 'no response after sending a page'],
  T30_ERR_TX_T5EXP: ['PAGE_FAILED', 'T5 expired waiting for the receiver to become ready'],
  T30_ERR_RX_ECMPHD: ['PAGE_FAILED', 'invalid ECM command from the transmitter'],
  T30_ERR_RX_INVALCMD: ['PAGE_FAILED', 'unexpected command after a page'],
  T30_ERR_RX_T2EXPFAX: ['PAGE_FAILED', 'T2 expired waiting for a page'],
  T30_ERR_RX_T2EXPMPS: ['PAGE_FAILED', 'T2 expired waiting for the command after a page'],
  T30_ERR_RX_T2EXPRR: ['PAGE_FAILED', 'T2 expired waiting for RR'],
  T30_ERR_RX_T2EXP: ['PAGE_FAILED', 'T2 expired waiting for DCS'],
  T30_ERR_RX_DCNWHY: ['CALL_DROPPED', 'the far end disconnected while we waited for DCS'],
  T30_ERR_RX_DCNDATA: ['CALL_DROPPED', 'the far end disconnected while we waited for page data'],
  T30_ERR_RX_DCNFAX: ['CALL_DROPPED', 'the far end disconnected while we waited for EOM, EOP or MPS'],
  T30_ERR_RX_DCNPHD: ['CALL_DROPPED', 'the far end disconnected after MPS or EOM'],
  T30_ERR_RX_DCNRRD: ['CALL_DROPPED', 'the far end disconnected during RR/RNR flow control'],
  T30_ERR_RX_DCNNORTN: ['PAGE_FAILED', 'the far end disconnected after we asked for a page again'],
  T30_ERR_BADTIFF: ['CONVERSION_FAILED', 'a page could not be prepared for the negotiated mode'],
  T30_ERR_RETRYDCN: ['PAGE_FAILED', 'disconnected after the permitted retries'],
  T30_ERR_CALLDROPPED: ['CALL_DROPPED', 'the line went down'],
  /** faxstack's own: a bug or an exception outside the protocol. */
  T30_ERR_INTERNAL: ['INTERNAL', 'internal error in the T.30 engine'],
} as const satisfies Record<string, readonly [ErrorName, string]>;

export type Completion = keyof typeof COMPLETIONS;

export const COMPLETION_NAMES = Object.keys(COMPLETIONS) as Completion[];

/** The error-table code of a completion (0 for T30_ERR_OK). */
export function completionCode(c: Completion): number {
  return ERRORS[COMPLETIONS[c][0]].code;
}

/** The job message: the table's sentence, then what happened (and `detail` when given). */
export function completionMessage(c: Completion, detail?: string): string {
  const [name, text] = COMPLETIONS[c];
  if (name === 'OK') return ERRORS.OK.template;
  return outcomeMessage(name, detail ? `${text} (${detail})` : text);
}
