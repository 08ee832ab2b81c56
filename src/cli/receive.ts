// `faxstack receive --listen VIA --out DIR`: answer one fax call over T.38 (udptl://), an audio
// line (pcm://, rtp://) or SIP (sip:HOST:PORT, as the daemon answers a gateway's calls) and write
// the pages as TIFF class F (docs/cli.md command-line contract; `--json` result line).
import { mkdir, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { ERRORS } from '../shared/errors.js';
import { SipLine, receiveDirect, receivedResult, type DirectReceived, type FaxCallResult } from '../engine/index.js';
import { args, str, UsageError } from './args.js';
import { progressLine } from './progress.js';
import { onOff } from './send.js';
import { openLine, parsePacing, parseSipListen, parseVia, viaText, type SipListen } from './via.js';

export async function receiveCommand(argv: string[]): Promise<number> {
  const started = Date.now();
  const { values } = args(argv, {
    listen: { type: 'string' },
    out: { type: 'string' },
    ecm: { type: 'string', default: 'on' },
    ident: { type: 'string', default: '' },
    pacing: { type: 'string', default: 'realtime' },
    media: { type: 'string', default: 't38-or-audio' },
    'allow-from': { type: 'string' },
    json: { type: 'boolean', default: false },
  });
  const sip = parseSipListen(str(values.listen), '--listen');
  const via = sip ? null : parseVia(str(values.listen), '--listen');
  if (via?.kind === 'sip') throw new UsageError('--listen takes udptl://, pcm://, rtp:// or sip:HOST[:PORT] addresses');
  const pacing = via ? parsePacing(str(values.pacing), via) : 'realtime';
  const out = str(values.out);
  if (!out) throw new UsageError('--out DIR is required');
  const media = str(values.media);
  if (media !== 't38' && media !== 'audio' && media !== 't38-or-audio') throw new UsageError('--media must be t38, audio or t38-or-audio');
  if (!sip && (values['allow-from'] !== undefined || media !== 't38-or-audio')) throw new UsageError('--media and --allow-from are for --listen sip:');
  const json = values.json === true;
  const ident = str(values.ident);
  const ecm = onOff(str(values.ecm), '--ecm');
  await mkdir(out, { recursive: true });
  const progress = progressLine(json);
  const abort = new AbortController();
  const onSigint = () => abort.abort('interrupted (Ctrl-C)');
  process.once('SIGINT', onSigint);

  let fax: DirectReceived;
  if (sip) {
    fax = await answerSip(sip, { ident, ecm, media, allowFrom: str(values['allow-from']), json, signal: abort.signal, started });
  } else {
    const link = await openLine(via!, 'answerer', pacing);
    // The address to call goes to stderr even without a terminal: a script starting the sender needs it.
    if (!json) process.stderr.write(`waiting for a fax call on ${viaText(via!, link.localPort)}\n`);
    fax = await receiveDirect(link, { ident, ecm, signal: abort.signal, onEvent: (e) => progress.event(e) });
  }
  process.off('SIGINT', onSigint);
  progress.done();
  let file: string | null = null;
  if (fax.tiff) {
    file = join(out, `fax-${new Date().toISOString().replace(/[:.]/g, '-')}.tif`);
    await writeFile(file, fax.tiff.data);
  }
  const r = fax.result;
  const line = { ...r, durationMs: Date.now() - started, file };
  process.stdout.write(json ? `${JSON.stringify(line)}\n` : `${r.message}: ${r.pages} pages${file ? ` written to ${file}` : ''}\n`);
  return r.success ? 0 : 1;
}

/**
 * Answers the first SIP call on `listen` from an allowed address (`--allow-from`, default the
 * listening address itself: a loopback test or a gateway on this host), as the daemon answers a
 * gateway's inbound calls (engine/sip-line.ts), then stops listening.
 */
async function answerSip(
  listen: SipListen,
  o: { ident: string; ecm: boolean; media: 't38' | 'audio' | 't38-or-audio'; allowFrom: string; json: boolean; signal: AbortSignal; started: number },
): Promise<DirectReceived> {
  const allowFrom = o.allowFrom ? o.allowFrom.split(',').map((a) => a.trim()).filter(Boolean) : [listen.host];
  for (const a of allowFrom) if (!isIP(a)) throw new UsageError(`--allow-from takes IP addresses, got ${JSON.stringify(a)}`);
  if (allowFrom.some((a) => a === '0.0.0.0' || a === '::')) throw new UsageError('--listen on every address: name the gateway with --allow-from IP');
  let settle!: (r: DirectReceived) => void;
  const done = new Promise<DirectReceived>((resolve) => (settle = resolve));
  const failed = (code: number, message: string): DirectReceived => ({
    result: { success: false, code, message, pages: 0, pagesTotal: 0, bitRate: null, ecm: null, compression: null, resolution: null, remoteIdent: null, durationMs: Date.now() - o.started } satisfies FaxCallResult,
    tiff: null,
  });
  const wildcard = listen.host === '0.0.0.0' || listen.host === '::';
  const line = new SipLine({
    name: 'receive', address: `${allowFrom[0]!.includes(':') ? `[${allowFrom[0]}]` : allowFrom[0]}:5060`, transport: listen.transport, media: o.media,
    localPort: listen.port, ...(wildcard ? {} : { localAddress: listen.host }), ecm: o.ecm,
    inbound: {
      maxCalls: 1, allowFrom, ecm: o.ecm, ...(o.ident ? { ident: o.ident } : {}),
      onReceived: async (d) => settle({ result: receivedResult(d.fax, o.started), tiff: d.fax.tiff }),
      // A call answered but ended before T.30 (no media we take): that is the outcome.
      onCall: (s) => s.sipStatus !== 200 && s.sipStatus !== 403 && settle(failed(s.code ?? ERRORS.CALL_REJECTED.code, `Call refused (SIP ${s.sipStatus}): ${s.message}`)),
    },
  });
  const onAbort = () => settle(failed(ERRORS.CALL_DROPPED.code, `Stopped before a fax arrived: ${String(o.signal.reason)}`));
  o.signal.addEventListener('abort', onAbort, { once: true });
  try {
    await line.ready();
    if (!o.json) process.stderr.write(`waiting for a SIP fax call on sip:${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${await line.port()}${listen.transport === 'tcp' ? ';transport=tcp' : ''} (from ${allowFrom.join(', ')})\n`);
    return await done;
  } finally {
    o.signal.removeEventListener('abort', onAbort);
    await line.close();
  }
}
