// `faxstack receive --listen VIA --out DIR`: answer one fax call over T.38 (udptl://) or an audio
// line (pcm://, rtp://) and write the pages as TIFF class F (DESIGN.md command-line contract;
// `--json` result line).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { receiveOverFrontEnd } from '../engine/t30-call.js';
import { args, str, UsageError } from './args.js';
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
  const pacing = parsePacing(str(values.pacing), via);
  const out = str(values.out);
  if (!out) throw new UsageError('--out DIR is required');
  const json = values.json === true;
  await mkdir(out, { recursive: true });
  const link = await openLine(via, 'answerer', pacing);
  if (!json) process.stderr.write(`waiting for a fax call on ${viaText(via, link.localPort)}\n`);
  const fax = await receiveOverFrontEnd(link.frontEnd, link.clock, {
    ident: str(values.ident), ecm: onOff(str(values.ecm), '--ecm'),
    onPage: (p) => json || process.stderr.write(`page ${p.index + 1} received\n`),
  });
  await link.close();
  let file: string | null = null;
  if (fax.tiff) {
    file = join(out, `fax-${new Date().toISOString().replace(/[:.]/g, '-')}.tif`);
    await writeFile(file, fax.tiff.data);
  }
  const r = fax.result;
  const p = r.params;
  const line = { success: r.code === 0, code: r.code, message: r.message, pages: r.pages, pagesTotal: r.pages, bitRate: p?.modem.bitRate ?? null, ecm: p?.ecm ?? null, compression: p?.coding ?? null, resolution: p?.resolution ?? null, remoteIdent: r.remoteIdent ?? null, durationMs: Date.now() - started, file };
  process.stdout.write(json ? `${JSON.stringify(line)}\n` : `${r.message}: ${r.pages} pages${file ? ` written to ${file}` : ''}\n`);
  return r.code === 0 ? 0 : 1;
}
