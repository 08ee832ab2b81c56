// `faxstack render FILE... --out OUT.tif`: the document pipeline from the command line — every
// file rendered as the service would send it (cover page, header line, page selections) and
// written as one TIFF class F file, optionally with a PNG preview of each page.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { adoptPdfiumCompile, closeDrawHelper, closeRenderPool, configureRenderPool, type EarlyPdfiumCompile, helpersPossible, oneShotDrawer, oneShotHelpers, renderFaxTiffParts, previewPng, type RenderQuality, startDrawHelper, startRenderPool } from '../documents/index.js';
import { fsAsync, monotonicMs } from '../shared/builtins.js';
import { FaxError } from '../shared/errors.js';
import { args, str, UsageError } from './args.js';
import { busyThreads } from './busy.js';
import { loadDocuments } from './documents.js';
import { RenderOut } from './render-out.js';

const RENDER_USAGE = `usage: faxstack render FILE... --out OUT.tif [--quality Low|Standard|HD] [--pages 1-3,5]...
                       [--compression mh|mr|mmr] [--subject S] [--from-name N] [--to-name N] [--message M]
                       [--from-number NUM] [--to-number NUM] [--no-header] [--preview-dir DIR] [--json]
  --pages        once: applies to every file; once per file: applies to the files in order
  cover page     when any of --subject --from-name --to-name --message is given
  header line    on every page (date, --from-name, --from-number, "Page n of N") unless --no-header
`;

const QUALITIES: readonly RenderQuality[] = ['Low', 'Standard', 'HD'];
const COMPRESSIONS = ['mh', 'mr', 'mmr'] as const;

interface RenderIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  /** The time shown in the header and on the cover (default now). */
  now?: () => Date;
  /** PDFium's wasm compiling since the process started (bin/faxstack.js), taken when it is the build's. */
  pdfium?: EarlyPdfiumCompile;
}

export async function renderCommand(argv: string[], io: RenderIo = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const started = monotonicMs();
  const { values, positionals } = args(
    argv,
    {
      out: { type: 'string', short: 'o' },
      quality: { type: 'string', default: 'Standard' },
      pages: { type: 'string', multiple: true },
      compression: { type: 'string', default: 'mh' },
      subject: { type: 'string' },
      'from-name': { type: 'string' },
      'to-name': { type: 'string' },
      message: { type: 'string' },
      'from-number': { type: 'string' },
      'to-number': { type: 'string' },
      'no-header': { type: 'boolean', default: false },
      'preview-dir': { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    true,
  );
  const pagesArg = (values as unknown as { pages?: string[] }).pages ?? [];
  if (positionals.length === 0) throw new UsageError(`no input files\n${RENDER_USAGE}`);
  const out = str(values.out);
  if (!out) throw new UsageError(`--out OUT.tif is required\n${RENDER_USAGE}`);
  const quality = QUALITIES.find((q) => q.toLowerCase() === str(values.quality).toLowerCase());
  if (!quality) throw new UsageError(`--quality must be Low, Standard or HD, got ${JSON.stringify(values.quality)}`);
  const compression = COMPRESSIONS.find((c) => c === str(values.compression).toLowerCase());
  if (!compression) throw new UsageError(`--compression must be mh, mr or mmr, got ${JSON.stringify(values.compression)}`);
  const json = values.json === true;

  const fail = (err: FaxError): number => {
    if (json) io.stdout.write(`${JSON.stringify(result(false, err.code, err.message, 0, compression, quality, started))}\n`);
    else io.stderr.write(`faxstack render: ${err.message}\n`);
    return err.kind === 'invalid' || err.kind === 'too_large' ? 2 : 1;
  };

  // Held until the command returns: with nothing else to wait for (PDFium compiling or being
  // instantiated, promises V8 settles alone), Node's loop would run dry and wait for every V8
  // background job in flight to finish, wasm tier-up included (NodePlatform::DrainTasks), before
  // it runs the next callback — 60–380 ms of a one-page render under load (docs/benchmarks.md).
  const loopAlive = setInterval(() => {}, 2 ** 30);
  let drawerStopped: Promise<void> | undefined;
  let file: RenderOut | undefined;
  try {
    adoptPdfiumCompile(io.pdfium);
    startRenderPool(0); // PDFium read and compiled (other threads) while this one reads and counts the files
    const documents = await loadDocuments(positionals, pagesArg);
    // This thread renders; helper workers, when the pages pay for them, boot while PDFium compiles
    // and take pages from the back of each PDF once they are up (pipeline.ts, renderShared).
    const pages = documents.reduce((n, d) => n + d.pages.length, 0);
    const cores = availableParallelism();
    // The machine's load (/proc, 5–10 ms of this thread) read only when the pages would take a helper on an idle machine.
    const busy = helpersPossible(pages, cores, quality) ? busyThreads() : 0;
    const helpers = oneShotHelpers(pages, cores, busy, quality);
    if (helpers > 0) await configureRenderPool({ threads: helpers });
    startRenderPool(helpers);
    // Fewer pages: a worker that only draws, beside this thread (draw-beside.ts).
    const drawer = oneShotDrawer(pages, cores, busy, quality);
    if (drawer) startDrawHelper();
    const threads = { isolate: false, helpers, drawer };
    const now = io.now?.() ?? new Date();
    const coverFields = {
      subject: str(values.subject) || undefined,
      fromName: str(values['from-name']) || undefined,
      toName: str(values['to-name']) || undefined,
      message: str(values.message) || undefined,
    };
    const wantCover = Object.values(coverFields).some((v) => v !== undefined);
    const previewDir = str(values['preview-dir']);
    file = new RenderOut(out);
    const fax = await renderFaxTiffParts({
      write: (pieces) => file!.write(pieces),
      documents,
      ...threads,
      compression,
      keepPages: previewDir !== '',
      quality,
      cover: wantCover
        ? { ...coverFields, senderNumber: str(values['from-number']) || undefined, toNumber: str(values['to-number']) || undefined, date: now }
        : undefined,
      header: values['no-header'] ? undefined : { senderName: coverFields.fromName, senderNumber: str(values['from-number']) || undefined, dateTime: now },
    });
    // Every page is coded: the draw worker stops (10–15 ms) while the file is written, not after it.
    // Not the render pool: a helper that took no page may still be finishing its task (render-threads.ts).
    drawerStopped = closeDrawHelper();
    drawerStopped.catch(() => undefined); // awaited below
    await file.finish();
    file = undefined;
    if (fax.pages) {
      await fsAsync.mkdir(previewDir, { recursive: true });
      const digits = Math.max(3, String(fax.count).length);
      for (const [i, page] of fax.pages.entries()) {
        await fsAsync.writeFile(join(previewDir, `page-${String(i + 1).padStart(digits, '0')}.png`), await previewPng(page, { xDpi: fax.xDpi, yDpi: fax.yDpi }));
      }
    }
    const message = `${fax.count} ${fax.count === 1 ? 'page' : 'pages'} written to ${out} (${fax.bytes} bytes)`;
    if (json) {
      io.stdout.write(`${JSON.stringify({ ...result(true, 0, message, fax.count, compression, quality, started), out, bytes: fax.bytes, modes: fax.info.map((p) => p.mode) })}\n`);
    } else {
      io.stdout.write(`${message}: ${fax.xDpi}×${fax.yDpi} dpi, ${fax.width} pixels per line, ${compression.toUpperCase()}\n`);
    }
    return 0;
  } catch (err) {
    if (err instanceof FaxError) return fail(err);
    throw err;
  } finally {
    clearInterval(loopAlive);
    await file?.abandon(); // the render failed: no partial file left
    await Promise.all([drawerStopped, closeRenderPool()]);
  }
}

function result(success: boolean, code: number, message: string, pages: number, compression: string, quality: RenderQuality, started: number): Record<string, unknown> {
  const res = quality === 'Low' ? '204x98' : quality === 'Standard' ? '204x196' : '408x391';
  return {
    success,
    code,
    message,
    pages,
    pagesTotal: pages,
    bitRate: null,
    ecm: null,
    compression: compression.toUpperCase(),
    resolution: res,
    remoteIdent: null,
    durationMs: Math.round(monotonicMs() - started),
  };
}
