// The VIA forms of DESIGN.md's command-line contract (`--via` / `--listen`): the engine's direct
// lines (engine/direct-line.ts), with their errors as usage errors.
import { FaxError } from '../shared/errors.js';
import { directAddressText, openDirectLine, parseDirectAddress, type DirectAddress, type DirectLine } from '../engine/index.js';
import type { AudioPacing } from '../transport/audio/index.js';
import { UsageError } from './usage-error.js';

export type Via = DirectAddress;
export type OpenLine = DirectLine;

export function parseVia(raw: string, flag: string): Via {
  try {
    return parseDirectAddress(raw, flag, { listening: flag === '--listen' });
  } catch (err) {
    if (err instanceof FaxError) throw new UsageError(err.message);
    throw err;
  }
}

export function parsePacing(raw: string, via: Via): AudioPacing {
  if (raw !== 'realtime' && raw !== 'lockstep') throw new UsageError('--pacing must be realtime or lockstep');
  if (raw === 'lockstep' && via.kind !== 'audio') throw new UsageError('--pacing lockstep is for pcm:// and rtp:// lines');
  return raw;
}

/** Opens the line: as the caller towards `via`, or listening on it as the answerer. */
export const openLine = (via: Via, role: 'caller' | 'answerer', pacing: AudioPacing): Promise<OpenLine> => openDirectLine(via, role, pacing);

export const viaText = (via: Via, localPort?: number): string => directAddressText(via, localPort);
