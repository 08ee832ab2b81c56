// A render worker's FaxError as data across the thread boundary, and rebuilt on the other side
// (structured clone keeps only Error basics). Apart from render-worker.ts so that the calling
// thread reads it without loading the worker's side (piscina).

import { FaxError, type ErrorName } from '../shared/errors.js';
import { RenderTimeout, type BudgetReason } from './render-budget.js';

export interface WireError {
  name: ErrorName;
  message: string;
  field: string | undefined;
  /** Set when the render was stopped by its budget (a RenderTimeout). */
  budget?: { page: number; reason: BudgetReason; transient: boolean; limitMs: number };
}

export function toWire(err: FaxError): WireError {
  const wire: WireError = { name: err.def.name as ErrorName, message: err.message, field: err.field };
  if (err instanceof RenderTimeout) wire.budget = { page: err.page, reason: err.reason, transient: err.transient, limitMs: err.limitMs };
  return wire;
}

export function fromWire(e: WireError): FaxError {
  const b = e.budget;
  const err = b ? new RenderTimeout(b.page, b.reason, b.transient, b.limitMs) : new FaxError(e.name);
  err.message = e.message;
  err.field = e.field;
  return err;
}
