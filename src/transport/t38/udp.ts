// UDPTL over a real UDP socket (node:dgram): the DatagramTransport of `udptl://HOST:PORT`.
// The only file of transport/t38 that does I/O; the CLI and daemon entry points open it.
// The far end is given, or learnt from the first datagram (the answering side of a raw
// UDPTL call). Once known, the socket is connected to it: the kernel then drops datagrams
// from anyone else, and the ICMP "port unreachable" that follows the far end closing its
// socket (the only hang-up signal raw UDPTL has) comes back as ECONNREFUSED → onClose.
import { createSocket, type Socket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { isIP, isIPv6 } from 'node:net';
import { T38Error } from './errors.js';
import type { DatagramTransport } from './transport.js';

interface UdpTransportOptions {
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

interface UdpTransportStats {
  sent: number;
  received: number;
  /** Datagrams from addresses other than the far end, before the socket was connected. */
  foreign: number;
  /** Sends dropped because the far end was not known yet. */
  unsent: number;
  /** "Port unreachable" before anything was heard from the far end (not yet listening): ignored. */
  refused: number;
}

/** Most datagrams held while the socket connects to a far end just learnt. */
const MAX_HELD = 1024;

export class UdpTransport implements DatagramTransport {
  readonly stats: UdpTransportStats = { sent: 0, received: 0, foreign: 0, unsent: 0, refused: 0 };
  private messageCb: ((d: Uint8Array) => void) | undefined;
  private closeCbs: ((reason: string) => void)[] = [];
  /** close() was called or the socket failed: nothing more is taken or delivered. */
  private closing = false;
  private socketClosed = false;
  private connected = false;
  /** Sends handed to the socket whose callback has not come yet. */
  private inFlight = 0;
  /** Sends waiting for connect() to finish. */
  private held: Uint8Array[] = [];
  /** A datagram came from the far end: from then on, "port unreachable" means it hung up. */
  private heard = false;

  /** @internal use openUdpTransport() */
  constructor(
    private readonly socket: Socket,
    readonly local: UdpEndpoint,
    private peer: UdpEndpoint | undefined,
    connected: boolean,
  ) {
    this.connected = connected;
    socket.on('message', (msg, rinfo) => {
      if (this.closing) return;
      if (!this.peer) {
        this.peer = { address: rinfo.address, port: rinfo.port };
        this.connect();
      } else if (rinfo.address !== this.peer.address || rinfo.port !== this.peer.port) {
        this.stats.foreign++;
        return;
      }
      this.heard = true;
      this.stats.received++;
      this.messageCb?.(new Uint8Array(msg.buffer, msg.byteOffset, msg.byteLength));
    });
    socket.on('error', (err) => this.onError(err));
  }

  /** The far end, once known. */
  get remote(): UdpEndpoint | undefined {
    return this.peer;
  }

  send(datagram: Uint8Array): void {
    if (this.closing) return;
    if (!this.peer) {
      this.stats.unsent++;
      return;
    }
    if (!this.connected) {
      if (this.held.length < MAX_HELD) this.held.push(datagram);
      else this.stats.unsent++;
      return;
    }
    this.write(datagram);
  }

  private write(datagram: Uint8Array): void {
    this.stats.sent++;
    this.inFlight++;
    this.socket.send(datagram, (err) => {
      this.inFlight--;
      if (err) this.onError(err);
      this.closeWhenDrained();
    });
  }

  private connect(): void {
    const peer = this.peer!;
    this.socket.connect(peer.port, peer.address, () => {
      if (this.socketClosed) return;
      this.connected = true;
      const held = this.held;
      this.held = [];
      for (const d of held) this.write(d); // also when closing: close() waits for them
      this.closeWhenDrained();
    });
  }

  onMessage(cb: (datagram: Uint8Array) => void): void {
    this.messageCb = cb;
  }

  onClose(cb: (reason: string) => void): void {
    this.closeCbs.push(cb);
  }

  /** Stops taking and delivering datagrams; the socket closes once what was sent has left. */
  close(): void {
    if (this.closing) return;
    this.closing = true;
    this.closeWhenDrained();
  }

  private closeWhenDrained(): void {
    if (!this.closing || this.socketClosed || this.inFlight > 0 || (this.held.length > 0 && !this.connected && this.peer)) return;
    this.socketClosed = true;
    this.socket.close();
  }

  private onError(err: Error & { code?: string }): void {
    if (this.socketClosed) return;
    if (err.code === 'ECONNREFUSED' && !this.heard) {
      this.stats.refused++; // the far end is not listening yet
      return;
    }
    this.fail(err.code === 'ECONNREFUSED' ? 'the far end is gone (ICMP port unreachable)' : `UDP socket error: ${err.message}`);
  }

  private fail(reason: string): void {
    if (this.socketClosed) return;
    const wasClosing = this.closing;
    this.closing = true;
    this.held = [];
    this.socketClosed = true;
    this.socket.close();
    if (!wasClosing) for (const cb of this.closeCbs) cb(reason);
  }
}

/** Binds (and, given the far end, connects) a UDP socket for UDPTL. Rejects with T38Error('bad_parameter') for bad ports, or the socket's error. */
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
  const remote = remoteAddress !== undefined ? { address: remoteAddress, port: opts.remotePort! } : undefined;
  if (remote) {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.connect(remote.port, remote.address, () => {
        socket.off('error', reject);
        resolve();
      });
    });
  }
  const addr = socket.address();
  return new UdpTransport(socket, { address: addr.address, port: addr.port }, remote, remote !== undefined);
}
