// The job lifecycle as the API sees it: send (page estimate, reservation, idempotency),
// cancel and resend by the rules of docs/api.md decisions 3-4, and the lookups.
import type { Clock } from '../shared/clock.js';
import { FaxError, withField } from '../shared/errors.js';
import { decodeMMR } from '../codecs/index.js';
import { countPages, parsePageSelection, previewPng, readTiffDirectories, selectPages, sniffFormat, tiffToPdf } from '../documents/index.js';
import { jobEvent, reservationCents } from '../store/index.js';
import type {
  CoverFields, FaxQuality, JobDocument, JobListFilter, JobRecord, JobStore, NewDocument, NewJob, PreparedFax,
} from '../store/index.js';
import { linePolicy, type JobsConfig } from './config.js';
import type { Caller } from './caller.js';
import { TemplateLibrary } from './templates.js';

export type { Caller } from './caller.js';

export interface SendInput {
  numbers: string[];
  callerId: string | null;
  templateId: string | null;
  smartDocumentId: string | null;
  cover: CoverFields | null;
  sendAtMs: number | null;
  quality: FaxQuality;
  files: { fileName: string; fileUrl: string | null; data: Buffer | null; pages: string[] | null }[];
}

interface SendResult {
  jobIds: number[];
  replayed: boolean;
  scheduled: boolean;
}

interface FaxServiceOptions {
  store: JobStore;
  clock: Clock;
  config: JobsConfig;
  /** A job became due now (wake the dispatcher). */
  onJob?: () => void;
  /** An event entered the webhook outbox (wake the delivery worker). */
  onEvent?: () => void;
}

export class FaxService {
  /** Cover-page templates and smart documents (fax-send's templateId and smartDocumentId). */
  readonly templates: TemplateLibrary;

  constructor(private readonly o: FaxServiceOptions) {
    this.templates = new TemplateLibrary(o);
  }

  /**
   * Answers a request that repeats an Idempotency-Key before it is validated again (its
   * send_at, for one, may have passed since): the same jobs, or a conflict for another body.
   * Null when the key is new.
   */
  async replay(caller: Caller, idempotency: { key: string; requestHash: string }): Promise<SendResult | null> {
    const r = await this.o.store.findIdempotency(caller.accountId, idempotency.key, this.o.clock.now());
    if (!r) return null;
    if (r.requestHash !== idempotency.requestHash) {
      throw new FaxError('CONFLICT', 'This Idempotency-Key was already used with a different request', { field: 'Idempotency-Key' });
    }
    return { jobIds: r.jobIds, replayed: true, scheduled: false };
  }

  async send(caller: Caller, input: SendInput, idempotency: { key: string; requestHash: string } | null): Promise<SendResult> {
    const { store, clock, config } = this.o;
    const now = clock.now();
    // docs/api.md decision 15: the template is the cover page; the smart document is copied after the attachments.
    const template = input.templateId === null ? null : await this.templates.get(caller, input.templateId, 'template', 'templateId');
    const smart = input.smartDocumentId === null ? null : await this.templates.get(caller, input.smartDocumentId, 'smartDocument', 'smartDocumentId');
    const account = await store.getAccount(caller.accountId);
    if (!account) throw new FaxError('INVALID_API_KEY', 'the account no longer exists');
    // A callerId must be a number the account may send from (its own, or one registered on the settings page).
    if (input.callerId !== null && input.callerId !== account.faxNumber && !(await store.users.isCallerId(account.id, input.callerId))) {
      throw new FaxError('INVALID_PARAMETER', `callerId ${input.callerId} is neither the account's fax number nor one of its caller IDs: register it on the dashboard's settings page (Caller IDs)`, { field: 'callerId' });
    }

    const documents: NewDocument[] = [];
    const cover = input.cover ?? (template ? {} : null);
    let pages = cover ? 1 : 0;
    input.files.forEach((f, i) => {
      const field = `faxData[${i}]`;
      const ranges = parsePageSelection(f.pages, `${field}.pages`);
      if (f.data) {
        if (f.data.length > config.maxFileBytes) throw new FaxError('FILE_TOO_LARGE', `${field} is ${f.data.length} bytes; the limit is ${config.maxFileBytes}`, { field });
        const format = sniffFormat(f.data);
        if (!format) throw new FaxError('INVALID_FILE_FORMAT', `${field} (${f.fileName}) is not a PDF, TIFF, image or text document`, { field });
        const count = withField(field, () => countPages(f.data!, format));
        pages += selectPages(ranges, count, field).length;
        documents.push({ fileName: f.fileName, fileUrl: null, data: f.data, format, pageCount: count });
      } else {
        // Fetched when the job is prepared; until then the selection (or one page) is the estimate.
        pages += ranges ? ranges.reduce((s, r) => s + (r.to - r.from + 1), 0) : 1;
        documents.push({ fileName: f.fileName, fileUrl: f.fileUrl, data: null, format: null, pageCount: null });
      }
    });
    if (smart) {
      documents.push({ fileName: smart.fileName, fileUrl: null, data: await this.templates.bytes(caller, smart), format: smart.format, pageCount: smart.pageCount });
      pages += smart.pageCount;
    }
    if (pages > config.maxPages) throw new FaxError('INVALID_PARAMETER', `the fax has ${pages} pages; the limit is ${config.maxPages}`, { field: 'faxData' });

    const line = caller.mode === 'test' ? 'virtual' : config.liveLine;
    const reserveCents = reservationCents({ keyMode: caller.mode, priceCentsPerPage: config.pricePerPageCents }, pages);
    const jobs: NewJob[] = input.numbers.map((toNumber) => ({
      toNumber,
      fromNumber: input.callerId ?? account.faxNumber,
      quality: input.quality,
      cover,
      templateId: input.templateId,
      smartDocumentId: input.smartDocumentId,
      sendAtMs: input.sendAtMs,
      deadlineMs: (input.sendAtMs ?? now) + config.deadlineMs,
      line,
      maxAttempts: linePolicy(config, line).maxAttempts,
      totalPages: pages,
      priceCentsPerPage: config.pricePerPageCents,
      reserveCents,
      originalJobId: null,
    }));
    const r = await store.createJobs({
      accountId: caller.accountId, keyMode: caller.mode, jobs, documents, pages: [...input.files.map((f) => f.pages), ...(smart ? [null] : [])],
      idempotency: idempotency ? { ...idempotency, expiresAtMs: now + 24 * 3600_000 } : null, nowMs: now,
    });
    switch (r.kind) {
      case 'insufficient_balance':
        throw new FaxError('INSUFFICIENT_BALANCE', `sending needs ${cents(r.neededCents)}, the balance is ${cents(r.balanceCents)}`);
      case 'idempotency_conflict':
        throw new FaxError('CONFLICT', 'This Idempotency-Key was already used with a different request', { field: 'Idempotency-Key' });
      default: {
        const scheduled = input.sendAtMs !== null && input.sendAtMs > now;
        if (r.kind === 'created' && !scheduled) this.o.onJob?.();
        return { jobIds: r.jobIds, replayed: r.kind === 'replayed', scheduled };
      }
    }
  }

  async cancel(caller: Caller, jobId: number): Promise<JobRecord> {
    const now = this.o.clock.now();
    const r = await this.o.store.cancelJob({
      accountId: caller.accountId, jobId, nowMs: now, message: 'Fax canceled before dialing', event: (j) => jobEvent(j, now),
    });
    if (r.kind === 'not_found') throw new FaxError('NOT_FOUND', `fax job ${jobId}`, { field: 'jobId' });
    if (r.kind === 'not_cancelable') throw new FaxError('CONFLICT', `Fax job ${jobId} cannot be canceled: ${whyNotCancelable(r.job)}`, { field: 'jobId' });
    this.o.onEvent?.();
    return r.job;
  }

  async resend(caller: Caller, jobId: number, faxNumber: string | null): Promise<number> {
    const { store, clock, config } = this.o;
    const now = clock.now();
    const original = await store.getJob(caller.accountId, jobId);
    if (!original) throw new FaxError('NOT_FOUND', `fax job ${jobId}`, { field: 'jobId' });
    if (original.status === 'sending') throw new FaxError('CONFLICT', `Fax job ${jobId} cannot be resent: it is still sending`, { field: 'jobId' });
    if (original.direction === 'received') throw new FaxError('CONFLICT', `Fax job ${jobId} cannot be resent: it is a received fax`, { field: 'jobId' });
    const line = caller.mode === 'test' ? 'virtual' : config.liveLine;
    const r = await store.createResend({
      accountId: caller.accountId, keyMode: caller.mode, originalJobId: jobId, nowMs: now,
      job: {
        toNumber: faxNumber ?? original.toNumber, fromNumber: original.fromNumber, quality: original.quality, cover: original.cover,
        templateId: original.templateId, smartDocumentId: original.smartDocumentId, sendAtMs: null, deadlineMs: now + config.deadlineMs,
        line, maxAttempts: linePolicy(config, line).maxAttempts, totalPages: original.totalPages, priceCentsPerPage: config.pricePerPageCents,
        reserveCents: reservationCents({ keyMode: caller.mode, priceCentsPerPage: config.pricePerPageCents }, original.totalPages), originalJobId: jobId,
      },
    });
    if (r.kind === 'insufficient_balance') throw new FaxError('INSUFFICIENT_BALANCE', `resending needs ${cents(r.neededCents)}, the balance is ${cents(r.balanceCents)}`);
    if (r.kind !== 'created') throw new Error(`unexpected resend result ${r.kind}`);
    this.o.onJob?.();
    return r.jobIds[0]!;
  }

  async status(caller: Caller, jobId: number): Promise<JobRecord> {
    const job = await this.o.store.getJob(caller.accountId, jobId);
    if (!job) throw new FaxError('NOT_FOUND', `fax job ${jobId}`, { field: 'jobId' });
    return job;
  }

  list(caller: Caller, filter: JobListFilter): Promise<JobRecord[]> {
    return this.o.store.listJobs(caller.accountId, filter);
  }

  /** The document of a job as it was sent (attachment `index`), once its content is known. */
  async download(caller: Caller, jobId: number, index: number): Promise<{ doc: JobDocument; data: Buffer }> {
    await this.status(caller, jobId);
    const docs = await this.o.store.jobDocuments(jobId);
    const doc = docs[index];
    if (!doc) throw new FaxError('NOT_FOUND', `fax job ${jobId} has no attachment ${index} (it has ${docs.length})`, { field: 'file' });
    const data = await this.o.store.documentBytes(doc.documentId);
    if (!data) throw new FaxError('NOT_FOUND', `attachment ${index} of fax job ${jobId} has not been fetched yet`, { field: 'file' });
    return { doc, data };
  }
}

type FaxFileFormat = 'tiff' | 'pdf';

export class FaxFiles {
  constructor(private readonly store: JobStore) {}

  /** The pages of a job exactly as transmitted; a conflict while they are not prepared yet. */
  async prepared(caller: Caller, jobId: number): Promise<PreparedFax> {
    const job = await this.store.getJob(caller.accountId, jobId);
    if (!job) throw new FaxError('NOT_FOUND', `fax job ${jobId}`, { field: 'jobId' });
    const fax = await this.store.preparedFax(caller.accountId, jobId);
    if (!fax) {
      const why = job.status === 'sending' ? `its pages are not prepared yet (stage ${job.stage})` : `it ended (${job.status}) before its pages were prepared`;
      throw new FaxError('CONFLICT', `Fax job ${jobId} has no pages to show: ${why}`, { field: 'jobId' });
    }
    return fax;
  }

  /** The fax as transmitted, as TIFF class F (MMR) or as PDF (the same CCITT data). */
  async document(caller: Caller, jobId: number, format: FaxFileFormat): Promise<Buffer> {
    const fax = await this.prepared(caller, jobId);
    return format === 'tiff' ? fax.tiff : tiffToPdf(fax.tiff, { title: `Fax ${jobId}` });
  }

  /** Page `page` (1-based) as a PNG, exactly as transmitted; `width` scales it (thumbnails). */
  async preview(caller: Caller, jobId: number, page: number, width?: number): Promise<Buffer> {
    const fax = await this.prepared(caller, jobId);
    if (page > fax.pageCount) throw new FaxError('INVALID_PARAMETER', `page ${page} does not exist (the fax has ${fax.pageCount} pages)`, { field: 'page' });
    const dir = readTiffDirectories(fax.tiff)[page - 1]!;
    const bitmap = decodeMMR(dir.strips[0]!, { width: dir.width, height: dir.height });
    return previewPng(bitmap, { xDpi: fax.xDpi, yDpi: fax.yDpi, ...(width ? { width } : {}) });
  }
}

function whyNotCancelable(job: JobRecord): string {
  if (job.status !== 'sending') return `it is already ${job.status}`;
  return `it has started (${job.stage ?? 'in progress'})`;
}

const cents = (c: number) => `$${(c / 100).toFixed(2)}`;
