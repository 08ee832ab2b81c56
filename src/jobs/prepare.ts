// The preparing stage of a job: make every attachment's content available (fetching fileUrl
// documents once, SSRF-safe, and keeping the bytes), render the fax exactly as it will be
// transmitted — cover page, every selected page, the header line on each — encode it in the
// worker pool and store it as TIFF class F. Resends and restarts reuse the stored pages.
import { FaxError } from '../shared/errors.js';
import { type ComposedFax, composeFax, type ComposeOptions, countPages, decodeUtf8, type DocumentFormat, type FaxDocument, fetchDocument, renderFaxTiff, type Letterhead, parsePageSelection, selectPages, sniffFormat } from '../documents/index.js';
import type { JobRecord, JobStore } from '../store/index.js';

export interface FetchPolicy {
  timeoutMs: number;
  allowHosts: string[];
}

interface PreparedJob {
  totalPages: number;
}

interface PrepareOptions {
  owner: string;
  nowMs: number;
  fetch: FetchPolicy;
  maxPages: number;
  maxFileBytes: number;
  signal?: AbortSignal;
  /** Told about the real work a simulated clock must wait for: rendering and encoding, and a fileUrl's name lookup (fetch.ts). */
  hold?: (work: Promise<unknown>) => void;
}

/** Renders and stores the job's pages (unless already prepared); returns the page count. */
export async function prepareJob(store: JobStore, job: JobRecord, opts: PrepareOptions): Promise<PreparedJob> {
  if (job.preparedId !== null) return { totalPages: job.totalPages };
  const documents: FaxDocument[] = [];
  for (const d of await store.jobDocumentContents(job.jobId)) {
    const field = `faxData[${d.index}]`;
    let format = d.format as DocumentFormat | null;
    let count = d.pageCount;
    let bytes = d.byteLength === null ? null : d.data;
    if (bytes === null || format === null || count === null) {
      if (!d.fileUrl) throw new FaxError('IMAGE_NOT_FOUND', `${field} has no content`);
      const { data } = await fetchDocument(d.fileUrl, { maxBytes: opts.maxFileBytes, timeoutMs: opts.fetch.timeoutMs, allowHosts: opts.fetch.allowHosts, ...(opts.hold ? { hold: opts.hold } : {}) });
      format = sniffFormat(data);
      if (!format) throw new FaxError('INVALID_FILE_FORMAT', `${field} (${d.fileName}) is not a PDF, TIFF, image or text document`);
      count = countPages(data, format);
      await store.setDocumentContent(d.documentId, data, format, count);
      bytes = data;
    }
    const pages = selectPages(parsePageSelection(d.pages, `${field}.pages`), count, field);
    documents.push({ bytes, format, pages });
  }
  const coverTemplate = job.templateId === null ? undefined : await templateFor(store, job, job.templateId);
  const rendering = render(job, documents, { ...opts, ...(coverTemplate ? { coverTemplate } : {}) });
  opts.hold?.(rendering);
  const fax = await rendering;
  const saved = await store.savePreparedFax(job.jobId, opts.owner, { tiff: fax.tiff, pageCount: fax.count, quality: job.quality, width: fax.width, xDpi: fax.xDpi, yDpi: fax.yDpi }, opts.nowMs);
  if (!saved) throw new FaxError('INTERNAL', 'the job was taken over while its pages were being prepared');
  return { totalPages: fax.count };
}

/** The job's fields that shape its pages (the dashboard previews a fax before it is a job). */
type FaxLook = Pick<JobRecord, 'quality' | 'cover' | 'fromNumber' | 'toNumber'>;

/**
 * Composes the fax exactly as it is transmitted: cover page, the selected pages, the header line on each.
 * `coverTemplate`: the cover page is that template, filled in (a text template, cover-template.ts) or
 * the fields drawn over it (a letterhead, letterhead.ts).
 */
export function composeJobFax(job: FaxLook, documents: FaxDocument[], opts: ComposeJobOptions): Promise<ComposedFax> {
  return composeFax(jobFax(job, documents, opts));
}

/** What composeJobFax composes, for the renderer. */
function jobFax(job: FaxLook, documents: FaxDocument[], opts: ComposeJobOptions): ComposeOptions {
  const when = new Date(opts.nowMs);
  const template = opts.coverTemplate ?? {};
  const cover = job.cover ?? (opts.coverTemplate ? {} : null);
  return {
    documents,
    quality: job.quality,
    maxPages: opts.maxPages,
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(cover ? { cover: { ...cover, ...template, senderNumber: job.fromNumber, toNumber: job.toNumber, date: when } } : {}),
    header: { senderNumber: job.fromNumber, dateTime: when, ...(job.cover?.fromName ? { senderName: job.cover.fromName } : {}) },
  };
}

interface ComposeJobOptions {
  nowMs: number;
  maxPages: number;
  signal?: AbortSignal;
  coverTemplate?: CoverTemplate;
}

/** A cover-page template as the renderer takes it: a text template or a letterhead. */
type CoverTemplate = { template: string } | { background: Letterhead };

/** The job's cover-page template (kept after the template is deleted, for jobs like this one). */
export async function templateFor(store: JobStore, job: Pick<JobRecord, 'accountId'>, templateId: string): Promise<CoverTemplate> {
  const [t, data] = await Promise.all([store.templates.get(job.accountId, templateId, { includeDeleted: true }), store.templates.bytes(job.accountId, templateId)]);
  if (!t || !data || t.kind !== 'template') throw new FaxError('CONVERSION_FAILED', `the cover-page template "${templateId}" does not exist`);
  return t.format === 'text' ? { template: decodeUtf8(data) } : { background: { bytes: data, format: t.format as DocumentFormat } };
}

/**
 * Renders the whole fax as composeJobFax composes it into TIFF class F, each page coded (MMR) in
 * the render worker that draws it.
 */
function render(job: JobRecord, documents: FaxDocument[], opts: PrepareOptions & { coverTemplate?: CoverTemplate }) {
  // MMR keeps the stored pages lossless and small; transmission re-encodes them for whatever
  // the receiver negotiates.
  return renderFaxTiff({ ...jobFax(job, documents, opts), compression: 'mmr' });
}
