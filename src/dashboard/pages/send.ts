// Dashboard: send a fax from the browser. The form uploads files (multipart, uploads.ts); they
// are checked by the API's own fax-send validation (parseSendRequest: same limits, same
// errors), rendered by the dispatcher's composition (composeJobFax: cover page, pages, header
// line) and shown as PNGs; confirming creates the job(s) through FaxService like the API does.
import { FaxError } from '../../shared/errors.js';
import { parseSendRequest, SEND_AT_SKEW_MS } from '../../api/index.js';
import { composeJobFax, templateFor, type SendInput } from '../../jobs/index.js';
import { countPages, MAX_FAX_PAGES, previewPng, selectPages, sniffFormat, type DocumentFormat, type FaxDocument } from '../../documents/index.js';
import type { FaxQuality, KeyMode } from '../../store/index.js';
import { body, caller, type Dashboard, type SignedIn } from '../kit.js';
import { PreviewStore, PREVIEW_LIMITS, type Preview } from '../previews.js';
import { DEFAULT_UPLOAD_LIMITS, uploads, type Upload } from '../uploads.js';
import { EMPTY_SEND, previewPage, sendForm, type KeptFiles, type SendChoices, type SendValues } from '../views-send.js';
import { localToIso, timezoneOffset } from '../local-time.js';

/** Pages rendered for a preview (the cover page counts); the rest of the fax is counted, not drawn. */
const PREVIEW_PAGES = 20;
/** Preview pages are drawn at most this wide (HD pages are twice as wide as the others). */
const PREVIEW_WIDTH = 1728;

const MAX_MB = Math.floor(DEFAULT_UPLOAD_LIMITS.maxBytes / (1024 * 1024));

export function registerSendPages(d: Dashboard): void {
  const previews = new PreviewStore(d.o.clock);
  /** Accounts with a preview being rendered: one at a time each (rendering is the costly part). */
  const rendering = new Set<number>();

  const fromNumbers = async (c: SignedIn) => [c.account.faxNumber, ...(await d.o.store.users.callerIds(c.account.id)).map((x) => x.number)];
  const choices = async (c: SignedIn): Promise<SendChoices> => {
    const [numbers, templates, smartDocuments] = await Promise.all([
      fromNumbers(c), d.o.service.templates.list(caller(c.account), 'template'), d.o.service.templates.list(caller(c.account), 'smartDocument'),
    ]);
    return { fromNumbers: numbers, templates, smartDocuments };
  };
  const form = async (c: SignedIn, status: number, v: SendValues, error: string | null = null, kept: KeptFiles | null = null) =>
    d.page(c, status, 'Send a fax', 'send', sendForm(c.csrf, kept ? { ...v, draft: kept.id } : { ...v, draft: '' }, MAX_MB, await choices(c), kept), { error });

  d.route('GET', '/dashboard/send', async (c) => form(c, 200, EMPTY_SEND));

  d.uploads((route) => {
    route('POST', '/dashboard/send/preview', async (c) => {
      const v = values(body(c.req));
      // The files of this request, or else those kept from the last try (the form carries their id).
      let files: Upload[] = [];
      let kept: KeptFiles | null = null;
      try {
        files = uploads(c.req, 'files');
      } catch (err) {
        if (!(err instanceof FaxError)) throw err;
        return form(c, 413, v, err.message, keptFiles(c, v.draft));
      }
      if (files.length === 0 && v.draft) {
        const draft = previews.draft(c.account.id, v.draft);
        if (draft) ((files = draft.files), (kept = { id: draft.id, names: draft.files.map((f) => f.fileName) }));
      }
      /** The files back to the form with the error: kept (again) so they need not be chosen again. */
      const keep = (): KeptFiles | null => {
        if (kept || files.length === 0) return kept;
        try {
          const draft = previews.addDraft(c.account.id, files);
          return { id: draft.id, names: files.map((f) => f.fileName) };
        } catch (err) {
          if (err instanceof FaxError) return null; // the server is full: the user chooses them again
          throw err;
        }
      };
      if (rendering.has(c.account.id)) return form(c, 429, v, 'A preview is being prepared for this account already: wait for it, then try again.', keep());
      rendering.add(c.account.id);
      try {
        const p = await makePreview(c, v, files);
        if (kept) previews.dropDraft(c.account.id, kept.id);
        return d.redirect(c, `/dashboard/send/preview/${p.id}`);
      } catch (err) {
        if (!(err instanceof FaxError)) throw err;
        const status = err.kind === 'too_large' ? 413 : err.kind === 'rate' ? 429 : err.kind === 'not_found' ? 404 : 400;
        return form(c, status, v, err.message, keep());
      } finally {
        rendering.delete(c.account.id);
      }
    });
  });

  const keptFiles = (c: SignedIn, id: string): KeptFiles | null => {
    const draft = id ? previews.draft(c.account.id, id) : null;
    return draft ? { id: draft.id, names: draft.files.map((f) => f.fileName) } : null;
  };

  async function makePreview(c: SignedIn, v: SendValues, files: Upload[]): Promise<Preview> {
    const now = d.o.clock.now();
    // The API's validation, fed the uploads as the API's inline attachments.
    const req = parseSendRequest({
      faxNumber: v.faxNumber, callerId: v.callerId, templateId: v.templateId, smartDocumentId: v.smartDocumentId, faxQuality: v.quality, subject: v.subject, from_name: v.fromName, to_name: v.toName, message: v.message,
      send_at: localToIso(v.sendAt, timezoneOffset(v.tz)),
      faxData: files.length ? files.map((f) => ({ fileName: f.fileName, fileData: f.data.toString('base64') })) : undefined,
    }, { nowMs: now });
    // The rule FaxService applies at confirm, checked before rendering.
    if (req.callerId !== null && !(await fromNumbers(c)).includes(req.callerId)) {
      throw new FaxError('INVALID_PARAMETER', `callerId ${req.callerId} is neither the account's fax number nor one of its caller IDs`, { field: 'callerId' });
    }
    const input: SendInput = { ...req, files: req.files.map((f) => ({ fileName: f.fileName, fileUrl: null, data: f.data, pages: null })) };
    // The template is the cover page; the smart document follows the files (docs/api.md decision 15).
    const library = d.o.service.templates;
    const template = req.templateId === null ? null : await library.get(caller(c.account), req.templateId, 'template', 'templateId');
    const smart = req.smartDocumentId === null ? null : await library.get(caller(c.account), req.smartDocumentId, 'smartDocument', 'smartDocumentId');
    const coverTemplate = template ? await templateFor(d.o.store, { accountId: c.account.id }, template.id) : undefined;

    // Page counts as FaxService counts them; only the first PREVIEW_PAGES are drawn.
    let total = input.cover || template ? 1 : 0;
    let room = PREVIEW_PAGES - total;
    const documents: FaxDocument[] = [];
    const counts = input.files.map((f, i) => {
      const field = `faxData[${i}]`;
      const format = sniffFormat(f.data!);
      if (!format) throw new FaxError('INVALID_FILE_FORMAT', `${f.fileName} is not a PDF, TIFF, image or text document`, { field });
      const count = named(f.fileName, () => countPages(f.data!, format));
      total += count;
      const pages = selectPages(null, count, field).slice(0, Math.max(0, room));
      room -= pages.length;
      if (pages.length) documents.push({ bytes: f.data!, format, pages });
      return count;
    });
    if (smart) {
      const pages = selectPages(null, smart.pageCount, 'smartDocumentId').slice(0, Math.max(0, room));
      total += smart.pageCount;
      if (pages.length) documents.push({ bytes: await library.bytes(caller(c.account), smart), format: smart.format as DocumentFormat, pages });
    }
    if (total > MAX_FAX_PAGES) throw new FaxError('INVALID_PARAMETER', `the fax has ${total} pages; the limit is ${MAX_FAX_PAGES}`, { field: 'faxData' });

    const look = { quality: input.quality, cover: input.cover, fromNumber: input.callerId ?? c.account.faxNumber, toNumber: input.numbers[0]! };
    const names = input.files.map((f) => f.fileName).join(', ');
    // A browser that gave up (closed the tab, navigated away) stops the rendering too.
    const gone = new AbortController();
    const onClose = () => void (c.reply.raw.writableFinished || gone.abort());
    c.reply.raw.once('close', onClose);
    const fax = await namedAsync(names, composeJobFax(look, documents, { nowMs: now, maxPages: MAX_FAX_PAGES, signal: gone.signal, ...(coverTemplate ? { coverTemplate } : {}) })).finally(() => c.reply.raw.off('close', onClose));
    const shown = fax.pages.slice(0, PREVIEW_PAGES);
    // sharp encodes on libuv's thread pool; 4 pages at a time (an HD page is 16 MB as 8-bit gray).
    const pngs: Buffer[] = [];
    for (let i = 0; i < shown.length; i += 4) {
      pngs.push(...(await Promise.all(shown.slice(i, i + 4).map((page) => previewPng(page, { xDpi: fax.xDpi, yDpi: fax.yDpi, ...(fax.width > PREVIEW_WIDTH ? { width: PREVIEW_WIDTH } : {}) })))));
    }
    return previews.add({
      accountId: c.account.id, mode: v.mode, input, pngs, totalPages: Math.max(total, fax.pages.length),
      files: input.files.map((f, i) => ({ fileName: f.fileName, pages: counts[i]! })), template: template?.name ?? null, smartDocument: smart?.name ?? null,
    });
  }

  d.route('GET', '/dashboard/send/preview/:id', async (c) => {
    let p: Preview;
    try {
      p = previews.get(c.account.id, previewId(c));
    } catch (err) {
      if (err instanceof FaxError) return d.problem(c, 404, err.message, '/dashboard/send');
      throw err;
    }
    return d.page(c, 200, 'Preview', 'send', previewPage({
      id: p.id, numbers: p.input.numbers, fromNumber: p.input.callerId ?? c.account.faxNumber, quality: p.input.quality, mode: p.mode,
      sendAtMs: p.input.sendAtMs, cover: p.input.cover, files: p.files, template: p.template, smartDocument: p.smartDocument, shownPages: p.pngs.length, totalPages: p.totalPages,
      expiresAtMs: p.createdAtMs + PREVIEW_LIMITS.ttlMs,
    }, c.csrf));
  });

  d.route('GET', '/dashboard/send/preview/:id/pages/:page', async (c) => {
    const p = previews.get(c.account.id, previewId(c));
    const m = /^(\d{1,4})\.png$/.exec((c.req.params as Record<string, string>).page ?? '');
    const png = m ? p.pngs[Number(m[1]) - 1] : undefined;
    if (!png) throw new FaxError('NOT_FOUND', 'no such page in this preview');
    c.reply.header('Cache-Control', 'private, max-age=900');
    return d.send(c, 200, png, 'image/png');
  });

  d.route('POST', '/dashboard/send/confirm', async (c) => {
    const id = body(c.req).preview;
    if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{22}$/.test(id)) throw new FaxError('NOT_FOUND', 'this preview expired or does not exist: upload the files again');
    const p = previews.get(c.account.id, id);
    if (p.input.sendAtMs !== null && p.input.sendAtMs < d.o.clock.now() - SEND_AT_SKEW_MS) {
      throw new FaxError('INVALID_PARAMETER', 'the scheduled time passed while the preview was open: choose a later time', { field: 'send_at' });
    }
    // The preview id as Idempotency-Key: a double submit creates the jobs once.
    const r = await d.o.service.send({ accountId: c.account.id, mode: p.mode }, p.input, { key: `dashboard-preview:${p.id}`, requestHash: p.id });
    previews.take(c.account.id, p.id);
    if (r.jobIds.length === 1) return d.redirect(c, `/dashboard/faxes/${r.jobIds[0]}?done=${r.scheduled ? 'scheduled' : 'sent'}`);
    return d.redirect(c, '/dashboard/faxes?done=sent-many');
  });
}

function previewId(c: SignedIn): string {
  const id = (c.req.params as Record<string, string>).id ?? '';
  if (!/^[A-Za-z0-9_-]{22}$/.test(id)) throw new FaxError('NOT_FOUND', 'this preview expired or does not exist: upload the files again');
  return id;
}

/** The form's fields as text (absent → ''); quality and line fall back to their defaults. */
function values(b: Record<string, unknown>): SendValues {
  const s = (k: string) => (typeof b[k] === 'string' ? (b[k] as string) : '');
  const quality = (['Low', 'Standard', 'HD'] as const).find((q) => q === s('faxQuality')) ?? ('Standard' satisfies FaxQuality);
  const mode: KeyMode = s('mode') === 'live' ? 'live' : 'test';
  return { faxNumber: s('faxNumber'), callerId: s('callerId'), templateId: s('templateId'), smartDocumentId: s('smartDocumentId'), quality, mode, subject: s('subject'), fromName: s('from_name'), toName: s('to_name'), message: s('message'), sendAt: s('send_at'), tz: timezoneOffset(s('tz')).text, draft: /^[A-Za-z0-9_-]{22}$/.test(s('draft')) ? s('draft') : '' };
}

/** Errors about a file's content name the file (the form has no faxData[i]). */
function named<T>(fileName: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof FaxError) err.message = `${fileName}: ${err.message}`;
    throw err;
  }
}

async function namedAsync<T>(fileNames: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof FaxError) err.message = `${fileNames}: ${err.message}`;
    throw err;
  }
}
