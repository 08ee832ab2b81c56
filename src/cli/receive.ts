// `faxstack receive --listen VIA --out DIR`: answer one fax call over T.38 (udptl://) or an audio
// line (pcm://, rtp://) and write the pages as TIFF class F (DESIGN.md command-line contract;
// `--json` result line).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { receiveDirect } from '../engine/index.js';
import { args, str, UsageError } from './args.js';
import { progressLine } from './progress.js';
import { onOff } from './send.js';
import { openLine, parsePacing, parseVia, viaText } from './via.js';

export async function receiveCommand(argv: string[]): Promise<number> {
  const started = Date.now();
  const { values } = args(argv, {
    listen: { type: 'string' },
    out: { type: 'string' },
    ecm: { type: 'string', default: 'on' },
    ident: { type: 'string', default: '' },
    pacing: { type: 'string', default: 'realtime' },
    json: { type: 'boolean', default: false },
  });
  const via = parseVia(str(values.listen), '--listen');
  if (via.kind === 'sip') throw new UsageError('--listen takes udptl://, pcm:// or rtp:// addresses');
  const pacing = parsePacing(str(values.pacing), via);
  const out = str(values.out);
  if (!out) throw new UsageError('--out DIR is required');
  const json = values.json === true;
  await mkdir(out, { recursive: true });
  const link = await openLine(via, 'answerer', pacing);
  const progress = progressLine(json);
  // The address to call goes to stderr even without a terminal: a script starting the sender needs it.
  if (!json) process.stderr.write(`waiting for a fax call on ${viaText(via, link.localPort)}\n`);
  const abort = new AbortController();
  const onSigint = () => abort.abort('interrupted (Ctrl-C)');
  process.once('SIGINT', onSigint);
  const fax = await receiveDirect(link, { ident: str(values.ident), ecm: onOff(str(values.ecm), '--ecm'), signal: abort.signal, onEvent: (e) => progress.event(e) });
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
