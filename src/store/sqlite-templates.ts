// The templates facet on SQLite (see templates-types.ts).
import type { SqliteSql } from './sqlite-sql.js';
import {
  newTemplateId, TEMPLATE_COLUMNS, templateFromRow, type NewTemplate, type TemplateKind, type TemplateRecord, type TemplateRow, type TemplateStore,
} from './templates-types.js';

export class SqliteTemplates implements TemplateStore {
  constructor(private readonly sql: SqliteSql) {}

  async create(accountId: number, t: NewTemplate, nowMs: number): Promise<TemplateRecord> {
    const id = newTemplateId(t.kind);
    this.sql
      .stmt('INSERT INTO templates (id, account_id, kind, name, file_name, format, page_count, byte_length, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(id, accountId, t.kind, t.name, t.fileName, t.format, t.pageCount, t.data.length, t.data, nowMs);
    return { id, accountId, kind: t.kind, name: t.name, fileName: t.fileName, format: t.format, pageCount: t.pageCount, byteLength: t.data.length, createdAtMs: nowMs };
  }

  async list(accountId: number, kind?: TemplateKind): Promise<TemplateRecord[]> {
    const rows = kind
      ? this.sql.stmt(`SELECT ${TEMPLATE_COLUMNS} FROM templates WHERE account_id = ? AND kind = ? AND deleted_at IS NULL ORDER BY created_at DESC, id`).all(accountId, kind)
      : this.sql.stmt(`SELECT ${TEMPLATE_COLUMNS} FROM templates WHERE account_id = ? AND deleted_at IS NULL ORDER BY created_at DESC, id`).all(accountId);
    return (rows as TemplateRow[]).map(templateFromRow);
  }

  async get(accountId: number, id: string, opts: { includeDeleted?: boolean } = {}): Promise<TemplateRecord | null> {
    const live = opts.includeDeleted ? '' : ' AND deleted_at IS NULL';
    const r = this.sql.stmt(`SELECT ${TEMPLATE_COLUMNS} FROM templates WHERE id = ? AND account_id = ?${live}`).get(id, accountId) as TemplateRow | undefined;
    return r ? templateFromRow(r) : null;
  }

  async bytes(accountId: number, id: string): Promise<Buffer | null> {
    const r = this.sql.stmt('SELECT data FROM templates WHERE id = ? AND account_id = ?').get(id, accountId) as { data: Buffer } | undefined;
    return r ? r.data : null;
  }

  async delete(accountId: number, id: string, nowMs: number): Promise<boolean> {
    return this.sql.stmt('UPDATE templates SET deleted_at = ? WHERE id = ? AND account_id = ? AND deleted_at IS NULL').run(nowMs, id, accountId).changes === 1;
  }
}
