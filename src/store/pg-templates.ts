// The templates facet on PostgreSQL (see templates-types.ts).
import { all, one, type PgSql } from './pg-sql.js';
import {
  newTemplateId, TEMPLATE_COLUMNS, templateFromRow, type NewTemplate, type TemplateKind, type TemplateRecord, type TemplateRow, type TemplateStore,
} from './templates-types.js';

export class PgTemplates implements TemplateStore {
  constructor(private readonly sql: PgSql) {}

  async create(accountId: number, t: NewTemplate, nowMs: number): Promise<TemplateRecord> {
    const id = newTemplateId(t.kind);
    await this.sql.pool.query(
      'INSERT INTO templates (id, account_id, kind, name, file_name, format, page_count, byte_length, data, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
      [id, accountId, t.kind, t.name, t.fileName, t.format, t.pageCount, t.data.length, t.data, nowMs],
    );
    return { id, accountId, kind: t.kind, name: t.name, fileName: t.fileName, format: t.format, pageCount: t.pageCount, byteLength: t.data.length, createdAtMs: nowMs };
  }

  async list(accountId: number, kind?: TemplateKind): Promise<TemplateRecord[]> {
    const rows = kind
      ? await all<TemplateRow>(this.sql.pool, `SELECT ${TEMPLATE_COLUMNS} FROM templates WHERE account_id = $1 AND kind = $2 AND deleted_at IS NULL ORDER BY created_at DESC, id`, [accountId, kind])
      : await all<TemplateRow>(this.sql.pool, `SELECT ${TEMPLATE_COLUMNS} FROM templates WHERE account_id = $1 AND deleted_at IS NULL ORDER BY created_at DESC, id`, [accountId]);
    return rows.map(templateFromRow);
  }

  async get(accountId: number, id: string, opts: { includeDeleted?: boolean } = {}): Promise<TemplateRecord | null> {
    const live = opts.includeDeleted ? '' : ' AND deleted_at IS NULL';
    const r = await one<TemplateRow>(this.sql.pool, `SELECT ${TEMPLATE_COLUMNS} FROM templates WHERE id = $1 AND account_id = $2${live}`, [id, accountId]);
    return r ? templateFromRow(r) : null;
  }

  async bytes(accountId: number, id: string): Promise<Buffer | null> {
    const r = await one<{ data: Buffer }>(this.sql.pool, 'SELECT data FROM templates WHERE id = $1 AND account_id = $2', [id, accountId]);
    return r ? r.data : null;
  }

  async delete(accountId: number, id: string, nowMs: number): Promise<boolean> {
    const r = await this.sql.pool.query('UPDATE templates SET deleted_at = $1 WHERE id = $2 AND account_id = $3 AND deleted_at IS NULL', [nowMs, id, accountId]);
    return r.rowCount === 1;
  }
}
