// The VIA forms of docs/cli.md's command-line contract (`--via` / `--listen`): the engine's direct
// lines (engine/direct-line.ts), with their errors as usage errors.
import { FaxError } from '../shared/errors.js';
import { directAddressText, openDirectLine, parseDirectAddress, parseSipAddress, type DirectAddress, type DirectLine } from '../engine/index.js';
import type { AudioPacing } from '../transport/audio/index.js';
import { UsageError } from './usage-error.js';

/** A SIP call (docs/cli.md VIA `sip:NUMBER@HOST[:PORT][;transport=udp|tcp]`), negotiating T.38 or G.711. */
export interface SipVia {
  kind: 'sip';
  number: string;
  host: string;
  port: number;
  transport: 'udp' | 'tcp';
}

export type Via = DirectAddress | SipVia;
type OpenLine = DirectLine;

/** `sip:NUMBER@HOST[:PORT][;transport=udp|tcp]`; null when `raw` is not a sip: URI. */
function parseSipVia(raw: string, flag: string): SipVia | null {
  try {
    const a = parseSipAddress(raw, flag);
    return a && { kind: 'sip', ...a };
  } catch (err) {
    if (err instanceof FaxError) throw new UsageError(err.message.replace(/^Invalid parameter: /, ''));
    throw err;
  }
}

/** Where `receive --listen sip:HOST[:PORT][;transport=udp|tcp]` answers. */
export interface SipListen {
  kind: 'sip-listen';
  host: string;
  port: number;
  transport: 'udp' | 'tcp';
}

export function parseSipListen(raw: string, flag: string): SipListen | null {
  if (!/^sip:/i.test(raw)) return null;
  // The user part is optional here: any dialled number is answered.
  const v = parseSipVia(raw.includes('@') ? raw : raw.replace(/^sip:/i, 'sip:0@'), flag)!;
  return { kind: 'sip-listen', host: v.host, port: v.port, transport: v.transport };
}

export function parseVia(raw: string, flag: string): Via {
  const sip = flag === '--via' ? parseSipVia(raw, flag) : null;
  if (sip) return sip;
  try {
    return parseDirectAddress(raw, flag, { listening: flag === '--listen' });
  } catch (err) {
    if (err instanceof FaxError) throw new UsageError(err.message.replace(/^Invalid parameter: /, ''));
    throw err;
  }
}

export function parsePacing(raw: string, via: Via): AudioPacing {
  if (raw !== 'realtime' && raw !== 'lockstep') throw new UsageError('--pacing must be realtime or lockstep');
  if (raw === 'lockstep' && via.kind !== 'audio') throw new UsageError('--pacing lockstep is for pcm:// and rtp:// lines');
  return raw;
}

/** Opens the line: as the caller towards `via`, or listening on it as the answerer. */
export const openLine = (via: DirectAddress, role: 'caller' | 'answerer', pacing: AudioPacing): Promise<OpenLine> => openDirectLine(via, role, pacing);

export const viaText = (via: Via, localPort?: number): string =>
  via.kind === 'sip'
    ? `sip:${via.number}@${via.host.includes(':') ? `[${via.host}]` : via.host}:${via.port}${via.transport === 'tcp' ? ';transport=tcp' : ''}`
    : directAddressText(via, localPort);
