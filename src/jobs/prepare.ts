// The preparing stage of a job: make every attachment's content available (fetching fileUrl
// documents once, SSRF-safe, and keeping the bytes so resends reuse them), check formats,
// apply page selections and count the pages that will be transmitted.
import { FaxError } from '../shared/errors.js';
import { sniffFormat, countPages, fetchDocument, type DocumentFormat } from '../documents/index.js';
import { parsePageSelection, selectPages } from '../documents/page-ranges.js';
import type { JobRecord, JobStore } from '../store/index.js';

export interface FetchPolicy {
  timeoutMs: number;
  allowHosts: string[];
}

export interface PreparedJob {
  totalPages: number;
  coverPage: boolean;
  documents: { documentId: number; format: string; pages: number[] }[];
}

export async function prepareJob(store: JobStore, job: JobRecord, opts: { fetch: FetchPolicy; maxPages: number; maxFileBytes: number }): Promise<PreparedJob> {
  const coverPage = job.cover !== null || job.templateId !== null;
  const documents: PreparedJob['documents'] = [];
  let total = coverPage ? 1 : 0;
  for (const d of await store.jobDocuments(job.jobId)) {
    const field = `faxData[${d.index}]`;
    let format = d.format as DocumentFormat | null;
    let count = d.pageCount;
    if (d.byteLength === null || format === null || count === null) {
      if (!d.fileUrl) throw new FaxError('IMAGE_NOT_FOUND', `${field} has no content`);
      const { data } = await fetchDocument(d.fileUrl, { maxBytes: opts.maxFileBytes, timeoutMs: opts.fetch.timeoutMs, allowHosts: opts.fetch.allowHosts });
      format = sniffFormat(data);
      if (!format) throw new FaxError('INVALID_FILE_FORMAT', `${field} (${d.fileName}) is not a PDF, TIFF, image or text document`);
      count = countPages(data, format);
      await store.setDocumentContent(d.documentId, data, format, count);
    }
    const pages = selectPages(parsePageSelection(d.pages, `${field}.pages`), count, field);
    documents.push({ documentId: d.documentId, format, pages });
    total += pages.length;
  }
  if (total > opts.maxPages) throw new FaxError('CONVERSION_FAILED', `the fax has ${total} pages, more than the limit of ${opts.maxPages}`);
  return { totalPages: total, coverPage, documents };
}
