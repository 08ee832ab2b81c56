// UDPTL over a real UDP socket (node:dgram): the DatagramTransport of `udptl://HOST:PORT`.
// The only file of transport/t38 that does I/O; the CLI and daemon entry points open it.
// The far end is given, or learnt from the first datagram (the answering side of a raw
// UDPTL call); once known, datagrams from any other address are ignored.
import { createSocket, type Socket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { isIP, isIPv6 } from 'node:net';
import { T38Error } from './errors.js';
import type { DatagramTransport } from './transport.js';

export interface UdpTransportOptions {
  /** Local address (default 0.0.0.0, or :: when the remote is IPv6). */
  bindHost?: string;
  /** Local port (default 0: any free port). */
  bindPort?: number;
  /** Far end; when absent it is learnt from the first datagram received. */
  remoteHost?: string;
  remotePort?: number;
}

export interface UdpEndpoint {
  address: string;
  port: number;
}

export interface UdpTransportStats {
  sent: number;
  received: number;
  /** Datagrams from addresses other than the far end. */
  foreign: number;
  /** Sends dropped because the far end was not known yet. */
  unsent: number;
}

export class UdpTransport implements DatagramTransport {
  readonly stats: UdpTransportStats = { sent: 0, received: 0, foreign: 0, unsent: 0 };
  private messageCb: ((d: Uint8Array) => void) | undefined;
  private closeCbs: ((reason: string) => void)[] = [];
  private closed = false;

  /** @internal use openUdpTransport() */
  constructor(
    private readonly socket: Socket,
    readonly local: UdpEndpoint,
    private peer: UdpEndpoint | undefined,
  ) {
    socket.on('message', (msg, rinfo) => {
      if (this.closed) return;
      if (!this.peer) this.peer = { address: rinfo.address, port: rinfo.port };
      else if (rinfo.address !== this.peer.address || rinfo.port !== this.peer.port) {
        this.stats.foreign++;
        return;
      }
      this.stats.received++;
      this.messageCb?.(new Uint8Array(msg.buffer, msg.byteOffset, msg.byteLength));
    });
    socket.on('error', (err) => this.fail(`UDP socket error: ${err.message}`));
  }

  /** The far end, once known. */
  get remote(): UdpEndpoint | undefined {
    return this.peer;
  }

  send(datagram: Uint8Array): void {
    if (this.closed) return;
    if (!this.peer) {
      this.stats.unsent++;
      return;
    }
    this.stats.sent++;
    this.socket.send(datagram, this.peer.port, this.peer.address, (err) => {
      if (err) this.fail(`UDP send failed: ${err.message}`);
    });
  }

  onMessage(cb: (datagram: Uint8Array) => void): void {
    this.messageCb = cb;
  }

  onClose(cb: (reason: string) => void): void {
    this.closeCbs.push(cb);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.close();
  }

  private fail(reason: string): void {
    if (this.closed) return;
    this.close();
    for (const cb of this.closeCbs) cb(reason);
  }
}

/** Binds a UDP socket for UDPTL. Rejects with T38Error('bad_parameter') for bad ports, or the socket's error. */
export async function openUdpTransport(opts: UdpTransportOptions = {}): Promise<UdpTransport> {
  const port = (v: number | undefined, what: string, lo: number) => {
    if (v !== undefined && (!Number.isInteger(v) || v < lo || v > 65535)) throw new T38Error('bad_parameter', `${what} ${v} outside ${lo}..65535`);
  };
  port(opts.bindPort, 'bindPort', 0);
  port(opts.remotePort, 'remotePort', 1);
  if ((opts.remoteHost === undefined) !== (opts.remotePort === undefined)) throw new T38Error('bad_parameter', 'remoteHost and remotePort go together');
  // Datagrams are matched by address, so a host name is resolved once, here.
  const remoteAddress = opts.remoteHost === undefined || isIP(opts.remoteHost) ? opts.remoteHost : (await lookup(opts.remoteHost)).address;
  const v6 = remoteAddress !== undefined ? isIPv6(remoteAddress) : opts.bindHost !== undefined && isIPv6(opts.bindHost);
  const socket = createSocket(v6 ? 'udp6' : 'udp4');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(opts.bindPort ?? 0, opts.bindHost ?? (v6 ? '::' : '0.0.0.0'), () => {
      socket.off('error', reject);
      resolve();
    });
  });
  const addr = socket.address();
  const remote = remoteAddress !== undefined ? { address: remoteAddress, port: opts.remotePort! } : undefined;
  return new UdpTransport(socket, { address: addr.address, port: addr.port }, remote);
}
