// `faxstack send FILE... --via VIA`: render the documents as the service would and send them as
// one fax call over T.38 (udptl://) or an audio line (pcm://, rtp://) (DESIGN.md command-line
// contract; `--json` result line).
import { FaxError } from '../shared/errors.js';
import { closeRenderPool, composeFax } from '../documents/pipeline.js';
import { faxPagesFromBitmaps } from '../documents/fax-pages.js';
import { sendOverFrontEnd } from '../engine/t30-call.js';
import { loadDocuments } from './documents.js';
import { args, str, UsageError } from './args.js';
import { openLine, parsePacing, parseVia } from './via.js';

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

  let pagesTotal = 0;
  try {
    const fax = await composeFax({ documents: await loadDocuments(positionals, pagesArg), quality, header: { senderNumber: ident || undefined, dateTime: new Date() } });
    await closeRenderPool();
    pagesTotal = fax.pages.length;
    const pages = faxPagesFromBitmaps(fax.pages, fax.xDpi, fax.yDpi);
    const link = await openLine(via, 'caller', pacing);
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutS * 1000);
    process.once('SIGINT', () => abort.abort());
    const r = await sendOverFrontEnd(
      { jobId: 0, fromNumber: ident, toNumber: '', quality, totalPages: pages.count, firstPage: 1, ident, pages },
      { stage: () => {}, pageConfirmed: (p) => json || process.stderr.write(`page ${p} of ${pages.count} confirmed\n`) },
      abort.signal, link.frontEnd, link.clock, { ecm, maxBitRate: maxRate },
    );
    clearTimeout(timer);
    await link.close();
    const d = r.detail;
    const line = { success: r.code === 0, code: r.code, message: r.message, pages: r.lastConfirmedPage, pagesTotal, bitRate: d.bitRate ?? null, ecm: d.ecm ?? null, compression: d.compression ?? null, resolution: d.resolution ?? null, remoteIdent: d.remoteIdent ?? null, durationMs: Date.now() - started };
    process.stdout.write(json ? `${JSON.stringify(line)}\n` : `${r.message}: ${line.pages} of ${pagesTotal} pages${d.bitRate ? ` at ${d.bitRate} bit/s${d.ecm ? ', ECM' : ''}` : ''}\n`);
    return r.code === 0 ? 0 : 1;
  } catch (err) {
    if (!(err instanceof FaxError)) throw err;
    const line = { success: false, code: err.code, message: err.message, pages: 0, pagesTotal, bitRate: null, ecm: null, compression: null, resolution: null, remoteIdent: null, durationMs: Date.now() - started };
    process.stdout.write(json ? `${JSON.stringify(line)}\n` : `faxstack send: ${err.message}\n`);
    return err.kind === 'transmission' || err.kind === 'internal' ? 1 : 2;
  }
}

export function onOff(v: string, flag: string): boolean {
  if (v === 'on') return true;
  if (v === 'off') return false;
  throw new UsageError(`${flag} must be on or off`);
}
