// Service-level settings the job lifecycle needs: prices, limits, lines and their retry policy.

export interface LinePolicy {
  /** Attempts for outcomes worth retrying (busy, no answer, partial failures). */
  maxAttempts: number;
  /** Wait before retry k (1-based) is retryDelaysMs[k-1] (the last value repeats). */
  retryDelaysMs: number[];
}

export interface JobsConfig {
  pricePerPageCents: number;
  /** A job not finished this long after its send time fails with -3111. */
  deadlineMs: number;
  maxPages: number;
  maxFileBytes: number;
  /** Line used by live keys (test keys always use `virtual`). */
  liveLine: string;
  lines: Record<string, LinePolicy>;
}

export const DEFAULT_JOBS_CONFIG: JobsConfig = {
  pricePerPageCents: 7,
  deadlineMs: 24 * 3600_000,
  maxPages: 200,
  maxFileBytes: 20 * 1024 * 1024,
  liveLine: 'virtual',
  lines: {
    // The virtual line answers within seconds and every outcome is deliberate: one attempt.
    virtual: { maxAttempts: 1, retryDelaysMs: [] },
  },
};

const DEFAULT_LINE_POLICY: LinePolicy = { maxAttempts: 3, retryDelaysMs: [5 * 60_000, 15 * 60_000] };

export function linePolicy(cfg: JobsConfig, line: string): LinePolicy {
  return cfg.lines[line] ?? DEFAULT_LINE_POLICY;
}

/**
 * The jobs configuration with a gateway pool: live keys send on the pool's line, with the retry
 * policy of the gateways file (or one already configured for that line, or the default).
 */
export function withGatewayLine(cfg: JobsConfig, gateways: { line: string; retry?: LinePolicy }): JobsConfig {
  const policy = gateways.retry ?? cfg.lines[gateways.line] ?? DEFAULT_LINE_POLICY;
  return { ...cfg, liveLine: gateways.line, lines: { ...cfg.lines, [gateways.line]: policy } };
}
