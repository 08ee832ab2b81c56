// Which FaxLine places one gateway's calls: the built-in virtual line for `media: "virtual"`
// (tests, demos), otherwise the SIP line of src/engine/sip-line.ts. This is the one place where
// the SIP line is wired into the daemon.
import { appendFileSync } from 'node:fs';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import type { FaxLine } from './line.js';
import { GatewayConfigError, type Gateway } from './gateways.js';
import type { GatewayLineFactory } from './gateway-pool.js';
import type { VirtualDelivery } from './virtual-line.js';

interface GatewayLineContext {
  clock: Clock;
  logger: Logger;
  /** The line of a `media: "virtual"` gateway. */
  virtual: (gateway: Gateway) => FaxLine;
  /** Where faxes received on a gateway with `inbound` go (the service's inbox, as for the virtual line). */
  onReceived?: (delivery: VirtualDelivery) => Promise<void>;
  /**
   * A file to which each call's start and end on a gateway are appended (JSON lines, written
   * synchronously): a test facility that shows how many calls ran on a gateway at once, over
   * every process appending to the same file. Default: FAXSTACK_CALL_LOG.
   */
  callLog?: string;
}

/**
 * The SIP line (src/engine/sip-line.ts) as the daemon constructs it, one per gateway. Its
 * options are repeated here structurally so that this file builds without that module.
 * ---- SIP WIRING: if SipLine's options change, adapt `makeSipLine` below, nothing else. ----
 */
interface SipLineOptionsLike {
  name: string;
  address: string;
  transport: 'udp' | 'tcp';
  username?: string;
  password?: string;
  media: 't38' | 'audio' | 't38-or-audio';
  callerId?: { number: string; name?: string };
  localPort?: number;
  inbound?: {
    onReceived: (delivery: VirtualDelivery) => Promise<void>;
    maxCalls?: number;
    onCall?: (s: { callId: string; fromNumber: string; toNumber: string; sipStatus: number; media?: string; code?: number; message: string; pages: number; error?: Error }) => void;
  };
  reinviteT38?: boolean;
  register?: { expiresS?: number; onState?: (s: { registered: boolean; status: number; reason: string; expiresS?: number }) => void };
  trace?: (dir: 'send' | 'recv', text: string) => void;
}
export type SipLineConstructor = new (o: SipLineOptionsLike, deps: { clock?: Clock }) => FaxLine;

function makeSipLine(SipLine: SipLineConstructor, gateway: Gateway, ctx: GatewayLineContext): FaxLine {
  const log = ctx.logger.child({ gateway: gateway.name });
  // The pool has already rewritten the number and put callerId in fromNumber: no numberRewrite here.
  return new SipLine(
    {
      name: gateway.name, address: gateway.address, transport: gateway.transport, media: gateway.media as SipLineOptionsLike['media'],
      ...(gateway.username !== undefined ? { username: gateway.username } : {}),
      ...(gateway.password !== undefined ? { password: gateway.password } : {}),
      ...(gateway.callerId !== undefined ? { callerId: { number: gateway.callerId } } : {}),
      ...(gateway.reinviteT38 !== undefined ? { reinviteT38: gateway.reinviteT38 } : {}),
      ...(gateway.register
        ? { register: { ...gateway.register, onState: (s) => (s.registered ? log.info(s, 'registered') : log.warn(s, 'registration failed')) } }
        : {}),
      ...(gateway.inbound && ctx.onReceived
        ? {
            localPort: gateway.inbound.port,
            inbound: { onReceived: ctx.onReceived, maxCalls: gateway.channels, onCall: ({ error, ...s }) => (error ? log.error({ ...s, err: error }, 'inbound call') : log.info(s, 'inbound call')) },
          }
        : {}),
      trace: (dir, text) => log.trace({ dir, sip: text }, 'sip message'),
    },
    { clock: ctx.clock },
  );
}

/** The factory the daemon and `serve --gateways` use. Resolves SipLine once, if this build has it. */
export async function defaultGatewayLineFactory(ctx: GatewayLineContext): Promise<GatewayLineFactory> {
  const SipLine = await loadSipLine();
  const callLog = ctx.callLog ?? process.env.FAXSTACK_CALL_LOG;
  const make: GatewayLineFactory = (gateway) => {
    if (gateway.media === 'virtual') return ctx.virtual(gateway);
    if (!SipLine) {
      throw new GatewayConfigError(
        `gateway "${gateway.name}" media`,
        `"${gateway.media}" needs the SIP line (src/engine/sip-line.ts), which this build does not have; use "virtual" to run the daemon without a gateway`,
      );
    }
    return makeSipLine(SipLine, gateway, ctx);
  };
  return callLog ? (gateway) => withCallLog(make(gateway), gateway.name, callLog) : make;
}

/**
 * The line with its calls logged: `start` once the call is handed to the line (its channel is
 * held by then), `end` when the line has returned it (before the channel is given back). Lines
 * appended with O_APPEND by every process land in the file in the order they happened.
 */
function withCallLog(line: FaxLine, gateway: string, path: string): FaxLine {
  const log = (event: 'start' | 'end', jobId: number) => appendFileSync(path, `${JSON.stringify({ event, gateway, jobId, pid: process.pid, atMs: Date.now() })}\n`);
  return {
    name: line.name,
    async call(req, progress, signal) {
      log('start', req.jobId);
      try {
        return await line.call(req, progress, signal);
      } finally {
        log('end', req.jobId);
      }
    },
    close: () => (line as FaxLine & { close?: () => unknown }).close?.(),
  } as FaxLine & { close: () => unknown };
}

/** `SipLine` from ./sip-line.js, or null while that module does not exist. */
async function loadSipLine(): Promise<SipLineConstructor | null> {
  const specifier = './sip-line.js'; // not a literal: the build must not depend on the module existing
  try {
    const m = (await import(specifier)) as { SipLine?: SipLineConstructor };
    return m.SipLine ?? null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if ((code === 'ERR_MODULE_NOT_FOUND' || /Cannot find module|Failed to load url/i.test(String((err as Error).message))) && /sip-line/.test(String((err as Error).message))) return null;
    throw err;
  }
}
