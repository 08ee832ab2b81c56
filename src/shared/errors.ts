// The one table of error codes. Validation and account codes come from the API's specification,
// transmission outcomes are our own (docs/api.md, codes); faxstack's own additions are marked. The HTTP
// mapping of each kind lives in api/ only.

/** Closed set of kinds; api/ maps each to an envelope status and an HTTP status. */
export type ErrorKind =
  | 'invalid' // bad parameters (-2 / 400)
  | 'too_large' // request too large (-2 / 413)
  | 'auth' // missing or invalid key (-3 / 401)
  | 'balance' // insufficient balance (-4 / 402)
  | 'permission' // not allowed (-1 / 403)
  | 'rate' // rate limited (-1 / 429)
  | 'not_found' // (-5 / 404)
  | 'conflict' // wrong state for the action (-1 / 409)
  | 'method' // method not allowed (-1 / 405)
  | 'media_type' // unsupported content type (-2 / 415)
  | 'transmission' // outcome of a fax call
  | 'internal'; // (-1 / 500)

export interface ErrorDef {
  readonly name: string;
  readonly code: number;
  readonly kind: ErrorKind;
  /** Message template; each `%s` takes the next argument. */
  readonly template: string;
  /** Transmission outcomes: whether another attempt can help. */
  readonly retry?: 'yes' | 'once' | 'remaining' | 'no';
  /** Added by faxstack (marked as such in docs/api.md, codes). */
  readonly extension?: boolean;
}

const table = {
  OK: { code: 0, kind: 'internal', template: 'Success' },
  // The API's specification (docs/api.md, codes)
  INVALID_NUMBER: { code: -3001, kind: 'invalid', template: 'Invalid fax number: %s' },
  INSUFFICIENT_BALANCE: { code: -3002, kind: 'balance', template: 'Insufficient account balance: %s' },
  IMAGE_NOT_FOUND: { code: -3003, kind: 'invalid', template: 'Image does not exist: %s' },
  TIFF_EMPTY: { code: -3004, kind: 'invalid', template: 'TIFF file is empty: %s' },
  FILE_TOO_LARGE: { code: -3005, kind: 'too_large', template: 'File size exceeds maximum limit: %s' },
  INVALID_FILE_FORMAT: { code: -3006, kind: 'invalid', template: 'Invalid file format: %s' },
  NO_PERMISSION: { code: -3007, kind: 'permission', template: 'No permission for this action: %s' },
  TOO_MANY_RECIPIENTS: { code: -3008, kind: 'invalid', template: 'Recipient limit exceeded: %s' },
  INVALID_API_KEY: { code: -3009, kind: 'auth', template: 'Invalid API key: %s' },
  RATE_LIMITED: { code: -3010, kind: 'rate', template: 'Rate limit exceeded: %s' },
  // faxstack additions for API errors that 7.1 has no code for
  INVALID_PARAMETER: { code: -3000, kind: 'invalid', template: 'Invalid parameter: %s', extension: true },
  NOT_FOUND: { code: -3011, kind: 'not_found', template: 'Not found: %s', extension: true },
  CONFLICT: { code: -3012, kind: 'conflict', template: '%s', extension: true },
  METHOD_NOT_ALLOWED: { code: -3013, kind: 'method', template: 'Method not allowed: %s', extension: true },
  UNSUPPORTED_MEDIA_TYPE: { code: -3014, kind: 'media_type', template: 'Unsupported content type: %s', extension: true },
  // Result codes of a finished fax (docs/api.md, codes)
  LINE_BUSY: { code: -3101, kind: 'transmission', template: 'Line busy%s', retry: 'yes' },
  NO_ANSWER: { code: -3102, kind: 'transmission', template: 'No answer%s', retry: 'yes' },
  NO_FAX_MACHINE: { code: -3103, kind: 'transmission', template: 'No fax machine answered%s', retry: 'once' },
  CALL_REJECTED: { code: -3104, kind: 'transmission', template: 'Call rejected or number unreachable%s', retry: 'no' },
  TRAINING_FAILED: { code: -3105, kind: 'transmission', template: 'Training failed at every rate%s', retry: 'yes' },
  INCOMPATIBLE_RECEIVER: { code: -3106, kind: 'transmission', template: 'Receiver cannot accept this document%s', retry: 'no' },
  PAGE_FAILED: { code: -3107, kind: 'transmission', template: 'Page transmission failed%s', retry: 'remaining' },
  CALL_DROPPED: { code: -3108, kind: 'transmission', template: 'Call dropped during transmission%s', retry: 'remaining' },
  CONVERSION_FAILED: { code: -3109, kind: 'transmission', template: 'Document could not be converted%s', retry: 'no' },
  DOWNLOAD_FAILED: { code: -3110, kind: 'transmission', template: 'Document download failed or was refused%s', retry: 'no' },
  DEADLINE_PASSED: { code: -3111, kind: 'transmission', template: 'Deadline passed before the fax could be sent%s', retry: 'no' },
  INTERNAL: { code: -3199, kind: 'internal', template: 'Internal error%s', retry: 'yes' },
} as const satisfies Record<string, Omit<ErrorDef, 'name'>>;

export type ErrorName = keyof typeof table;

export const ERRORS: Readonly<Record<ErrorName, ErrorDef>> = Object.fromEntries(
  Object.entries(table).map(([name, def]) => [name, { name, ...def }]),
) as Record<ErrorName, ErrorDef>;

const byCode = new Map<number, ErrorDef>(Object.values(ERRORS).map((d) => [d.code, d]));

export function errorByCode(code: number): ErrorDef | undefined {
  return byCode.get(code);
}

function formatMessage(name: ErrorName, ...args: unknown[]): string {
  let i = 0;
  return ERRORS[name].template.replace(/%s/g, () => (i < args.length ? String(args[i++]) : ''));
}

/** An error with a stable code from the table, optionally naming the offending request field. */
export class FaxError extends Error {
  readonly def: ErrorDef;
  /** The request field at fault; set once by whoever knows it. */
  field: string | undefined;
  constructor(name: ErrorName, detail?: string, opts: { field?: string; cause?: unknown } = {}) {
    const def = ERRORS[name];
    const message = def.kind === 'transmission' || def.kind === 'internal' ? outcomeMessage(name, detail) : formatMessage(name, detail ?? '');
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'FaxError';
    this.def = ERRORS[name];
    this.field = opts.field;
  }
  get code(): number {
    return this.def.code;
  }
  get kind(): ErrorKind {
    return this.def.kind;
  }
}

/** Transmission outcome message: the template with an optional ": detail" suffix. */
export function outcomeMessage(name: ErrorName, detail?: string): string {
  return formatMessage(name, detail ? `: ${detail}` : '');
}

/** Runs `fn`; a FaxError it throws without a field gets `field` (the request field being read). */
export function withField<T>(field: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof FaxError && err.field === undefined) err.field = field;
    throw err;
  }
}
