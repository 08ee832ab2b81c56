// Builds and runs fax-peer.c, spandsp's whole audio fax terminal (fax_state_t) as a test peer:
// one party of a call over UDP (raw PCM or RTP G.711) or stdin/stdout, and the back-to-back
// recorders of the reference sessions (fixtures/sessions). The command line is documented in
// the header of fax-peer.c; this module only spells it in TypeScript.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSpandspProgram, type CBuild } from '../build-c.js';

const SOURCE = join(dirname(fileURLToPath(import.meta.url)), 'fax-peer.c');

/** Compiles the peer if needed (synchronous, so test files can decide to skip at collection). */
export function buildFaxPeer(): CBuild {
  return buildSpandspProgram(SOURCE, 'fax-peer', ['-ltiff']);
}

export type FaxPeerModem = 'v27ter' | 'v29' | 'v17';
export type FaxPeerCompression = 'mh' | 'mr' | 'mmr';
export type FaxPeerResolution = 'standard' | 'fine' | 'superfine' | 'r16';
export type FaxPeerCodec = 'pcm' | 'pcmu' | 'pcma';

/** What one side offers and may use (T.30 negotiates the rest). */
export interface FaxPeerT30Options {
  ecm?: boolean;
  modems?: FaxPeerModem[];
  /** MH is always kept (T.30's baseline). */
  compression?: FaxPeerCompression[];
  resolution?: FaxPeerResolution[];
  ident?: string;
  /** Simulated time before the call is dropped (default 300 s). */
  maxSeconds?: number;
  /** Audio kept flowing after phase E (default 500 ms). */
  tailMs?: number;
  /** spandsp's flow log on stderr. */
  log?: boolean;
}

/** Impairments of the audio spandsp sends and receives, in dBm0 (spandsp's modems send at -14). */
export interface FaxPeerLineOptions {
  txLevelDbm0?: number;
  txNoiseDbm0?: number;
  rxNoiseDbm0?: number;
  seed?: number;
}

export type FaxPeerTransport =
  | { kind: 'udp'; codec: FaxPeerCodec; local: string; remote?: string; lockstep: boolean; first?: boolean }
  | { kind: 'stdio'; first?: boolean };

export interface FaxPeerOptions extends FaxPeerT30Options, FaxPeerLineOptions {
  role: 'send' | 'receive';
  /** Document to send, or where the received one goes. */
  tiff: string;
  transport: FaxPeerTransport;
}

/** The result line of a peer, and of each side of a recording. */
/**
 * spandsp's sender as the interop case beside the CPU hog runs it (test/interop/audio-under-load.test.ts,
 * bench/audio-hog.ts): RTP µ-law to our answerer at `port`, V.27ter 4800, −24 dBm0 with −57 dBm0
 * of noise, ECM, one MH/MR page from `tiff`.
 */
export function hogSenderOptions(tiff: string, port: number): FaxPeerOptions {
  return {
    role: 'send', tiff, ecm: true, modems: ['v27ter'], compression: ['mh', 'mr'], ident: '+15550100', maxSeconds: 300, tailMs: 500, log: true,
    txLevelDbm0: -24, txNoiseDbm0: -57,
    transport: { kind: 'udp', codec: 'pcmu', local: '127.0.0.1:0', remote: `127.0.0.1:${port}`, lockstep: false },
  };
}

export interface FaxPeerResult {
  /** spandsp's T.30 completion code (T30_ERR_*), 0 = OK. */
  completion: number;
  completionText: string;
  pages: number;
  bitRate: number;
  /** From the DCS: 'V.17', 'V.29', 'V.27ter' ('' without a DCS). */
  modulation: string;
  ecm: boolean;
  compression: FaxPeerCompression | '';
  resolution: { x: number; y: number };
  width: number;
  length: number;
  badRows: number;
  ecmRetries: number;
  remoteIdent: string;
  role: 'send' | 'receive';
  /** The DIS and DCS as T.30 frames (address, control, FCF, FIF), hex. */
  dis: string;
  dcs: string;
  /** Simulated time at the end, in 1/8000 s. */
  samples: number;
  /**
   * Peers only: datagrams/blocks each way, stalls (first side repeating after 2 s), bad frames;
   * in real time the ticks played as fill-in once a frame had come and the frames the full FIFO dropped.
   */
  transport?: { sent: number; received: number; stalls: number; bad: number; fillins: number; dropped: number };
}

function t30Args(o: FaxPeerT30Options): string[] {
  const a: string[] = [];
  if (o.ecm !== undefined) a.push('--ecm', o.ecm ? '1' : '0');
  if (o.modems) a.push('--modems', o.modems.join(','));
  if (o.compression) a.push('--compression', o.compression.join(','));
  if (o.resolution) a.push('--resolution', o.resolution.join(','));
  if (o.ident !== undefined) a.push('--ident', o.ident);
  if (o.maxSeconds !== undefined) a.push('--max-seconds', String(o.maxSeconds));
  if (o.tailMs !== undefined) a.push('--tail-ms', String(o.tailMs));
  if (o.log) a.push('--log');
  return a;
}

export function faxPeerArgs(o: FaxPeerOptions): string[] {
  const a = [o.role, o.tiff, ...t30Args(o)];
  if (o.txLevelDbm0 !== undefined) a.push('--tx-level', String(o.txLevelDbm0));
  if (o.txNoiseDbm0 !== undefined) a.push('--tx-noise', String(o.txNoiseDbm0));
  if (o.rxNoiseDbm0 !== undefined) a.push('--rx-noise', String(o.rxNoiseDbm0));
  if (o.seed !== undefined) a.push('--seed', String(o.seed));
  const t = o.transport;
  if (t.kind === 'udp') {
    a.push('--udp', t.codec, '--local', t.local);
    if (t.remote) a.push('--remote', t.remote);
    if (t.lockstep) a.push('--lockstep');
  } else {
    a.push('--stdio');
  }
  if (t.first !== undefined) a.push(t.first ? '--first' : '--no-first');
  return a;
}

export interface FaxPeerExit {
  /** 0: the call succeeded, 1: it did not, 2: bad usage. */
  code: number | null;
  result: FaxPeerResult | undefined;
  /** The last 8 kB of stderr (spandsp's log with `log`). */
  stderr: string;
}

/** One running peer. */
export class FaxPeer {
  /** The bound UDP address ("127.0.0.1:PORT"), once listening (UDP only). */
  readonly address: Promise<string>;
  /** Resolves when the process has exited, with its result line. */
  readonly exit: Promise<FaxPeerExit>;

  private constructor(readonly child: ChildProcessWithoutNullStreams, readonly options: FaxPeerOptions) {
    let stdout = '';
    let stderr = '';
    let resolveAddress!: (a: string) => void;
    let rejectAddress!: (e: Error) => void;
    this.address = new Promise<string>((res, rej) => ((resolveAddress = res), (rejectAddress = rej)));
    this.address.catch(() => undefined);
    const stdio = options.transport.kind === 'stdio';
    if (!stdio) child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => {
      stderr = (stderr + c.toString()).slice(-8192);
      const m = /^listening (\S+)$/m.exec(stderr);
      if (m) resolveAddress(m[1]!);
    });
    child.stdin.on('error', () => undefined); // EPIPE once the peer has gone
    this.exit = new Promise<FaxPeerExit>((resolve) => {
      child.on('close', (code) => {
        rejectAddress(new Error(`fax-peer exited before listening: ${stderr.trim()}`));
        const lines = (stdio ? stderr : stdout).split('\n').filter((l) => l.startsWith('{'));
        const last = lines.at(-1);
        resolve({ code, result: last ? (JSON.parse(last) as FaxPeerResult) : undefined, stderr });
      });
    });
  }

  static start(binary: string, options: FaxPeerOptions): FaxPeer {
    return new FaxPeer(spawn(binary, faxPeerArgs(options), { stdio: ['pipe', 'pipe', 'pipe'] }), options);
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

/** One T.30 frame as the other side received it, from a recording. */
export interface RecordedFrame {
  /** Simulated time of its receipt. */
  ms: number;
  from: 'caller' | 'answerer';
  /** spandsp's name of the FCF ("DIS", "DCS" …). */
  fcf: string;
  /** Address, control, FCF and FIF (no FCS). */
  hex: string;
}

export interface RecordingResult {
  caller: FaxPeerResult;
  answerer: FaxPeerResult;
  /** Length of the recording in 1/8000 s. */
  samples: number;
  /** Datagrams in a T.38 capture (0 for audio). */
  packets: number;
  /** spandsp's release ("20110122 075024"). */
  spandsp: string;
  frames: RecordedFrame[];
}

export interface RecordOptions extends FaxPeerT30Options {
  /** The document the caller sends. */
  send: string;
  /** Where the answerer writes what it received. */
  receive: string;
  /** Audio only: both sides' transmit level (spandsp's modems: -14 dBm0), scaling everything they send. */
  txLevelDbm0?: number;
  /** Audio only: white noise added to both directions, dBm0. */
  noiseDbm0?: number;
  seed?: number;
  /** T.38 only: UDPTL redundancy depth, 0..2 (default 1). */
  redundancy?: number;
}

/**
 * Records a whole call between two spandsp terminals back to back: `audio` into a stereo µ-law
 * WAV, `t38` into a pcap. Resolves with both sides' results (rejects when the process fails).
 */
export function record(binary: string, kind: 'audio' | 't38', out: string, o: RecordOptions): Promise<RecordingResult> {
  const a = [kind === 'audio' ? 'record-audio' : 'record-t38', out, '--send', o.send, '--receive', o.receive, ...t30Args(o)];
  if (o.txLevelDbm0 !== undefined) a.push('--tx-level', String(o.txLevelDbm0));
  if (o.noiseDbm0 !== undefined) a.push('--noise', String(o.noiseDbm0));
  if (o.seed !== undefined) a.push('--seed', String(o.seed));
  if (o.redundancy !== undefined) a.push('--redundancy', String(o.redundancy));
  return new Promise((resolve, reject) => {
    const child = spawn(binary, a, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-8192)));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (code === 2 || !line) reject(new Error(`fax-peer ${a.join(' ')} failed (${code}): ${stderr.trim()}`));
      else resolve(JSON.parse(line) as RecordingResult);
    });
  });
}
