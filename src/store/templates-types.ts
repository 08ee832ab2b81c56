// The templates facet (docs/api.md decision 15): per-account cover-page templates and smart
// documents, each an uploaded file kept with its sniffed format and page count. Every lookup is
// scoped by account: another account's id answers exactly like an unknown one.
import { randomBytes } from 'node:crypto';

/** `template`: a cover page (referenced by fax-send `templateId`); `smartDocument`: appended after the attachments (`smartDocumentId`). */
export type TemplateKind = 'template' | 'smartDocument';
export const TEMPLATE_KINDS: readonly TemplateKind[] = ['template', 'smartDocument'];

export interface TemplateRecord {
  /** Opaque: `tpl_` or `sdoc_` and 22 random base64url characters (128 bits). */
  id: string;
  accountId: number;
  kind: TemplateKind;
  name: string;
  fileName: string;
  /** Sniffed format (`text`, `pdf`, `tiff`, `png`, ...). */
  format: string;
  pageCount: number;
  byteLength: number;
  createdAtMs: number;
}

export interface NewTemplate {
  kind: TemplateKind;
  name: string;
  fileName: string;
  format: string;
  pageCount: number;
  data: Buffer;
}

export interface TemplateStore {
  /** Stores a new template or smart document under a fresh random id. */
  create(accountId: number, t: NewTemplate, nowMs: number): Promise<TemplateRecord>;
  /** The account's records (not deleted), newest first; only one kind when given. */
  list(accountId: number, kind?: TemplateKind): Promise<TemplateRecord[]>;
  /**
   * One record of the account, null when unknown, another account's or deleted — unless
   * `includeDeleted`: faxes queued with a template before it was deleted still render it.
   */
  get(accountId: number, id: string, opts?: { includeDeleted?: boolean }): Promise<TemplateRecord | null>;
  /** The stored bytes (deleted records included, see `get`); null when unknown or another account's. */
  bytes(accountId: number, id: string): Promise<Buffer | null>;
  /** Hides the record from list/get and new faxes; false when unknown, another account's or already deleted. */
  delete(accountId: number, id: string, nowMs: number): Promise<boolean>;
}

/** A fresh id for a record of `kind`. */
export function newTemplateId(kind: TemplateKind): string {
  return `${kind === 'template' ? 'tpl' : 'sdoc'}_${randomBytes(16).toString('base64url')}`;
}

export interface TemplateRow {
  id: string;
  account_id: number;
  kind: string;
  name: string;
  file_name: string;
  format: string;
  page_count: number;
  byte_length: number;
  created_at: number;
}

export const TEMPLATE_COLUMNS = 'id, account_id, kind, name, file_name, format, page_count, byte_length, created_at';

export function templateFromRow(r: TemplateRow): TemplateRecord {
  return {
    id: r.id, accountId: Number(r.account_id), kind: r.kind as TemplateKind, name: r.name, fileName: r.file_name,
    format: r.format, pageCount: Number(r.page_count), byteLength: Number(r.byte_length), createdAtMs: Number(r.created_at),
  };
}
