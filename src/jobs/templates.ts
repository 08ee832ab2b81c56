// Cover-page templates and smart documents as the API and the dashboard see them
// (docs/api.md decision 15): upload (size, format, page count, placeholders checked), list, delete,
// a preview with sample fields, and the look-ups fax-send makes. Scoped by account throughout.
import type { Clock } from '../shared/clock.js';
import { FaxError, withField } from '../shared/errors.js';
import { checkCoverTemplate, composeFax, countPages, type CoverInfo, decodeUtf8, type DocumentFormat, previewPng, sniffFormat } from '../documents/index.js';
import type { JobStore, TemplateKind, TemplateRecord } from '../store/index.js';
import type { JobsConfig } from './config.js';
import { templateFor } from './prepare.js';
import type { Caller } from './caller.js';

/** Records an account may keep (templates and smart documents together). */
const MAX_TEMPLATES_PER_ACCOUNT = 100;

interface TemplateUpload {
  kind: TemplateKind;
  name: string;
  fileName: string;
  data: Buffer;
}

/** The fields a template preview is filled with. */
const SAMPLE_FIELDS: Readonly<CoverInfo> = {
  subject: 'Sample subject',
  fromName: 'Sample Sender',
  senderNumber: '+1 555 0100',
  toName: 'Sample Recipient',
  toNumber: '+1 555 0199',
  message: 'This is where the message of a fax appears.\nIt keeps its line breaks.',
};

const LABEL: Record<TemplateKind, string> = { template: 'template', smartDocument: 'smart document' };

export class TemplateLibrary {
  constructor(private readonly o: { store: JobStore; clock: Clock; config: JobsConfig }) {}

  async create(caller: Caller, input: TemplateUpload): Promise<TemplateRecord> {
    const { store, clock, config } = this.o;
    const field = 'fileData';
    if (input.data.length > config.maxFileBytes) throw new FaxError('FILE_TOO_LARGE', `${field} is ${input.data.length} bytes; the limit is ${config.maxFileBytes}`, { field });
    const format = sniffFormat(input.data);
    let pageCount: number;
    if (input.kind === 'template') {
      if (!format) throw new FaxError('INVALID_FILE_FORMAT', `a template is UTF-8 text with {{placeholders}} or a one-page PDF, TIFF or image (a letterhead); ${input.fileName} is neither`, { field });
      if (format === 'text') checkCoverTemplate(decodeUtf8(input.data), field);
      else {
        const pages = withField(field, () => countPages(input.data, format));
        if (pages !== 1) throw new FaxError('INVALID_PARAMETER', `a letterhead template has one page; ${input.fileName} has ${pages}`, { field });
      }
      pageCount = 1;
    } else {
      if (!format) throw new FaxError('INVALID_FILE_FORMAT', `${input.fileName} is not a PDF, TIFF, image or text document`, { field });
      pageCount = withField(field, () => countPages(input.data, format));
      if (pageCount > config.maxPages) throw new FaxError('INVALID_PARAMETER', `the document has ${pageCount} pages; a fax has at most ${config.maxPages}`, { field });
    }
    const kept = await store.templates.list(caller.accountId);
    if (kept.length >= MAX_TEMPLATES_PER_ACCOUNT) {
      throw new FaxError('CONFLICT', `The account keeps ${kept.length} templates and smart documents, the most allowed; delete one first`);
    }
    return store.templates.create(caller.accountId, { kind: input.kind, name: input.name, fileName: input.fileName, format: format!, pageCount, data: input.data }, clock.now());
  }

  list(caller: Caller, kind?: TemplateKind): Promise<TemplateRecord[]> {
    return this.o.store.templates.list(caller.accountId, kind);
  }

  /** A record of the caller's account (of `kind` when given); -3011 naming `field` otherwise. */
  async get(caller: Caller, id: string, kind?: TemplateKind, field = 'id'): Promise<TemplateRecord> {
    const t = await this.o.store.templates.get(caller.accountId, id);
    if (!t || (kind && t.kind !== kind)) throw new FaxError('NOT_FOUND', `${kind ? LABEL[kind] : 'template or smart document'} "${id}"`, { field });
    return t;
  }

  async delete(caller: Caller, id: string): Promise<void> {
    if (!(await this.o.store.templates.delete(caller.accountId, id, this.o.clock.now()))) {
      throw new FaxError('NOT_FOUND', `template or smart document "${id}"`, { field: 'id' });
    }
  }

  /** The stored bytes of a record found by get(). */
  async bytes(caller: Caller, t: TemplateRecord): Promise<Buffer> {
    const data = await this.o.store.templates.bytes(caller.accountId, t.id);
    if (!data) throw new FaxError('NOT_FOUND', `${LABEL[t.kind]} "${t.id}"`, { field: 'id' });
    return data;
  }

  /** A PNG of the record: a template with SAMPLE_FIELDS (`{{pages}}` counts the cover only), a smart document's first page. */
  async preview(caller: Caller, id: string, width?: number): Promise<Buffer> {
    const t = await this.get(caller, id);
    const data = await this.bytes(caller, t);
    const fax = t.kind === 'template'
      ? await composeFax({ documents: [], quality: 'Standard', cover: { ...SAMPLE_FIELDS, date: new Date(this.o.clock.now()), ...(await templateFor(this.o.store, caller, t.id)) } })
      : await composeFax({ documents: [{ bytes: data, format: t.format as DocumentFormat, pages: [1] }], quality: 'Standard' });
    return previewPng(fax.pages[0]!, width ? { width } : {});
  }
}
