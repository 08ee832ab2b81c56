// Our SipStack: the npm `sip` package's transport and transaction layers (RFC 3261 17:
// retransmissions, ACK of non-2xx, 2xx passed up for the TU to ACK) behind a narrow interface,
// with the next hop chosen by us (the gateway or the outbound proxy) rather than by sip's DNS
// search, requests routed to dialogs by Call-ID, and no port-5060 default (a free port is taken).
import { randomBytes } from 'node:crypto';
import dgram, { createSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { createServer, isIP } from 'node:net';
import sip, { type Remote, type SipMessage } from 'sip';
import { SipError } from './errors.js';

export type { SipMessage } from 'sip';
type SipTransportKind = 'udp' | 'tcp';

export interface SipHop {
  host: string;
  port: number;
}

interface SipStackOptions {
  transport: SipTransportKind;
  /** Address written in Via and Contact, and in SDP by the call layer (default 127.0.0.1). */
  publicAddress?: string;
  /** Local address to bind (default 0.0.0.0). */
  bindHost?: string;
  /** Local port (default 0: a free one). */
  port?: number;
  /** Every message sent and received, for logs. */
  trace?: (dir: 'send' | 'recv', text: string) => void;
}

/** A request's handler: in-dialog requests by Call-ID, the rest by the default handler. */
export type RequestHandler = (req: SipMessage, remote: Remote) => void;

export interface SipStack {
  readonly transport: SipTransportKind;
  readonly publicAddress: string;
  readonly port: number;
  /**
   * Sends a request in a client transaction to `hop`; responses (provisional, final, and for
   * INVITE every 2xx retransmission) go to `onResponse`. A transport failure is a 503, a
   * transaction timeout a 408, as RFC 3261 says. CANCEL must carry its INVITE's Via.
   */
  request(req: SipMessage, hop: SipHop, onResponse: (res: SipMessage) => void): void;
  /** Sends an ACK for a 2xx (outside any transaction; a new branch). */
  ack(req: SipMessage, hop: SipHop): void;
  /** Sends a response to a request received (through its server transaction). */
  respond(req: SipMessage, status: number, reason: string, extra?: { headers?: Record<string, unknown>; content?: string }): void;
  /** Requests (and responses no transaction claims, e.g. late 2xx retransmissions) with this Call-ID. */
  bindCallId(callId: string, onRequest: RequestHandler, onStrayResponse?: (res: SipMessage) => void): void;
  unbindCallId(callId: string): void;
  /** Requests of no known Call-ID (default: OPTIONS 200, INVITE 480, others 481). */
  onRequest(handler: RequestHandler): void;
  close(): void;
}

async function freePort(kind: SipTransportKind, host: string): Promise<number> {
  if (kind === 'udp') {
    const s = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.bind(0, host, () => resolve());
    });
    const port = s.address().port;
    await new Promise<void>((resolve) => s.close(() => resolve()));
    return port;
  }
  const srv = createServer();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, host, () => resolve());
  });
  const addr = srv.address();
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  if (!addr || typeof addr === 'string') throw new SipError('transport', 'no TCP port');
  return addr.port;
}

/** Starts a stack on one transport. Rejects with SipError('transport') when it cannot bind. */
export async function createSipStack(o: SipStackOptions): Promise<SipStack> {
  const bindHost = o.bindHost ?? '0.0.0.0';
  const publicAddress = o.publicAddress ?? '127.0.0.1';
  const port = o.port && o.port > 0 ? o.port : await freePort(o.transport, bindHost);
  const protocol = o.transport.toUpperCase();
  const calls = new Map<string, { onRequest: RequestHandler; onStray: ((res: SipMessage) => void) | undefined }>();
  let fallback: RequestHandler | undefined;
  const options = {
    port,
    address: bindHost === '0.0.0.0' ? undefined : bindHost,
    publicAddress,
    udp: o.transport === 'udp',
    tcp: o.transport === 'tcp',
    logger: o.trace
      ? { send: (m: SipMessage) => o.trace!('send', sip.stringify(m)), recv: (m: SipMessage) => o.trace!('recv', safeStringify(m)) }
      : undefined,
  };
  let stack!: SipStack;
  const dropped = (e: unknown): void => o.trace?.('recv', `dropped a datagram that broke the SIP parser: ${(e as Error).message ?? String(e)}`);
  const transport = withGuardedDatagrams(dropped, () => sip.makeTransport(options, (m, remote) => {
    try {
      const t = m.method ? layer.getServer(m) : layer.getClient(m);
      if (t) {
        t.message(m, remote);
        return;
      }
      const call = calls.get(m.headers['call-id'] ?? '');
      if (!m.method) {
        call?.onStray?.(m);
        return;
      }
      if (m.method !== 'ACK') layer.createServerTransaction(m, transport.get(remote)!);
      if (call) call.onRequest(m, remote);
      else if (fallback) fallback(m, remote);
      else if (m.method === 'OPTIONS') stack.respond(m, 200, 'OK');
      else if (m.method === 'INVITE') stack.respond(m, 480, 'Temporarily Unavailable');
      else if (m.method !== 'ACK') stack.respond(m, 481, 'Call/Transaction Does Not Exist');
    } catch (e) {
      o.trace?.('recv', `error handling a message: ${(e as Error).stack ?? String(e)}`);
    }
  }));
  const layer = sip.makeTransactionLayer(options, transport.open.bind(transport));
  const resolved = new Map<string, string>();
  const resolve = async (host: string): Promise<string> => {
    if (isIP(host)) return host;
    const known = resolved.get(host);
    if (known) return known;
    const a = (await lookup(host)).address;
    resolved.set(host, a);
    return a;
  };
  const target = async (hop: SipHop): Promise<Remote> => ({ protocol, address: await resolve(hop.host), port: hop.port });

  stack = {
    transport: o.transport,
    publicAddress,
    port,
    request(req, hop, onResponse) {
      if (req.method !== 'CANCEL') req.headers.via = [{ params: {} }];
      void target(hop).then(
        (to) => {
          let client: ReturnType<typeof layer.createClientTransaction> | undefined;
          let failed = false;
          const cn = transport.open(to, (err) => {
            if (failed) return;
            failed = true;
            const rs = sip.makeResponse(req, 503, `Transport error: ${err.message}`);
            if (client) client.message(rs);
            else onResponse(rs);
          });
          client = layer.createClientTransaction(cn, req, onResponse);
        },
        (err: Error) => onResponse(sip.makeResponse(req, 503, `Cannot resolve ${hop.host}: ${err.message}`)),
      );
    },
    ack(req, hop) {
      req.headers.via = [{ params: { branch: sip.generateBranch() } }];
      void target(hop).then((to) => {
        const cn = transport.open(to, () => undefined);
        try {
          cn.send(req);
        } finally {
          cn.release();
        }
      }, () => undefined);
    },
    respond(req, status, reason, extra) {
      const rs = sip.makeResponse(req, status, reason, extra);
      if (status > 100 && rs.headers.to && !rs.headers.to.params.tag && req.method !== 'CANCEL') {
        // Every response but 100 carries our To tag (one per request here: enough for a UA).
        rs.headers.to = { ...rs.headers.to, params: { ...rs.headers.to.params, tag: localTag(req) } };
      }
      layer.getServer(req)?.send(rs);
    },
    bindCallId(callId, onRequest, onStray) {
      calls.set(callId, { onRequest, onStray });
    },
    unbindCallId(callId) {
      calls.delete(callId);
    },
    onRequest(handler) {
      fallback = handler;
    },
    close() {
      layer.destroy();
      transport.destroy();
    },
  };
  return stack;
}

/**
 * sip's UDP transport parses each datagram inside the socket's 'message' listener with no guard,
 * and its parser keeps header parameters on plain objects: `Via: SIP/2.0/UDP h;__proto__` leaves
 * the Via's params without a prototype, the transport's `params.hasOwnProperty('rport')` throws,
 * and one datagram ended the process (uncaught exception). While sip creates its socket, the
 * listener it passes is wrapped so such a datagram is dropped instead.
 */
function withGuardedDatagrams<T>(onError: (e: unknown) => void, make: () => T): T {
  const original = dgram.createSocket;
  const guarded = (type: dgram.SocketType | dgram.SocketOptions, listener?: (msg: Buffer, rinfo: dgram.RemoteInfo) => void): dgram.Socket =>
    original(type as dgram.SocketType, listener && ((msg: Buffer, rinfo: dgram.RemoteInfo) => {
      try {
        listener(msg, rinfo);
      } catch (e) {
        onError(e);
      }
    }));
  (dgram as { createSocket: unknown }).createSocket = guarded;
  try {
    return make();
  } finally {
    (dgram as { createSocket: unknown }).createSocket = original;
  }
}

/** A received message for the trace; a hostile one may not stringify (the trace must not throw in sip's socket handler). */
function safeStringify(m: SipMessage): string {
  try {
    return sip.stringify(m);
  } catch (e) {
    return `(unprintable message: ${(e as Error).message})`;
  }
}

const tags = new WeakMap<SipMessage, string>();
function localTag(req: SipMessage): string {
  let t = tags.get(req);
  if (!t) tags.set(req, (t = randomToken()));
  return t;
}

export function randomToken(bytes = 8): string {
  return randomBytes(bytes).toString('hex');
}
