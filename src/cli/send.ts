// `faxstack send FILE... --via VIA`: render the documents as the service would and send them as
// one fax call over T.38 (udptl://) or an audio line (pcm://, rtp://) (docs/cli.md command-line
// contract; `--json` result line). `--no-header` sends fax-ready TIFF pages as they are.
import { FaxError } from '../shared/errors.js';
import { closeRenderPool, composeFax, faxPagesFromBitmaps, faxPagesFromTiff, type FaxPages, readTiffDirectories } from '../documents/index.js';
import { SipLine, sendDirect, sendOverLine, type FaxCallEvent, type FaxCallResult } from '../engine/index.js';
import { loadDocuments } from './documents.js';
import { args, str, UsageError } from './args.js';
import { openLine, parsePacing, parseVia, viaText } from './via.js';
import { progressLine } from './progress.js';

const QUALITIES = ['Low', 'Standard', 'HD'] as const;

export async function sendCommand(argv: string[]): Promise<number> {
  const started = Date.now();
  const { values, positionals } = args(
    argv,
    {
      via: { type: 'string' },
      quality: { type: 'string', default: 'Standard' },
      pages: { type: 'string', multiple: true },
      ecm: { type: 'string', default: 'on' },
      'max-rate': { type: 'string', default: '14400' },
      ident: { type: 'string', default: '' },
      timeout: { type: 'string', default: '600' },
      pacing: { type: 'string', default: 'realtime' },
      'no-header': { type: 'boolean', default: false },
      media: { type: 'string', default: 't38-or-audio' },
      'sip-user': { type: 'string' },
      'sip-password': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    true,
  );
  if (positionals.length === 0) throw new UsageError('faxstack send: name at least one file');
  const via = parseVia(str(values.via), '--via');
  const pacing = parsePacing(str(values.pacing), via);
  const quality = QUALITIES.find((q) => q.toLowerCase() === str(values.quality).toLowerCase());
  if (!quality) throw new UsageError(`--quality must be Low, Standard or HD`);
  const ecm = onOff(str(values.ecm), '--ecm');
  const maxRate = Number(str(values['max-rate']));
  if (![2400, 4800, 7200, 9600, 12000, 14400].includes(maxRate)) throw new UsageError('--max-rate must be 14400, 12000, 9600, 7200, 4800 or 2400');
  const timeoutS = Number(str(values.timeout));
  if (!(timeoutS > 0)) throw new UsageError('--timeout must be a number of seconds');
  const ident = str(values.ident);
  const json = values.json === true;
  const pagesArg = (values as { pages?: string[] }).pages ?? [];
  const progress = progressLine(json);
  const media = str(values.media);
  if (media !== 't38' && media !== 'audio' && media !== 't38-or-audio') throw new UsageError('--media must be t38, audio or t38-or-audio');
  const sipUser = str(values['sip-user']);
  const sipPassword = str(values['sip-password']);
  if (via.kind !== 'sip' && (sipUser || sipPassword || media !== 't38-or-audio')) throw new UsageError('--media, --sip-user and --sip-password are for sip: calls (--via sip:NUMBER@HOST)');
  if (Boolean(sipUser) !== Boolean(sipPassword)) throw new UsageError('--sip-user and --sip-password go together');

  let pagesTotal = 0;
  const failed = (code: number, message: string): FaxCallResult => ({
    success: false, code, message, pages: 0, pagesTotal, bitRate: null, ecm: null, compression: null, resolution: null, remoteIdent: null, durationMs: Date.now() - started,
  });
  try {
    const documents = await loadDocuments(positionals, pagesArg);
    let pages: FaxPages;
    const ready = values['no-header'] === true && pagesArg.length === 0 ? faxReadyTiff(documents) : null;
    if (ready) {
      pages = ready;
    } else {
      progress.say(`rendering ${documents.length} ${documents.length === 1 ? 'document' : 'documents'}…`);
      const fax = await composeFax({ documents, quality, ...(values['no-header'] ? {} : { header: { senderNumber: ident || undefined, dateTime: new Date() } }) });
      await closeRenderPool();
      pages = faxPagesFromBitmaps(fax.pages, fax.xDpi, fax.yDpi);
    }
    pagesTotal = pages.count;
    progress.say(`${pagesTotal} ${pagesTotal === 1 ? 'page' : 'pages'} ${ready ? 'ready (sent as they are)' : 'rendered'}; calling ${viaText(via)}`);
    const abort = new AbortController();
    let phase: FaxCallEvent | null = null;
    const timer = setTimeout(() => abort.abort(phase ? `the --timeout of ${timeoutS} s passed during the call` : `nothing answered within ${timeoutS} s (--timeout ${timeoutS})`), timeoutS * 1000);
    const onSigint = () => abort.abort('interrupted (Ctrl-C)');
    process.once('SIGINT', onSigint);
    const options = {
      ident, ecm, maxBitRate: maxRate, signal: abort.signal, startedMs: started,
      onEvent: (e: FaxCallEvent) => {
        if (e.type === 'negotiated') phase = e;
        progress.event(e);
      },
    };
    let line: FaxCallResult;
    if (via.kind === 'sip') {
      // A real SIP call, as the daemon places it through a gateway (engine/sip-line.ts).
      const sip = new SipLine({
        name: 'send', address: `${via.host.includes(':') ? `[${via.host}]` : via.host}:${via.port}`, transport: via.transport, media, ecm, maxBitRate: maxRate,
        ...(sipUser ? { username: sipUser, password: sipPassword } : {}),
        ...(ident ? { callerId: { number: ident } } : {}),
      });
      try {
        line = await sendOverLine(sip, via.number, pages, options);
      } finally {
        await sip.close();
      }
    } else {
      line = await sendDirect(await openLine(via, 'caller', pacing), pages, options);
    }
    clearTimeout(timer);
    process.off('SIGINT', onSigint);
    progress.done();
    process.stdout.write(json ? `${JSON.stringify(line)}\n` : `${line.message}: ${line.pages} of ${pagesTotal} pages${line.bitRate ? ` at ${line.bitRate} bit/s${line.ecm ? ', ECM' : ''}` : ''}\n`);
    return line.success ? 0 : 1;
  } catch (err) {
    progress.done();
    if (!(err instanceof FaxError)) throw err;
    const line = failed(err.code, err.message);
    process.stdout.write(json ? `${JSON.stringify(line)}\n` : `faxstack send: ${err.message}\n`);
    return err.kind === 'transmission' || err.kind === 'internal' ? 1 : 2;
  }
}

/**
 * The pages of fax-ready TIFF files (T.4/T.6 coded, a fax width and resolution), every file one,
 * or null when any file needs rendering.
 */
function faxReadyTiff(documents: readonly { bytes: Buffer; format: string }[]): FaxPages | null {
  if (documents.length !== 1 || documents[0]!.format !== 'tiff') return null;
  const bytes = documents[0]!.bytes;
  try {
    const dirs = readTiffDirectories(bytes);
    const ok = dirs.length > 0 && dirs.every((d) =>
      (d.compression === 'mh' || d.compression === 'mr' || d.compression === 'mmr')
      && ((d.width === 1728 && d.xDpi === 204) || (d.width === 3456 && d.xDpi === 408))
      && (d.yDpi === 98 || d.yDpi === 196 || d.yDpi === 391)
      && d.xDpi === dirs[0]!.xDpi && d.yDpi === dirs[0]!.yDpi);
    return ok ? faxPagesFromTiff(bytes) : null;
  } catch {
    return null;
  }
}

export function onOff(v: string, flag: string): boolean {
  if (v === 'on') return true;
  if (v === 'off') return false;
  throw new UsageError(`${flag} must be on or off`);
}
