// The network as the T.38 front end sees it (docs/architecture.md, house rules: the network is an injected interface):
// datagrams out, datagrams in, close. udp.ts puts it on a socket, memory-link.ts in memory.

export interface DatagramTransport {
  /** Sends one datagram to the far end (best effort). */
  send(datagram: Uint8Array): void;
  /** Registers the receiver of incoming datagrams (one at a time, in arrival order). */
  onMessage(cb: (datagram: Uint8Array) => void): void;
  /** Releases the transport; nothing is delivered afterwards. */
  close(): void;
  /** Optional: told once when the transport goes away without close() (socket error, peer hung up). */
  onClose?(cb: (reason: string) => void): void;
}
