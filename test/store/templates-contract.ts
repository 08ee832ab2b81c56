// The templates facet contract (src/store/templates-types.ts): one suite, run unchanged against
// SQLite and PostgreSQL by templates.test.ts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobStore, NewTemplate } from '../../src/store/index.js';

const T0 = Date.UTC(2026, 0, 1);

const text = (body: string): NewTemplate => ({ kind: 'template', name: 'Cover', fileName: 'cover.txt', format: 'text', pageCount: 1, data: Buffer.from(body) });
const sdoc: NewTemplate = { kind: 'smartDocument', name: 'Terms', fileName: 'terms.pdf', format: 'pdf', pageCount: 3, data: Buffer.from('%PDF-1.4 terms\x00\xff') };

export function templateStoreContract(name: string, open: () => Promise<JobStore>): void {
  describe(`TemplateStore contract: ${name}`, () => {
    let store: JobStore;
    let a: number;
    let b: number;

    beforeEach(async () => {
      store = await open();
      a = (await store.createAccount({ name: 'a', balanceCents: 0, faxNumber: '+14155550100', nowMs: T0 })).account.id;
      b = (await store.createAccount({ name: 'b', balanceCents: 0, faxNumber: '+14155550101', nowMs: T0 })).account.id;
    });
    afterEach(async () => {
      await store.close();
    });

    it('creates records with opaque prefixed ids and returns their metadata and exact bytes', async () => {
      const t = await store.templates.create(a, text('Hello {{to_name}}'), T0);
      const s = await store.templates.create(a, sdoc, T0 + 1);
      expect(t.id).toMatch(/^tpl_[A-Za-z0-9_-]{22}$/);
      expect(s.id).toMatch(/^sdoc_[A-Za-z0-9_-]{22}$/);
      expect(t).toEqual({ id: t.id, accountId: a, kind: 'template', name: 'Cover', fileName: 'cover.txt', format: 'text', pageCount: 1, byteLength: 17, createdAtMs: T0 });
      expect(await store.templates.get(a, t.id)).toEqual(t);
      expect(await store.templates.get(a, s.id)).toEqual(s);
      expect(await store.templates.bytes(a, s.id)).toEqual(sdoc.data);
      expect((await store.templates.bytes(a, t.id))!.toString()).toBe('Hello {{to_name}}');
    });

    it('lists newest first, by kind when asked', async () => {
      const t1 = await store.templates.create(a, text('1'), T0);
      const s = await store.templates.create(a, sdoc, T0 + 1);
      const t2 = await store.templates.create(a, text('2'), T0 + 2);
      expect((await store.templates.list(a)).map((r) => r.id)).toEqual([t2.id, s.id, t1.id]);
      expect((await store.templates.list(a, 'template')).map((r) => r.id)).toEqual([t2.id, t1.id]);
      expect((await store.templates.list(a, 'smartDocument')).map((r) => r.id)).toEqual([s.id]);
    });

    it("another account's id answers exactly like an unknown one: get, bytes, list, delete", async () => {
      const t = await store.templates.create(a, text('mine'), T0);
      expect(await store.templates.get(b, t.id)).toBeNull();
      expect(await store.templates.get(b, t.id, { includeDeleted: true })).toBeNull();
      expect(await store.templates.bytes(b, t.id)).toBeNull();
      expect(await store.templates.list(b)).toEqual([]);
      expect(await store.templates.delete(b, t.id, T0)).toBe(false);
      expect(await store.templates.get(a, t.id)).not.toBeNull();
      expect(await store.templates.get(a, 'tpl_unknown')).toBeNull();
      expect(await store.templates.delete(a, 'tpl_unknown', T0)).toBe(false);
    });

    it('delete hides the record from list and get but keeps it for queued faxes (includeDeleted, bytes)', async () => {
      const t = await store.templates.create(a, text('gone'), T0);
      expect(await store.templates.delete(a, t.id, T0 + 5)).toBe(true);
      expect(await store.templates.delete(a, t.id, T0 + 6)).toBe(false);
      expect(await store.templates.get(a, t.id)).toBeNull();
      expect(await store.templates.list(a)).toEqual([]);
      expect(await store.templates.get(a, t.id, { includeDeleted: true })).toMatchObject({ id: t.id, name: 'Cover' });
      expect((await store.templates.bytes(a, t.id))!.toString()).toBe('gone');
    });

    it('ids do not repeat', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 20; i++) ids.add((await store.templates.create(a, text(String(i)), T0)).id);
      expect(ids.size).toBe(20);
    });
  });
}
