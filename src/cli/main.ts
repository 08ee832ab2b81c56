// The `faxstack` command (docs/cli.md command-line contract). Exit status: 0 success,
// 1 failure, 2 usage or input error.
import type { EarlyPdfiumCompile } from '../documents/index.js';
import { VERSION } from '../shared/version.js';
// For bin/faxstack.js: where an installed package's first run kept PDFium's rewritten wasm, compiled
// from there early as the build's is from dist/.
export { firstRunCacheDir } from '../shared/cache-dir.js';
// For bin/faxstack.js: PDFium's wasm read and compiled while the command's modules load.
export { compilePdfiumEarly } from './early-pdfium.js';
import { setCommand } from './args.js';

const USAGE = `usage: faxstack <command> [options]

commands:
  serve [--port 8080] [--host 127.0.0.1] [--data ./data] [--store sqlite:PATH|postgres://...]
        the API, job dispatcher and webhook worker in one process on an embedded SQLite store
        (or a PostgreSQL database shared with other nodes) and the built-in virtual fax line;
        [--config FILE] [--gateways FILE] [--grace S] [--log-level L] as for daemon
  daemon [--config FILE] [--data ./data] [--store sqlite:PATH|postgres://...] [--gateways FILE] [--grace 30]
        [--allow-private-webhooks] [--log-level L]
        settings come from FILE (JSON), then FAXSTACK_* variables, then flags (docs/configuration.md)
        the transmission daemon: job dispatcher and webhook worker without the HTTP API; live
        keys send through the gateways of FILE (JSON), calls in progress get S seconds on stop
  render FILE... --out OUT.tif [--quality Low|Standard|HD] [--pages 1-3,5] [--compression mh|mr|mmr]
        [--subject S --from-name N --to-name N --message M] [--preview-dir DIR] [--json]
        turn documents into the fax pages a machine would print (TIFF class F)
  send FILE... --via VIA [--quality Low|Standard|HD] [--pages 1-3] [--ecm on|off]
        [--max-rate 14400|12000|9600|7200|4800|2400] [--ident TSI] [--timeout S (600)]
        [--pacing realtime|lockstep] [--no-header] [--media t38|audio|t38-or-audio]
        [--sip-user U --sip-password P] [--json]
        send a fax; VIA is udptl://HOST:PORT (T.38), pcm://HOST:PORT (raw 16-bit audio, 160
        samples per datagram), rtp://HOST:PORT?codec=pcmu|pcma (G.711 over RTP) or
        sip:NUMBER@HOST[:PORT][;transport=tcp] (a SIP call, T.38 or G.711 as --media); --no-header
        adds no header line, and sends a fax-ready TIFF (faxstack render's output) as it is
  receive --listen VIA --out DIR [--ecm on|off] [--ident CSI] [--pacing realtime|lockstep] [--json]
        [--media t38|audio|t38-or-audio] [--allow-from IP,...]
        answer one fax call and write its pages as TIFF class F; --pacing lockstep (audio lines)
        answers each received frame with one frame, far faster than real time; VIA may also be
        sip:HOST[:PORT][;transport=tcp]: one SIP call from --allow-from (default: HOST itself)
  decode CAPTURE [--format wav|raw|pcap|auto] [--pages-out OUT.tif | --out DIR] [--json] [--channels 1|2] [--law ulaw|alaw|s16le]
        [--caller HOST:PORT]
        analyze a recorded fax call (WAV/raw audio or T.38 pcap): T.30 frames, mode, training, pages
  accounts create NAME [--data ./data] [--store URL] [--balance DOLLARS] [--fax-number E164] [--webhook-url URL] [--json]
        create an account and print its live and test keys (shown once)
  webhook-listen [--port 9000] [--host 127.0.0.1] [--secret SECRET]
        a local receiver that prints each webhook and checks its X-Service-Signature
`;

/** A command's own part of USAGE: its lines, from its name to the next command. */
function commandUsage(command: string): string | null {
  const lines = USAGE.split('\n');
  const first = lines.findIndex((l) => l.startsWith(`  ${command} `) || l === `  ${command}`);
  if (first < 0) return null;
  let end = first + 1;
  while (end < lines.length && lines[end] !== '' && !/^  [a-z]/.test(lines[end]!)) end++;
  const body = lines.slice(first, end).map((l) => l.replace(/^ {2}/, '')).join('\n');
  return `usage: faxstack ${body}\n`;
}

/** What bin/faxstack.js started before loading the command: PDFium's wasm compiling, for the commands that render. */
export interface MainOptions {
  pdfium?: EarlyPdfiumCompile;
}

type Command = (argv: string[]) => Promise<number | void>;

/** Each command's module, loaded only when it runs: `--version` and `--help` start at once. */
const COMMANDS: Record<string, (options: MainOptions) => Promise<Command>> = {
  serve: async () => (await import('./serve.js')).serveCommand,
  daemon: async () => (await import('./daemon.js')).daemonCommand,
  accounts: async () => (await import('./accounts.js')).accountsCommand,
  render: async ({ pdfium }) => {
    const { renderCommand } = await import('./render.js');
    return (argv) => renderCommand(argv, { stdout: process.stdout, stderr: process.stderr, pdfium });
  },
  send: async () => (await import('./send.js')).sendCommand,
  receive: async () => (await import('./receive.js')).receiveCommand,
  decode: async () => (await import('./decode.js')).decodeCommand,
  'webhook-listen': async () => (await import('./webhook-listen.js')).webhookListenCommand,
};

/**
 * Commands done when they return — their files written and closed, their workers stopped — after
 * which the process may exit at once: Node's own exit frees the whole heap page by page and waits
 * for V8's background compilation (50–200 ms after a render; docs/benchmarks.md, render-cli).
 */
const DONE_WHEN_RETURNED: ReadonlySet<string> = new Set(['render']);

/** Whether bin/faxstack.js may end the process as soon as `main` has returned for this command line. */
export function exitsWhenDone(argv: string[]): boolean {
  return DONE_WHEN_RETURNED.has(argv[0] ?? '');
}

/** Commands that draw with PDFium: bin/faxstack.js starts compiling its wasm before their modules load. */
const COMPILES_PDFIUM: ReadonlySet<string> = new Set(['render']);

/** Whether bin/faxstack.js should start compiling PDFium's wasm for this command line (not for its --help). */
export function compilesPdfium(argv: string[]): boolean {
  return COMPILES_PDFIUM.has(argv[0] ?? '') && !asksHelp(argv.slice(1));
}

/** `faxstack send --help`: that command's usage (options after `--` are arguments, not flags). */
function asksHelp(rest: string[]): boolean {
  const flags = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  return flags.includes('--help') || flags.includes('-h');
}

export async function main(argv: string[], options: MainOptions = {}): Promise<number | void> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    const topic = command === 'help' ? rest[0] : undefined;
    const text = topic ? commandUsage(topic) : USAGE;
    process.stdout.write(text ?? USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    process.stdout.write(`faxstack ${VERSION}\n`);
    return 0;
  }
  const load = COMMANDS[command];
  if (!load) {
    process.stderr.write(`faxstack: unknown command "${command}"\n\n${USAGE}`);
    return 2;
  }
  if (asksHelp(rest)) {
    process.stdout.write(commandUsage(command) ?? USAGE);
    return 0;
  }
  setCommand(command === 'accounts' && rest[0] && !rest[0].startsWith('-') ? `accounts ${rest[0]}` : command);
  return (await load(options))(rest);
}

export { args, str, UsageError, type ParsedArgs } from './args.js';
