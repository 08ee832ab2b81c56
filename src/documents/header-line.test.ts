import { mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blackIn, inkBox } from '../../test/helpers/documents.js';
import { createBitmap, fillRow, type Bitmap } from '../codecs/bitmap.js';
import { builtHeaderAtlas, formatDateTime, headerAtlas, headerBandLines, headerColumns, headerStrip, headerText, orBlit, stampHeader, writeHeaderAtlases } from './header-line.js';
import { RESOLUTIONS } from './layout.js';

describe('headerText', () => {
  const when = new Date(Date.UTC(2025, 4, 1, 14, 3));

  it('puts date and sender left and "Page n of N" flush right', () => {
    const t = headerText({ senderName: 'ACME', senderNumber: '+1 212 555 0100', dateTime: when }, 3, 12, 100);
    expect(t).toHaveLength(100);
    expect(t.startsWith('2025-05-01 14:03 UTC   FROM: ACME  +1 212 555 0100')).toBe(true);
    expect(t.endsWith('Page 3 of 12')).toBe(true);
  });

  it('shortens a long sender with an ellipsis, never the page number', () => {
    const t = headerText({ senderName: 'N'.repeat(300), dateTime: '2025-05-01 14:03' }, 10, 10, 60);
    expect([...t]).toHaveLength(60);
    expect(t).toMatch(/N…\s+Page 10 of 10$/);
  });

  it('formats the date in a time zone', () => {
    expect(formatDateTime(when, 'America/New_York')).toBe('2025-05-01 10:03 EDT');
    expect(formatDateTime(when)).toBe('2025-05-01 14:03 UTC');
  });

  it('writes UTC as Intl does, without Intl', () => {
    const intl = new Intl.DateTimeFormat('en-CA', { timeZone: 'UTC', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short' });
    const viaIntl = (d: Date): string => {
      const parts = intl.formatToParts(d);
      const get = (t: string): string => parts.find((p) => p.type === t)?.value ?? '';
      return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')} ${get('timeZoneName')}`;
    };
    const dates = [Date.UTC(1000, 0, 1), Date.UTC(1999, 11, 31, 23, 59, 59), Date.UTC(2024, 1, 29, 0, 0), Date.UTC(2025, 9, 5, 9, 7), Date.UTC(9999, 11, 31, 23, 59)];
    for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2027, 0, 1); t += 37 * 3_600_000 + 17 * 60_000) dates.push(t);
    for (const t of dates) expect(formatDateTime(new Date(t))).toBe(viaIntl(new Date(t)));
    expect(formatDateTime(new Date(Date.UTC(12_000, 0, 1)))).toBe(viaIntl(new Date(Date.UTC(12_000, 0, 1))));
  });
});

describe('stampHeader', () => {
  it('uses a 5.2 mm band: 20 / 40 / 80 lines', () => {
    expect([headerBandLines(RESOLUTIONS.Low), headerBandLines(RESOLUTIONS.Standard), headerBandLines(RESOLUTIONS.HD)]).toEqual([20, 40, 80]);
    expect(headerColumns(RESOLUTIONS.Standard)).toBeGreaterThanOrEqual(100);
    expect(headerColumns(RESOLUTIONS.HD)).toBe(headerColumns(RESOLUTIONS.Standard));
  });

  it.each(Object.entries(RESOLUTIONS))('draws legible text inside the band at %s', async (_q, res) => {
    const cols = headerColumns(res);
    const strip = await headerStrip(headerText({ senderName: 'ACME', dateTime: '2025-05-01 14:03 UTC' }, 1, 2, cols), res);
    const band = headerBandLines(res);
    expect(strip.height).toBe(band);
    const box = inkBox(strip)!;
    expect(box.y0).toBeGreaterThan(0);
    expect(box.y1).toBeLessThan(band);
    expect(box.y1 - box.y0).toBeGreaterThan(band * 0.35); // glyphs about half the band high
    expect(box.x0).toBeLessThan(res.width * 0.05);
    expect(box.x1).toBeGreaterThan(res.width * 0.93); // "Page 1 of 2" reaches the right margin
    expect(blackIn(strip, 0, 0, strip.width, band)).toBeGreaterThan(30 * (res.xDpi / 204) * (res.yDpi / 98) * 20);
  });

  it('clears what was in the band first and leaves the rest of the page alone', async () => {
    const res = RESOLUTIONS.Standard;
    const page = createBitmap(1728, 300);
    for (let y = 0; y < 300; y++) fillRow(page, y, 0, 1728);
    stampHeader(page, 'X', await headerAtlas(res));
    const band = headerBandLines(res);
    expect(blackIn(page, 0, 0, 1728, band)).toBeLessThan(500); // just the X
    expect(blackIn(page, 0, band, 1728, 300)).toBe(1728 * (300 - band));
  });

  it('draws the same glyph the same way wherever it stands', async () => {
    const res = RESOLUTIONS.Low;
    const atlas = await headerAtlas(res);
    const a = createBitmap(1728, 20);
    const b = createBitmap(1728, 20);
    stampHeader(a, 'Page 1 of 9', atlas);
    stampHeader(b, 'Page 2 of 9', atlas);
    const digitX = Math.round(48 + 5 * atlas.advance); // margin 6 mm, column 5
    expect(blackIn(a, 0, 0, digitX - 2, 20)).toBe(blackIn(b, 0, 0, digitX - 2, 20));
    expect(blackIn(a, digitX + 20, 0, 1728, 20)).toBe(blackIn(b, digitX + 20, 0, 1728, 20));
    expect(blackIn(a, digitX - 2, 0, digitX + 20, 20)).not.toBe(blackIn(b, digitX - 2, 0, digitX + 20, 20));
  });
});

describe('orBlit', () => {
  /** Pixel by pixel, as the header was first stamped. */
  function byPixel(src: Bitmap, sx: number, dst: Bitmap, dx: number, w: number, rows: number): void {
    for (let x = 0; x < w; x++) {
      const s = sx + x;
      const d = dx + x;
      if (s < 0 || s >= src.width || d < 0 || d >= dst.width) continue;
      for (let y = 0; y < rows && y < src.height; y++) {
        if (src.data[y * src.stride + (s >>> 3)]! & (0x80 >>> (s & 7))) dst.data[y * dst.stride + (d >>> 3)]! |= 0x80 >>> (d & 7);
      }
    }
  }

  it('ORs the same pixels as pixel by pixel, at every bit offset, clipped at both edges', () => {
    let seed = 7;
    const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % n;
    const src = createBitmap(77, 9);
    for (let i = 0; i < src.data.length; i++) src.data[i] = rand(256);
    for (let t = 0; t < 400; t++) {
      const width = 40 + rand(60);
      const a = createBitmap(width, 7);
      for (let i = 0; i < a.data.length; i++) a.data[i] = rand(4) === 0 ? rand(256) : 0;
      const b = { ...a, data: a.data.slice() };
      const sx = rand(90) - 8;
      const dx = rand(width + 16) - 12;
      const w = 1 + rand(40);
      const rows = 1 + rand(12);
      orBlit(src, sx, a, dx, w, rows);
      byPixel(src, sx, b, dx, w, rows);
      expect(a.data).toEqual(b.data);
    }
  });
});

describe('the header glyphs drawn by the build', () => {
  // From src/ no atlas is ever written where headerAtlas looks (pdfium-cache.ts), so it draws them here.
  const dir = mkdtempSync(join(tmpdir(), 'faxstack-atlas-'));
  const written = writeHeaderAtlases(dir);

  it('are, for every resolution, the atlas drawn now, read back', async () => {
    await written;
    for (const res of Object.values(RESOLUTIONS)) {
      const drawn = await headerAtlas(res);
      const built = builtHeaderAtlas(res, dir);
      expect(built).not.toBeNull();
      expect({ ...built!, bitmap: { ...built!.bitmap, data: Buffer.from(built!.bitmap.data) } }).toEqual({ ...drawn, bitmap: { ...drawn.bitmap, data: Buffer.from(drawn.bitmap.data) } });
    }
  });

  it('are read when their key names this PDFium and the same atlas page, else drawn', async () => {
    await written;
    const res = RESOLUTIONS.Standard;
    const bin = join(dir, 'header-atlas-204x196.bin');
    const json = join(dir, 'header-atlas-204x196.json');
    const marked = readFileSync(bin);
    marked[marked.length - 1]! ^= 1; // an atlas of our own making: it is read, or it is not
    writeFileSync(bin, marked);
    expect(Buffer.compare(builtHeaderAtlas(res, dir)!.bitmap.data, marked)).toBe(0);
    const key = JSON.parse(readFileSync(json, 'utf8')) as Record<string, unknown>;
    const meta = key.meta as Record<string, number>;
    for (const wrong of [{ version: '0.0.0' }, { input: '0'.repeat(64) }, { meta: { ...meta, height: meta.height! + 1 } }, { meta: null }]) {
      writeFileSync(json, JSON.stringify({ ...key, ...wrong }));
      expect(builtHeaderAtlas(res, dir)).toBeNull();
    }
    writeFileSync(json, JSON.stringify(key));
    expect(builtHeaderAtlas(res, dir)).not.toBeNull();
    // Written before the module that reads it (the code changed since the build).
    utimesSync(json, new Date(0), new Date(0));
    expect(builtHeaderAtlas(res, dir)).toBeNull();
    expect(builtHeaderAtlas(res, mkdtempSync(join(tmpdir(), 'faxstack-atlas-')))).toBeNull();
  });
});
