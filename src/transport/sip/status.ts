// SIP final status → faxstack result code (docs/gateways.md, SIP final status; issue 6): busy, no answer,
// and every other failure as "rejected or unreachable" with the status in the message.
import { ERRORS, outcomeMessage, type ErrorName } from '../../shared/errors.js';

interface SipFailure {
  name: ErrorName;
  code: number;
  message: string;
}

const BUSY = new Set([486, 600]);
const NO_ANSWER = new Set([408, 480, 487]);

/** The error a failed INVITE (final status ≥ 300) ends the call with. */
export function sipFailure(status: number, reason = ''): SipFailure {
  const name: ErrorName = BUSY.has(status) ? 'LINE_BUSY' : NO_ANSWER.has(status) ? 'NO_ANSWER' : 'CALL_REJECTED';
  const text = `SIP ${status}${reason ? ` ${reason}` : ''}`;
  return { name, code: ERRORS[name].code, message: outcomeMessage(name, text) };
}
