// Logging setup: one pino logger per process; modules take a child logger.
import { pino, type Logger, type LevelWithSilent, type DestinationStream } from 'pino';

export type { Logger };

export function createLogger(opts: { level?: LevelWithSilent; name?: string; destination?: DestinationStream } = {}): Logger {
  const level = opts.level ?? ((process.env.FAXSTACK_LOG_LEVEL as LevelWithSilent | undefined) ?? 'info');
  return pino({ level, name: opts.name ?? 'faxstack', base: { pid: process.pid } }, opts.destination ?? process.stdout);
}

/** A logger that discards everything (unit tests). */
export const silentLogger: Logger = pino({ level: 'silent' });
