import { describe, expect, it } from 'vitest';
import { ManualClock } from '../shared/clock.js';
import { FaxError } from '../shared/errors.js';
import { PreviewStore } from './previews.js';

const preview = (accountId: number, bytes = 10) => ({
  accountId, mode: 'test' as const, totalPages: 1, files: [{ fileName: 'a.txt', pages: 1 }], template: null, smartDocument: null, pngs: [Buffer.alloc(5)],
  input: { numbers: ['+14155550123'], callerId: null, templateId: null, smartDocumentId: null, cover: null, sendAtMs: null, quality: 'Standard' as const, files: [{ fileName: 'a.txt', fileUrl: null, data: Buffer.alloc(bytes), pages: null }] },
});

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof FaxError ? err.code : 'not a FaxError';
  }
  return 'no error';
};

describe('PreviewStore', () => {
  it('is private to its account and expires after its lifetime', async () => {
    const clock = new ManualClock(0);
    const s = new PreviewStore(clock, { ttlMs: 1000, perAccount: 3, maxBytes: 1000 });
    const p = s.add(preview(1));
    expect(s.get(1, p.id)).toBe(p);
    expect(code(() => s.get(2, p.id))).toBe(-3011);
    await clock.advance(1000);
    expect(s.get(1, p.id)).toBe(p);
    await clock.advance(1);
    expect(code(() => s.get(1, p.id))).toBe(-3011);
    expect(s.size).toBe(0);
  });

  it('keeps the newest few per account and refuses when the byte budget is spent', () => {
    const s = new PreviewStore(new ManualClock(0), { ttlMs: 60_000, perAccount: 2, maxBytes: 100 });
    const [a, b, c] = [s.add(preview(1)), s.add(preview(1)), s.add(preview(1))];
    expect(code(() => s.get(1, a.id))).toBe(-3011);
    expect([s.get(1, b.id), s.get(1, c.id)]).toEqual([b, c]);
    s.add(preview(2, 40)); // 15 + 15 + 45 = 75 bytes
    expect(code(() => s.add(preview(3, 30)))).toBe(-3010);
    s.take(1, b.id); // frees 15
    expect(s.add(preview(3, 30)).accountId).toBe(3);
    expect(code(() => s.take(1, b.id))).toBe(-3011);
  });

  it('keeps the files of a refused form as a draft of its account, counted with the previews', async () => {
    const clock = new ManualClock(0);
    const s = new PreviewStore(clock, { ttlMs: 1000, perAccount: 2, maxBytes: 100 });
    const d = s.addDraft(1, [{ fileName: 'a.pdf', data: Buffer.alloc(40) }]);
    expect(s.draft(1, d.id)?.files[0]!.fileName).toBe('a.pdf');
    expect(s.draft(2, d.id)).toBeNull();
    expect(code(() => s.get(1, d.id))).toBe(-3011); // a draft is no preview to confirm
    expect(code(() => s.addDraft(2, [{ fileName: 'b.pdf', data: Buffer.alloc(70) }]))).toBe(-3010); // 40 + 70 > 100
    s.add(preview(1));
    s.add(preview(1)); // the account's oldest entry (the draft) makes room
    expect(s.draft(1, d.id)).toBeNull();
    const e = s.addDraft(3, [{ fileName: 'c.pdf', data: Buffer.alloc(10) }]);
    await clock.advance(1001);
    expect(s.draft(3, e.id)).toBeNull();
    s.addDraft(3, [{ fileName: 'c.pdf', data: Buffer.alloc(10) }]);
    s.dropDraft(3, s.addDraft(3, []).id);
    expect(s.size).toBe(1);
  });
});
