// Driver for the spandsp T.38 test peer (spandsp/t38peer.c): spawns it, advances its sample
// clock in lockstep with the test (`tick N M` → `ok S`), and collects its JSON events. No wall
// clock anywhere: a call takes as many ticks as it takes in simulated time.
//
// Lockstep protocol: in every step each party first takes in what the other sent in the steps
// before, then advances the same number of samples and sends what falls due. Datagrams cross a
// real socket, so each side counts what it handed to the kernel (S) and the other waits for that
// many to arrive (M) before it advances: no step ever depends on scheduling.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createWriteStream } from 'node:fs';

export type PeerCompression = 'mh' | 'mr' | 'mmr';
export type PeerResolution = 'standard' | 'fine' | 'superfine' | 'r16';
export type PeerFailMode = 'no-answer' | 'hangup-mid-page' | 'silent-mid-page' | 'reject-coding' | 'ftt-always';

export interface PeerOptions {
  role: 'send' | 'receive';
  /** Document to send, or where to write the received one. */
  tiff: string;
  /** UDP port on 127.0.0.1 (default 0: any free port, reported by `port`). */
  localPort?: number;
  /** Where to send, HOST:PORT; can also come later from setRemote() or the first datagram. */
  remote?: string;
  ecm?: boolean;
  /** UDPTL redundancy depth: previous IFP packets repeated in each datagram (default 3). */
  redundancy?: number;
  /** UDPTL FEC instead of redundancy: parity entries over span × entries earlier packets. */
  fec?: { span: number; entries: number };
  /** Share of outgoing datagrams dropped, in percent (default 0), drawn from `seed`. */
  lossPct?: number;
  /** Share of incoming datagrams dropped before UDPTL sees them: loss on the path towards the peer. */
  lossRxPct?: number;
  /** Never drop more than this many datagrams in a row, per direction (default: no cap). */
  maxBurst?: number;
  seed?: number;
  ident?: string;
  maxRate?: 14400 | 12000 | 9600 | 7200 | 4800 | 2400;
  allowCompression?: PeerCompression[];
  allowResolution?: PeerResolution[];
  fail?: PeerFailMode;
  /** For the mid-page failures: which page (1-based) and after how many image-data IFP packets. */
  failPage?: number;
  failAfter?: number;
  t38Version?: 0 | 1 | 2 | 3;
  /** spandsp's flow log (stderr) to this file. */
  logFile?: string;
}

export interface PeerCompletion {
  code: number;
  name: string;
}

export interface PeerDone {
  event: 'done';
  success: boolean;
  completion: PeerCompletion;
  pages: number;
  pagesInFile: number;
  bitRate: number;
  ecm: boolean;
  compression: PeerCompression | 'other';
  /** "204x98", "204x196", "204x391", "408x391" … */
  resolution: string;
  width: number;
  remoteIdent: string;
  ecmRetries: number;
  /** Simulated time of the peer at the end, in 1/8000 s. */
  samples: number;
  udptl: { sent: number; dropped: number; received: number; rxDropped: number; recovered: number; recoveredFec: number; lost: number };
}

export interface PeerPage {
  event: 'page';
  n: number;
  bitRate: number;
  ecm: boolean;
  compression: string;
  resolution: string;
  width: number;
  length: number;
  badRows: number;
}

export type PeerEvent =
  | { event: 'ready'; port: number; role: string; version: string }
  | PeerPage
  | PeerDone
  | { event: 'hangup'; mode: string; page: number; imagePackets: number }
  | { event: 'line-down'; reason: string }
  | { event: 'reject'; frame: string }
  | { event: 'error'; message: string }
  | { event: 'quit'; finished: boolean; samples: number };

/** T.30 completion codes of spandsp 0.0.6 (t30.h T30_ERR_*) that the tests look for. */
export const T30_ERR = {
  OK: 0,
  T0_EXPIRED: 2,
  T1_EXPIRED: 3,
  CANNOT_TRAIN: 6,
  INCOMPATIBLE: 8,
  NORESSUPPORT: 11,
  CALLDROPPED: 49,
} as const;

function args(o: PeerOptions): string[] {
  const a = ['--role', o.role, '--tiff', o.tiff, '--local', String(o.localPort ?? 0)];
  if (o.remote) a.push('--remote', o.remote);
  if (o.ecm !== undefined) a.push('--ecm', o.ecm ? '1' : '0');
  if (o.redundancy !== undefined) a.push('--redundancy', String(o.redundancy));
  if (o.fec) a.push('--fec', `${o.fec.span}:${o.fec.entries}`);
  if (o.lossPct !== undefined) a.push('--loss', String(o.lossPct));
  if (o.lossRxPct !== undefined) a.push('--loss-rx', String(o.lossRxPct));
  if (o.maxBurst !== undefined) a.push('--max-burst', String(o.maxBurst));
  if (o.seed !== undefined) a.push('--seed', String(o.seed));
  if (o.ident !== undefined) a.push('--ident', o.ident);
  if (o.maxRate !== undefined) a.push('--max-rate', String(o.maxRate));
  if (o.allowCompression) a.push('--allow-compression', o.allowCompression.join(','));
  if (o.allowResolution) a.push('--allow-resolution', o.allowResolution.join(','));
  if (o.fail) a.push('--fail', o.fail);
  if (o.failPage !== undefined) a.push('--fail-page', String(o.failPage));
  if (o.failAfter !== undefined) a.push('--fail-after', String(o.failAfter));
  if (o.t38Version !== undefined) a.push('--t38-version', String(o.t38Version));
  if (o.logFile) a.push('--log');
  return a;
}

/** One running peer process. */
export class SpandspPeer {
  readonly events: PeerEvent[] = [];
  private buf = '';
  private waiting: Array<{ resolve: (sent: number) => void; reject: (e: Error) => void }> = [];
  /** Datagrams the peer has handed to its socket since it started (from its last `ok`). */
  sentTotal = 0;
  private readyWait?: { resolve: (port: number) => void; reject: (e: Error) => void };
  private exited = false;
  private stderrTail = '';
  port = 0;

  private constructor(private readonly child: ChildProcessWithoutNullStreams, readonly options: PeerOptions) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.onData(chunk));
    if (options.logFile) child.stderr.pipe(createWriteStream(options.logFile));
    else child.stderr.on('data', (c: Buffer) => (this.stderrTail = (this.stderrTail + c.toString()).slice(-4000)));
    child.on('exit', (code, signal) => {
      this.exited = true;
      const err = new Error(`t38peer exited (${code ?? signal}) ${this.stderrTail}`.trim());
      for (const w of this.waiting.splice(0)) w.reject(err);
      this.readyWait?.reject(err);
    });
    child.stdin.on('error', () => undefined); // EPIPE after an exit is reported through 'exit'
  }

  /** Starts a peer and waits until its socket is bound. */
  static async start(binary: string, options: PeerOptions): Promise<SpandspPeer> {
    const child = spawn(binary, args(options), { stdio: ['pipe', 'pipe', 'pipe'] });
    const peer = new SpandspPeer(child, options);
    peer.port = await new Promise<number>((resolve, reject) => (peer.readyWait = { resolve, reject }));
    return peer;
  }

  private onData(chunk: string): void {
    this.buf += chunk;
    for (let nl = this.buf.indexOf('\n'); nl >= 0; nl = this.buf.indexOf('\n')) {
      const line = this.buf.slice(0, nl);
      this.buf = this.buf.slice(nl + 1);
      if (line.startsWith('ok')) {
        this.sentTotal = Number(line.slice(3)) || this.sentTotal;
        this.waiting.shift()?.resolve(this.sentTotal);
        continue;
      }
      let ev: PeerEvent;
      try {
        ev = JSON.parse(line) as PeerEvent;
      } catch {
        continue;
      }
      this.events.push(ev);
      if (ev.event === 'ready') this.readyWait?.resolve(ev.port);
      if (ev.event === 'error') {
        const err = new Error(`t38peer: ${ev.message}`);
        this.readyWait?.reject(err);
        for (const w of this.waiting.splice(0)) w.reject(err);
      }
    }
  }

  private command(line: string): Promise<number> {
    if (this.exited) return Promise.reject(new Error(`t38peer has exited ${this.stderrTail}`.trim()));
    return new Promise<number>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(`${line}\n`);
    });
  }

  /**
   * Advances the peer's clock by `samples` (8 kHz) after it has taken in every datagram that
   * arrived, first waiting until `expectReceived` datagrams have arrived in all (the far side's
   * sentTotal). Resolves with the peer's own sentTotal.
   */
  tick(samples: number, expectReceived = 0): Promise<number> {
    return this.command(`tick ${samples} ${expectReceived}`);
  }

  async setRemote(hostPort: string): Promise<void> {
    await this.command(`remote ${hostPort}`);
  }

  /** The T.30 outcome, once phase E has been reached. */
  get done(): PeerDone | undefined {
    return this.events.find((e): e is PeerDone => e.event === 'done');
  }

  get pages(): PeerPage[] {
    return this.events.filter((e): e is PeerPage => e.event === 'page');
  }

  /** Ends the process (after its last events) and waits for it. */
  async quit(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.end('quit\n');
    await gone;
  }

  /** Kills the process at once (test clean-up after a failure). */
  kill(): void {
    if (!this.exited) this.child.kill('SIGKILL');
  }
}

/** Either end of a lockstep run: a peer, or our own session behind a ManualClock. */
export interface LockstepParty {
  /**
   * Waits until `expectReceived` datagrams have arrived in all, takes them in, advances
   * `samples` (1/8000 s) and sends what falls due.
   */
  tick(samples: number, expectReceived: number): Promise<void>;
  /** Datagrams handed to the network so far (what the other end will wait for). */
  readonly sentTotal: number;
  /** True once this party needs no more time (its call is over). */
  readonly finished: boolean;
}

export interface LockstepOptions {
  /** Samples per step (default 160 = 20 ms). */
  stepSamples?: number;
  /** Give up after this much simulated time (default 15 minutes). */
  maxSimulatedMs?: number;
  /** Keep going this long after every party has finished, so late frames (DCN repeats) land. */
  tailMs?: number;
}

/**
 * Runs two ends of a call in lockstep: every step, each takes in what the other sent in the
 * steps before, then both advance `stepSamples`. Stops `tailMs` after `done()` (default: both
 * finished) turns true, or at `maxSimulatedMs`. Returns the simulated time used, in ms.
 */
export async function runLockstep(
  a: LockstepParty,
  b: LockstepParty,
  opts: LockstepOptions & { done?: () => boolean } = {},
): Promise<number> {
  const step = opts.stepSamples ?? 160;
  const limit = ((opts.maxSimulatedMs ?? 15 * 60_000) * 8000) / 1000;
  const done = opts.done ?? (() => a.finished && b.finished);
  let tailLeft = ((opts.tailMs ?? 200) * 8000) / 1000;
  let samples = 0;
  while (samples < limit) {
    const [fromA, fromB] = [a.sentTotal, b.sentTotal];
    await Promise.all([a.tick(step, fromB), b.tick(step, fromA)]);
    samples += step;
    if (done()) {
      tailLeft -= step;
      if (tailLeft <= 0) break;
    }
  }
  return (samples * 1000) / 8000;
}

/** A peer as a lockstep party: finished at phase E (or as `finishedWhen` says). */
export function peerParty(peer: SpandspPeer, finishedWhen: (p: SpandspPeer) => boolean = (p) => p.done !== undefined): LockstepParty {
  return {
    tick: async (n, expect) => void (await peer.tick(n, expect)),
    get sentTotal() {
      return peer.sentTotal;
    },
    get finished() {
      return finishedWhen(peer);
    },
  };
}
